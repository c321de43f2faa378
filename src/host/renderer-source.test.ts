/**
 * What the renderer the host serves must not do, checked on its sources (issue 14 #5): no
 * browser prompt()/alert()/confirm() — Electron does not implement prompt(), so such buttons do
 * nothing in the desktop app — and the Library's six asking actions use the in-app dialog.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(__dirname, '..', 'renderer', 'src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f) ? [p] : [];
  });
}
const code = (f: string) => readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');

describe('renderer sources', () => {
  it('no prompt(), alert() or window.confirm() of the browser', () => {
    const offenders = files(SRC).filter((f) => /\b(window\.)?(prompt|alert)\s*\(|window\.confirm\s*\(/.test(code(f)));
    expect(offenders).toEqual([]);
  });

  it('the Library asks through the in-app dialog: save set, tag all, tag, untag, note, override', () => {
    const lib = code(join(SRC, 'features', 'LibraryView.tsx'));
    expect(lib.match(/\.askText\(|\.askLabel\(/g)?.length).toBe(6);
  });
});
