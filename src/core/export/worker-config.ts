/**
 * The export workers' side of their protocol (worker-spawn.ts): a worker loads its code, then
 * waits for its first message, `{ config }` (its columns, the archive file to read by rid), which
 * `setup` turns into the worker's handler of every later message. A worker started early (the
 * command line's export: spawnEarly) is loaded by the time the export sends its config.
 */
import type { MessagePort } from 'node:worker_threads';
import type { RidSource } from './rid-rows';
import { mark } from './timeline';

/** What an export tells its workers first (csv-worker.ts, parquet-worker.ts, xlsx-worker.ts). */
export interface WorkerConfig {
  columns?: string[];
  /** the archive to read rows from by rid */
  reader?: RidSource;
}

/** Serve `port`: the first message is the config, given to `setup`; its handler takes every later one. */
export function afterConfig<M>(port: MessagePort, setup: (config: WorkerConfig) => (m: M) => void): void {
  mark('worker loaded');
  let handle: ((m: M) => void) | null = null;
  port.on('message', (m: M | { config: WorkerConfig }) => {
    if (handle) return void handle(m as M);
    handle = setup((m as { config: WorkerConfig }).config);
    mark('worker ready');
  });
}
