import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';
import { firstViewPreload } from './scripts/first-view-preload.mjs';

// Main and preload are bundled for Node/Electron; the keyring (N-API: one binary for Node and
// Electron) and better-sqlite3's JavaScript stay external. `import 'better-sqlite3'` in the main
// bundle (the core's archive included) resolves to src/main/better-sqlite3.ts, which hands the
// package the Electron-ABI binary chosen at load time (src/main/native.ts, docs/desktop.md); Node
// (tests, CLI, web host) keeps importing the package and its own build. The renderer is a plain
// web build: it is the same bundle the web host (src/host) serves to a browser.
export default defineConfig({
  main: {
    resolve: {
      alias: [{ find: /^better-sqlite3$/, replacement: resolve('src/main/better-sqlite3.ts') }],
    },
    build: {
      outDir: 'out/main',
      // better-sqlite3 is not externalised by name (the alias above must see it); its files are.
      // stopwords-iso is bundled: its entry is a JSON file, which Node's (and Electron's) ESM loader
      // refuses without `with { type: 'json' }`, and the bundle's external import would lose that
      // attribute — index.js and prepare-worker.js would not load (ERR_IMPORT_ASSERTION_TYPE_MISSING)
      externalizeDeps: { exclude: ['better-sqlite3', 'stopwords-iso'] },
      rollupOptions: {
        // csv-worker, parquet-worker, xlsx-worker: the exports' worker threads, beside index.js (src/core/export/csv-pool.ts);
        // prepare-worker: the archive's migrations at start (src/core/archive/prepare.ts);
        // index-worker: the analysis index's background build (src/core/analysis/analysis-index.ts)
        input: {
          index: resolve('src/main/index.ts'),
          'csv-worker': resolve('src/core/export/csv-worker.ts'),
          'parquet-worker': resolve('src/core/export/parquet-worker.ts'),
          'xlsx-worker': resolve('src/core/export/xlsx-worker.ts'),
          'prepare-worker': resolve('src/core/archive/prepare-worker.ts'),
          'index-worker': resolve('src/core/analysis/index-worker.ts'),
        },
        output: { entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js' },
        external: [/^better-sqlite3\//, '@napi-rs/keyring', 'electron'],
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: { input: { index: resolve('src/preload/index.ts') }, output: { format: 'cjs' } },
    },
  },
  renderer: {
    root: 'src/renderer',
    // the Library's chunk preloaded from index.html (issue 30: the first rows wait for it)
    plugins: [react(), firstViewPreload()],
    build: {
      outDir: resolve('out/renderer'),
      // minified (electron-vite leaves it off): the renderer is also what the web host serves
      minify: true,
      rollupOptions: { input: { index: resolve('src/renderer/index.html') } },
    },
  },
});
