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
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
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
 * stopwords-iso's lists (every language, 300 KiB) as one JSON string parsed when its module runs:
 * V8 reads a JSON string several times faster than the same object written as JavaScript.
 */
const stopwordsAsJson = {
  name: 'stopwords-as-json',
  setup(b) {
    b.onLoad({ filter: /[\\/]stopwords-iso[\\/]stopwords-iso\.json$/ }, (a) => ({
      contents: `export default JSON.parse(${JSON.stringify(JSON.stringify(JSON.parse(readFileSync(a.path, 'utf8'))))});`,
      loader: 'js',
    }));
  },
};

export const CLI_EXTERNAL = ['better-sqlite3', '@napi-rs/keyring', 'electron'];

/** the build's plugins (also the simulation's bundled second process: src/core/simulation/test-sim-bundle.ts) */
export const CLI_PLUGINS = [englishOnlyZod, stopwordsAsJson];

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
