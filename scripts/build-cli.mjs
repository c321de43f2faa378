#!/usr/bin/env node
// Builds the command line (`bin/loupe.js` runs it): src/cli/bin.ts and the core's worker threads
// bundled into out/cli as plain JavaScript, so no TypeScript is compiled when `loupe` runs.
// `npm install` / `npm ci` run it (the `prepare` script), `npm run build` and `npm run build:cli`
// too, and the unit tests before they start (vitest.config.ts globalSetup). About a second.
//
// - One ES module per entry, code split (`chunks/`): what a command imports with `import()` — the
//   core, the sandbox, the writers — is read only when that command runs, so `loupe --help` reads
//   the command definitions and commander, little else (docs/cli.md "Start-up").
// - The workers (`csv-worker.js`, `parquet-worker.js`, `xlsx-worker.js`, `prepare-worker.js`,
//   `index-worker.js`) sit beside `bin.js`, where src/core/worker-entry.ts looks for them.
// - Native modules (better-sqlite3, @napi-rs/keyring) stay in node_modules; every other package is
//   bundled (the XLSX writer is Loupe's own since issue 26, no longer exceljs's CommonJS tree).
// - Written to a temporary folder, then put in place, so a command started meanwhile never reads a
//   half-written build.
import { build } from 'esbuild';
import { copyFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { performance } from 'node:perf_hooks';

const root = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const outDir = join(root, 'out', 'cli');
const tmp = `${outDir}.tmp-${process.pid}`;

/**
 * zod's `z` namespace re-exports every one of its ~60 message locales (`z.locales`), and a
 * namespace object the bundle builds keeps them all: 260 KiB of minified JavaScript compiled by
 * every command that loads the contract. Loupe speaks English only (nothing calls
 * `z.config(z.locales.xx())`): the locales index resolves to English alone.
 */
const englishOnlyZod = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (a) =>
      /[\\/]zod[\\/]/.test(a.importer) ? { path: join(dirname(a.importer), a.path), namespace: 'zod-en' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-en' }, (a) => ({
      contents: `export { default as en } from ${JSON.stringify(join(dirname(a.path), 'en.js'))};`,
      resolveDir: dirname(a.path),
    }));
  },
};

/**
 * stopwords-iso's lists (every language, 200 KiB of JSON) stay out of the bundle: a copy,
 * `stopwords-iso.json`, is written beside the build's entries, and the module the bundle holds in
 * place of the package's is an object whose languages are getters that read and parse that file on
 * first use (beside the module, or one folder up for a chunk in `chunks/`). Every command whose
 * code reaches the text module (an export, a library query) compiled and parsed the lists when it
 * started (~25 ms of CPU); only a count of words reads them.
 */
const STOPWORDS_FILE = 'stopwords-iso.json';
const stopwordsOnUse = {
  name: 'stopwords-on-use',
  setup(b) {
    let source = null;
    b.onLoad({ filter: /[\\/]stopwords-iso[\\/]stopwords-iso\.json$/ }, (a) => {
      source = a.path;
      const langs = Object.keys(JSON.parse(readFileSync(a.path, 'utf8')));
      return {
        contents: `import { existsSync, readFileSync } from 'node:fs';
let lists = null;
function read() {
  if (lists) return lists;
  const at = [new URL(${JSON.stringify(`./${STOPWORDS_FILE}`)}, import.meta.url), new URL(${JSON.stringify(`../${STOPWORDS_FILE}`)}, import.meta.url)].find((u) => existsSync(u));
  if (!at) throw new Error(${JSON.stringify(`${STOPWORDS_FILE} is missing beside the built code: rebuild it (npm run build:cli)`)});
  return (lists = JSON.parse(readFileSync(at, 'utf8')));
}
const stop = {};
for (const lang of ${JSON.stringify(langs)}) Object.defineProperty(stop, lang, { enumerable: true, get: () => read()[lang] });
export default stop;`,
        loader: 'js',
      };
    });
    b.onEnd((r) => {
      const dir = b.initialOptions.outdir ?? (b.initialOptions.outfile && dirname(b.initialOptions.outfile));
      if (source && dir && r.errors.length === 0)
        copyFileSync(source, resolve(b.initialOptions.absWorkingDir ?? process.cwd(), dir, STOPWORDS_FILE));
    });
  },
};

export const CLI_EXTERNAL = ['better-sqlite3', '@napi-rs/keyring', 'electron'];

/** the build's plugins (also the simulation's bundled second process: src/core/simulation/test-sim-bundle.ts) */
export const CLI_PLUGINS = [englishOnlyZod, stopwordsOnUse];

/** `src/…` as it is, a package's file as `node_modules/<package>/<path>` (wherever node_modules is) */
const sourceName = (f) => f.replace(/^.*?node_modules\//, 'node_modules/');

export const WORKERS = {
  'csv-worker': 'src/core/export/csv-worker.ts',
  'parquet-worker': 'src/core/export/parquet-worker.ts',
  'xlsx-worker': 'src/core/export/xlsx-worker.ts',
  'prepare-worker': 'src/core/archive/prepare-worker.ts',
  'index-worker': 'src/core/analysis/index-worker.ts',
};

export async function buildCli({ quiet = false } = {}) {
  const t0 = performance.now();
  rmSync(tmp, { recursive: true, force: true });
  const common = {
    absWorkingDir: root,
    outdir: tmp,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: `node${pkg.engines.node.replace(/^>=\s*/, '').split('.')[0]}`,
    external: CLI_EXTERNAL,
    minify: true,
    keepNames: true,
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
    plugins: CLI_PLUGINS,
    define: { __LOUPE_VERSION__: JSON.stringify(pkg.version) },
    // bundled CommonJS packages call require() for Node's own modules
    banner: { js: "import { createRequire as __loupeRequire } from 'node:module';\nconst require = __loupeRequire(import.meta.url);" },
  };
  // the command line, split where a command loads a part on use; the worker threads each in one
  // file of their own, so the modules they share with a command do not cut its chunks smaller
  // (every chunk is one more file to read at start-up)
  const [cli, ...workers] = await Promise.all([
    build({ ...common, entryPoints: { bin: 'src/cli/bin.ts' }, chunkNames: 'chunks/[name]-[hash]', splitting: true }),
    ...Object.entries(WORKERS).map(([name, file]) => build({ ...common, entryPoints: { [name]: file } })),
  ]);
  const metafile = { inputs: {}, outputs: {} };
  for (const r of [cli, ...workers]) {
    Object.assign(metafile.inputs, r.metafile.inputs);
    Object.assign(metafile.outputs, r.metafile.outputs);
  }
  // which sources each file of the build holds (src/cli/built.test.ts reads what a command loads)
  const modules = Object.fromEntries(
    Object.entries(metafile.outputs).map(([o, v]) => [
      relative(tmp, join(root, o)).split(sep).join('/'),
      Object.keys(v.inputs).map(sourceName),
    ]),
  );
  writeFileSync(join(tmp, 'modules.json'), JSON.stringify(modules));
  rmSync(outDir, { recursive: true, force: true });
  renameSync(tmp, outDir);
  const files = Object.keys(metafile.outputs).length;
  const bytes = Object.values(metafile.outputs).reduce((s, o) => s + o.bytes, 0);
  if (!quiet)
    console.log(
      `Built the command line into out/cli (${files} files, ${(bytes / 1024).toFixed(0)} KiB) in ${((performance.now() - t0) / 1000).toFixed(1)} s.`,
    );
  return { outDir, files, bytes, metafile };
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  try {
    await buildCli({ quiet: process.argv.includes('--quiet') });
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    console.error(`Could not build the command line: ${e instanceof Error ? e.message : e}`);
    process.exit(1);
  }
  if (!existsSync(join(outDir, 'bin.js'))) process.exit(1);
}
