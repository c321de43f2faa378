/**
 * Issue 30 "Opening": the Library's code is asked for while the page is parsed (modulepreload links
 * in index.html, scripts/first-view-preload.mjs, in both builds of the renderer), not once the app's
 * first script has run and React has asked for the lazy view.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { firstViewFiles } from './first-view-preload.mjs';
import { mulberry32 } from '../src/shared/random';

const root = join(import.meta.dirname, '..');
const LIB = '/x/src/renderer/src/features/LibraryView.tsx';

type Chunk = { type: 'chunk'; fileName: string; isEntry: boolean; facadeModuleId: string | null; imports: string[] };

/** A random bundle: chunk i imports some chunks after it (no cycles); chunk 0 the entry, chunk `lib` the Library. */
function bundle(seed: number): { chunks: Chunk[]; lib: number } {
  const rng = mulberry32(seed);
  const n = 3 + Math.floor(rng() * 12);
  const lib = 1 + Math.floor(rng() * (n - 1));
  const chunks: Chunk[] = Array.from({ length: n }, (_, i) => ({
    type: 'chunk',
    fileName: `assets/c${i}.js`,
    isEntry: i === 0,
    facadeModuleId: i === lib ? LIB : rng() < 0.5 ? `/x/src/renderer/src/features/V${i}.tsx` : null,
    imports: [],
  }));
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) if (rng() < 0.3) chunks[i].imports.push(chunks[j].fileName);
  return { chunks, lib };
}

function reach(chunks: Chunk[], from: string): Set<string> {
  const out = new Set<string>();
  const go = (f: string): void => {
    if (out.has(f)) return;
    out.add(f);
    for (const i of chunks.find((c) => c.fileName === f)?.imports ?? []) go(i);
  };
  go(from);
  return out;
}

describe('the Library code preloaded from index.html', () => {
  it('names the Library chunk and what it imports, less what the entry already loads', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const { chunks, lib } = bundle(seed);
      const files = firstViewFiles(Object.fromEntries(chunks.map((c) => [c.fileName, c])));
      const entry = reach(chunks, chunks[0].fileName);
      const want = [...reach(chunks, chunks[lib].fileName)].filter((f) => !entry.has(f));
      expect(new Set(files)).toEqual(new Set(want));
      if (!entry.has(chunks[lib].fileName)) expect(files).toContain(chunks[lib].fileName);
    }
  });

  it('is in both builds of the renderer', () => {
    for (const f of ['electron.vite.config.ts', 'scripts/serve.mjs'])
      expect(readFileSync(join(root, f), 'utf8')).toMatch(/plugins: \[react\(\), firstViewPreload\(\)\]/);
  });
});
