/**
 * Where a worker thread's code is, for the core's workers (the exports' csv-worker and
 * parquet-worker, src/core/export/csv-pool.ts; the archive's migrate-worker,
 * src/core/archive/prepare.ts). The built desktop app has `<name>.js` beside its main bundle
 * (electron.vite.config.ts lists each worker as an input; electron-builder.json unpacks it from
 * the asar archive); run from sources (tsx: the CLI, the web host, tests) it is `<name>.ts` beside
 * the module that starts it, loaded through tsx.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parentPort, type MessagePort } from 'node:worker_threads';

export interface WorkerEntry {
  /** a file, or (from sources) code that registers tsx and imports the .ts worker */
  code: string;
  eval: boolean;
}

/**
 * The entry of worker `name` for a module in folder `here` (its `import.meta.url`'s folder: the
 * bundle's out/main or out/main/chunks when built, the source folder otherwise); null when
 * neither a built nor a source file is there.
 */
export function findWorkerEntry(here: string, name: string): WorkerEntry | null {
  try {
    for (const f of [join(here, `${name}.js`), join(here, '..', `${name}.js`)]) {
      // a packaged desktop app keeps the worker outside its asar archive (electron-builder.json
      // asarUnpack): a worker thread is started from the unpacked copy
      const unpacked = f.replace(/([\\/])app\.asar([\\/])/, '$1app.asar.unpacked$2');
      if (unpacked !== f && existsSync(unpacked)) return { code: unpacked, eval: false };
      if (existsSync(f)) return { code: f, eval: false };
    }
    const ts = join(here, `${name}.ts`);
    if (existsSync(ts)) {
      // `--import tsx` in a worker's execArgv does not reach its entry module on Node 20; the
      // tsx API registers the loader in the worker itself, then the entry is imported
      const api = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href.replace(/\.cjs$/, '.mjs');
      const code = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(pathToFileURL(ts).href)}); })`;
      return { code, eval: true };
    }
  } catch {
    return null;
  }
  return null;
}

/** A worker thread's port to the thread that started it, or an error saying the module is a worker's entry loaded as something else. */
export function workerPort(what: string): MessagePort {
  if (!parentPort) throw new Error(`${what} runs only in a worker thread; it was loaded on the main thread.`);
  return parentPort;
}
