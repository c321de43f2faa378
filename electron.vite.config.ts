import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

// Main and preload are bundled for Node/Electron; better-sqlite3 and the keyring
// stay external (native modules). The renderer is a plain web build: it is the
// same bundle the web host (src/host) serves to a browser.
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: {
        // csv-worker: the export's worker thread, beside index.js (src/core/export/csv-pool.ts)
        input: { index: resolve('src/main/index.ts'), 'csv-worker': resolve('src/core/export/csv-worker.ts') },
        output: { entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js' },
        external: ['better-sqlite3', '@napi-rs/keyring', 'electron'],
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
    plugins: [react()],
    build: {
      outDir: resolve('out/renderer'),
      rollupOptions: { input: { index: resolve('src/renderer/index.html') } },
    },
  },
});
