/**
 * Test harness for the watch service: a sandbox, the request core and an in-memory archive on
 * the sandbox's clock (core time = sandbox time, so cache windows, the pacer's window and
 * `admin.advance` agree), and a watch service over them; all closed after each test.
 */
import { afterEach } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../sandbox';
import { createApiCore, scaledClock } from '../api';
import { openArchive, type Archive } from '../archive';
import type { ApiCore } from '../api/types';
import type { Clock } from '../ports';
import { createWatchService, type WatchService, type WatchServiceOptions } from './index';

export interface WatchEnv {
  sb: SandboxHandle;
  api: ApiCore;
  archive: Archive;
  watch: WatchService;
  clock: Clock;
}

export interface WatchEnvOptions {
  /** the sandbox's (default 11, 1 000 000 credits, time scale 1) */
  seed?: number;
  timeScale?: number;
  balance?: number;
  /** the request core's */
  maxRetries?: number;
  /** the watch service's, besides api, archive and clock */
  service?: Omit<WatchServiceOptions, 'api' | 'archive' | 'clock'>;
}

/** Call at a test file's top level: registers the closing afterEach, returns the env maker. */
export function watchEnvs(): (o?: WatchEnvOptions) => Promise<WatchEnv> {
  const open: WatchEnv[] = [];
  afterEach(async () => {
    for (const e of open.splice(0)) {
      await e.watch.close();
      await e.api.close();
      e.archive.close();
      await e.sb.close();
    }
  });
  return async (o = {}) => {
    const timeScale = o.timeScale ?? 1;
    const sb = await startSandbox({ port: 0, seed: o.seed ?? 11, balance: o.balance ?? 1_000_000, timeScale, freeCalls: 0 });
    const clock = scaledClock(() => sb.admin.now(), timeScale);
    const archive = openArchive(':memory:', { clock: () => clock.now() });
    const api = createApiCore({ baseUrl: sb.url, getKey: () => sb.key, store: archive, clock, maxRetries: o.maxRetries });
    const watch = createWatchService({ ...o.service, api, archive, clock });
    const env = { sb, api, archive, watch, clock };
    open.push(env);
    return env;
  };
}
