/**
 * Dependency groups (issue 26): every package that code which ships imports at run time — the core,
 * the command line, the desktop main process, the web host, the sandbox, shared — is in
 * `dependencies`; a package in `dependencies` is imported by such code (test- and bench-only
 * packages are dev dependencies). The renderer is bundled by vite, Electron is the runtime itself.
 * `hyparquet` (read by the Parquet encoder) was a dev dependency; `graphology-graphml` (tests only)
 * and `tsx` (the sources, for development) were runtime ones.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : /\.(ts|mts|js|mjs)$/.test(f) && !/\.test\.|test-|testing|\.d\.ts$/.test(f) ? [p] : [];
  });
}

/** bare package names imported for their values (not `import type`) */
function imports(file: string): string[] {
  const code = readFileSync(file, 'utf8');
  const names = [
    ...[
      ...code.matchAll(/^\s*(?:import(?!\s+type\b)[^'"]*?from\s*|import\s*|export\s+(?!type\b)[^'"]*?from\s*)['"]([^'"./][^'"]*)['"]/gm),
    ].map((m) => m[1]),
    // import('pkg') where it is called (not `typeof import('pkg')` in a type)
    ...[...code.matchAll(/(?<!typeof\s)import\(\s*['"]([^'"./][^'"]*)['"]\s*\)/g)].map((m) => m[1]),
  ];
  return names.filter((n) => !n.startsWith('node:')).map((n) => (n.startsWith('@') ? n.split('/').slice(0, 2).join('/') : n.split('/')[0]));
}

describe('dependency groups', () => {
  const shipping = ['core', 'cli', 'main', 'host', 'sandbox', 'shared', 'preload'].flatMap((d) => files(join(root, 'src', d)));
  const used = new Map<string, string>();
  for (const f of shipping) for (const n of imports(f)) if (!used.has(n)) used.set(n, f.slice(root.length + 1));

  it('what shipping code imports is a runtime dependency', () => {
    const missing = [...used].filter(([n]) => n !== 'electron' && !(n in pkg.dependencies)).map(([n, f]) => `${n} (${f})`);
    expect(missing).toEqual([]);
  });

  it('every runtime dependency is imported by shipping code', () => {
    expect(Object.keys(pkg.dependencies).filter((n) => !used.has(n))).toEqual([]);
  });
});
