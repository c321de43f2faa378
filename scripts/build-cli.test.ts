/**
 * The command line's build keeps stopwords-iso's lists out of its code (scripts/build-cli.mjs
 * `stopwordsOnUse`): a module that reaches the lists, bundled the way the build bundles it — in an
 * entry at the build's root, or in a shared chunk in `chunks/` — reads them from the copy beside the
 * build on first use, the same lists as the package's, and its code holds none of them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from 'esbuild';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import stopwordsIso from 'stopwords-iso';
import { CLI_PLUGINS } from './build-cli.mjs';

const lists = stopwordsIso as unknown as Record<string, string[]>;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'loupe-stopwords-'));
  // esbuild resolves the package from the project; the sources sit in the temporary folder
  writeFileSync(join(dir, 'lists.mjs'), `import stop from 'stopwords-iso';\nexport const lists = () => stop;\n`);
  for (const name of ['a', 'b']) writeFileSync(join(dir, `${name}.mjs`), `export { lists } from './lists.mjs';\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function bundle(out: string, entries: Record<string, string>, splitting: boolean): Promise<string[]> {
  await build({
    absWorkingDir: process.cwd(),
    entryPoints: entries,
    outdir: join(dir, out),
    chunkNames: 'chunks/[name]-[hash]',
    splitting,
    bundle: true,
    format: 'esm',
    platform: 'node',
    minify: true,
    logLevel: 'silent',
    nodePaths: [join(process.cwd(), 'node_modules')],
    plugins: CLI_PLUGINS,
  });
  const files: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true }))
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith('.js')) files.push(join(d, e.name));
  };
  walk(join(dir, out));
  return files;
}

describe('the built stop-word lists', () => {
  it('in an entry at the root and in a shared chunk: the package lists, read on use, none in the code', async () => {
    const one = await bundle('one', { a: join(dir, 'a.mjs') }, false);
    const split = await bundle('split', { a: join(dir, 'a.mjs'), b: join(dir, 'b.mjs') }, true);
    expect(split.some((f) => /[\\/]chunks[\\/]/.test(f))).toBe(true);
    for (const f of [...one, ...split]) {
      const code = readFileSync(f, 'utf8');
      // a word of a list (and the JSON of a list) is not in the code: only the languages' names
      expect(code.length, f).toBeLessThan(4000);
      expect(code).not.toContain(JSON.stringify(lists.en.slice(0, 3)).slice(1, -1));
    }
    for (const entry of [join(dir, 'one', 'a.js'), join(dir, 'split', 'a.js'), join(dir, 'split', 'b.js')]) {
      const m = (await import(pathToFileURL(entry).href)) as { lists: () => Record<string, string[]> };
      const got = m.lists();
      expect(Object.keys(got)).toEqual(Object.keys(lists));
      for (const lang of Object.keys(lists)) expect(got[lang], lang).toEqual(lists[lang]);
      expect(got.xx).toBeUndefined();
    }
  });
});
