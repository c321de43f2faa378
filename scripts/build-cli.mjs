#!/usr/bin/env node
// Builds the command line (`bin/loupe.js` runs it): src/cli/bin.ts and the core's worker threads
// bundled into out/cli as plain JavaScript, so no TypeScript is compiled when `loupe` runs.
// `npm install` / `npm ci` run it (the `prepare` script), `npm run build` and `npm run build:cli`
// too, and the unit tests before they start (vitest.config.ts globalSetup). About a second.
//
// - One ES module per entry, code split (`chunks/`): what a command imports with `import()` — the
//   core, the sandbox, the writers — is read only when that command runs, so `loupe --help` reads
//   the command definitions and commander, little else (docs/cli.md "Start-up").
// - The workers (`csv-worker.js`, `parquet-worker.js`, `prepare-worker.js`, `index-worker.js`) sit
//   beside `bin.js`, where src/core/worker-entry.ts looks for them.
// - Native modules (better-sqlite3, @napi-rs/keyring) and exceljs (a large CommonJS tree, loaded
//   only by an XLSX export) stay in node_modules; every other package is bundled.
// - Written to a temporary folder, then put in place, so a command started meanwhile never reads a
//   half-written build.
import { build } from 'esbuild';
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const root = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const outDir = join(root, 'out', 'cli');
const tmp = `${outDir}.tmp-${process.pid}`;

export const CLI_EXTERNAL = ['better-sqlite3', '@napi-rs/keyring', 'exceljs', 'electron'];

export async function buildCli({ quiet = false } = {}) {
  const t0 = performance.now();
  rmSync(tmp, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: {
      bin: 'src/cli/bin.ts',
      'csv-worker': 'src/core/export/csv-worker.ts',
      'parquet-worker': 'src/core/export/parquet-worker.ts',
      'prepare-worker': 'src/core/archive/prepare-worker.ts',
      'index-worker': 'src/core/analysis/index-worker.ts',
    },
    outdir: tmp,
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: `node${pkg.engines.node.replace(/^>=\s*/, '').split('.')[0]}`,
    external: CLI_EXTERNAL,
    minify: true,
    keepNames: true,
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
    define: { __LOUPE_VERSION__: JSON.stringify(pkg.version) },
    // bundled CommonJS packages call require() for Node's own modules
    banner: { js: "import { createRequire as __loupeRequire } from 'node:module';\nconst require = __loupeRequire(import.meta.url);" },
  });
  rmSync(outDir, { recursive: true, force: true });
  renameSync(tmp, outDir);
  const files = Object.keys(result.metafile.outputs).length;
  const bytes = Object.values(result.metafile.outputs).reduce((s, o) => s + o.bytes, 0);
  if (!quiet) console.log(`Built the command line into out/cli (${files} files, ${(bytes / 1024).toFixed(0)} KiB) in ${((performance.now() - t0) / 1000).toFixed(1)} s.`);
  return { outDir, files, bytes, metafile: result.metafile };
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
