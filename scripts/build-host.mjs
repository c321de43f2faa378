#!/usr/bin/env node
// Builds the web host (`npm run serve` runs it): src/host/main.ts and the core's worker threads
// bundled into out/host as plain JavaScript, as scripts/build-cli.mjs builds the command line. Run
// from the sources through tsx the host compiled the whole core at every start: 5-7 s before it
// served on the shared 2-core machine (issue 30 asks for < 1 s); built, 1.3-2.4 s there.
// `npm run serve` builds it when out/host is missing or older than the sources (hostIsStale).
import { build } from 'esbuild';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { CLI_EXTERNAL } from './build-cli.mjs';

const root = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const outDir = join(root, 'out', 'host');

function newestMtime(dir) {
  let newest = 0;
  if (!existsSync(dir)) return 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else if (!/\.test\.tsx?$/.test(e.name)) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/** Whether out/host is missing or older than what it is built from (src/host, core, shared, sandbox). */
export function hostIsStale() {
  const main = join(outDir, 'main.js');
  if (!existsSync(main)) return true;
  const built = statSync(main).mtimeMs;
  return (
    ['host', 'core', 'shared', 'sandbox'].some((d) => newestMtime(join(root, 'src', d)) > built) ||
    statSync(join(root, 'package.json')).mtimeMs > built
  );
}

export async function buildHost({ quiet = false } = {}) {
  const t0 = performance.now();
  const tmp = `${outDir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  try {
    await build({
      absWorkingDir: root,
      entryPoints: {
        main: 'src/host/main.ts',
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
      define: { __LOUPE_VERSION__: JSON.stringify(pkg.version) },
      banner: { js: "import { createRequire as __loupeRequire } from 'node:module';\nconst require = __loupeRequire(import.meta.url);" },
    });
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  rmSync(outDir, { recursive: true, force: true });
  renameSync(tmp, outDir);
  if (!quiet) console.error(`Built the web host into out/host in ${((performance.now() - t0) / 1000).toFixed(1)} s.`);
  return outDir;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  try {
    await buildHost({ quiet: process.argv.includes('--quiet') });
  } catch (e) {
    console.error(`Could not build the web host: ${e instanceof Error ? e.message : e}`);
    process.exit(1);
  }
}
