/**
 * `npm run bench -- --only renderer` (issue 26): what a browser or the app's window loads before
 * the first view is drawn — the built renderer's entry, its static imports, its stylesheet and the
 * first view's own chunk with its static imports (code-split by view: src/renderer/src/views.tsx) —
 * in bytes and gzip bytes (level 6, as a server sends it). Builds the renderer first. Target: the
 * initial load under 250 KB gzip; the whole renderer is reported beside it.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Bench, Result } from './types';

const root = join(import.meta.dirname, '..');
const assets = join(root, 'out', 'renderer', 'assets');

/** the files a chunk imports statically (`import … from "./x.js"`, `import "./x.js"`) */
function staticImports(file: string): string[] {
  const code = readFileSync(join(assets, file), 'utf8');
  return [...code.matchAll(/(?:^|[;\n}])\s*import\s*(?:[^'"()]*?from\s*)?["']\.\/([^"']+\.js)["']/g)].map((m) => m[1]);
}

function closure(start: string[]): Set<string> {
  const seen = new Set<string>();
  const todo = [...start];
  while (todo.length) {
    const f = todo.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    todo.push(...staticImports(f));
  }
  return seen;
}

const kb = (n: number): number => Math.round((n / 1024) * 10) / 10;

export interface RendererLoad {
  initial: string[];
  bytes: number;
  gzip: number;
  totalBytes: number;
  totalGzip: number;
}

/** The initial load of the built renderer (out/renderer), the first view being `firstView`. */
export function rendererLoad(firstView = 'SearchView'): RendererLoad {
  const html = readFileSync(join(root, 'out', 'renderer', 'index.html'), 'utf8');
  const refs = [...html.matchAll(/(?:src|href)="\.\/assets\/([^"]+)"/g)].map((m) => m[1]);
  const view = readdirSync(assets).find((f) => f.startsWith(`${firstView}-`) && f.endsWith('.js'));
  if (!view) throw new Error(`no chunk for ${firstView} in out/renderer/assets (is the renderer code-split by view?)`);
  const js = closure([...refs.filter((f) => f.endsWith('.js')), view]);
  const initial = [...js, ...refs.filter((f) => f.endsWith('.css'))];
  const size = (files: string[]): { bytes: number; gzip: number } =>
    files.reduce(
      (s, f) => {
        const b = readFileSync(join(assets, f));
        return { bytes: s.bytes + b.length, gzip: s.gzip + gzipSync(b, { level: 6 }).length };
      },
      { bytes: 0, gzip: 0 },
    );
  const all = size(readdirSync(assets).filter((f) => f.endsWith('.js') || f.endsWith('.css')));
  const first = size(initial);
  return { initial, bytes: first.bytes, gzip: first.gzip, totalBytes: all.bytes, totalGzip: all.gzip };
}

export const name = 'renderer';

export async function run(): Promise<Result[]> {
  const b = spawnSync(join(root, 'node_modules', '.bin', 'electron-vite'), ['build'], { cwd: root, stdio: 'ignore' });
  if (b.status !== 0) throw new Error('electron-vite build failed');
  const r = rendererLoad();
  return [
    {
      metric: 'initial load (entry, its imports, CSS, the first view), gzip',
      value: kb(r.gzip),
      unit: 'KB',
      target: '< 250 KB',
      ok: r.gzip < 250 * 1024,
      note: `${r.initial.length} files, ${kb(r.bytes)} KB minified`,
    },
    {
      metric: 'whole renderer (every chunk), gzip',
      value: kb(r.totalGzip),
      unit: 'KB',
      note: `${kb(r.totalBytes)} KB minified; before code splitting: one chunk of 2.73 MB, 1.18 MB minified`,
    },
  ];
}

export default { name, run } satisfies Bench;
