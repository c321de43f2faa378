/**
 * Issue 30 "Opening": what the app's first script and the Library's first rows wait for. The
 * modules reachable by static imports from the entry (main.tsx) and from the Library view hold no
 * chart or graph library: recharts (with d3 and redux, half the entry script before) loads with a
 * chart, graphology with the network panel. Nor zod: the contract's schemas are the core's; the
 * renderer takes the contract's plain values from src/shared/contract-constants.ts (zod was 84 KB
 * of the entry script's 363 KB, and its schemas were built before the first frame).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const here = join(dirname(new URL(import.meta.url).pathname), '..', 'renderer', 'src');

/** The packages the static imports from `entry` reach (type-only imports and `import()` left out). */
function staticPackages(entry: string): Map<string, string> {
  const packages = new Map<string, string>(); // package → a file importing it
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const src = readFileSync(file, 'utf8');
    for (const m of src.matchAll(/^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm)) {
      if (m[1]) continue;
      const spec = m[2];
      if (!spec.startsWith('.')) {
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
        if (!packages.has(name)) packages.set(name, file);
        continue;
      }
      const base = resolve(dirname(file), spec);
      const found = ['', '.ts', '.tsx', '/index.ts', '/index.tsx'].map((x) => base + x).find((p) => existsSync(p) && !p.endsWith('.css'));
      if (found && /\.tsx?$/.test(found)) visit(found);
    }
  };
  visit(entry);
  return packages;
}

const HEAVY = /^(recharts|d3-|graphology|sigma|@react-sigma|zod$)/;

describe('the first script and the first rows', () => {
  for (const [what, entry] of [
    ['the app entry', join(here, 'main.tsx')],
    ['the Library view', join(here, 'features', 'LibraryView.tsx')],
  ] as const) {
    it(`${what} loads no chart or graph library and no zod`, () => {
      const pk = staticPackages(entry);
      expect(pk.has('react')).toBe(true); // the walk reads the imports
      const heavy = [...pk].filter(([name]) => HEAVY.test(name)).map(([name, by]) => `${name} (from ${by.replace(here, '')})`);
      expect(heavy).toEqual([]);
    });
  }
});
