/**
 * The built renderer (out/renderer, the same bundle Electron and the web host load) must hold no
 * Node or Electron access: it talks to the core only through window.loupe or the HTTP door.
 * Runs after the build step of `npm test`; a missing build is a failure, not a skip.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';

const OUT = join(process.cwd(), 'out', 'renderer');

function jsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...jsFiles(p));
    else if (/\.(m?js)$/.test(e.name)) out.push(p);
  }
  return out;
}

test('the built renderer contains no require(, process., ipcRenderer or electron access', () => {
  expect(existsSync(join(OUT, 'index.html')), 'out/renderer is built (run npm run build)').toBe(true);
  const files = jsFiles(OUT);
  expect(files.length).toBeGreaterThan(0);
  const rules: Array<[string, RegExp]> = [
    ['require(', /\brequire\s*\(/],
    ['process.', /\bprocess\.(env|versions|platform|argv|cwd|exit|nextTick|binding)\b/],
    ['ipcRenderer', /\bipcRenderer\b/],
    ['electron import', /(from\s*["']electron["']|require\(\s*["']electron["']\s*\)|import\(\s*["']electron["']\s*\))/],
    ['node: import', /(from\s*["']node:|import\(\s*["']node:)/],
  ];
  const found: string[] = [];
  for (const f of files) {
    // block comments are documentation kept by some libraries (e.g. an example using node:vm), not code
    const src = readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    for (const [name, re] of rules) {
      const m = re.exec(src);
      if (m) found.push(`${f.slice(OUT.length + 1)}: ${name} near "${src.slice(Math.max(0, m.index - 40), m.index + 40)}"`);
    }
  }
  expect(found).toEqual([]);
});
