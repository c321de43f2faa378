/**
 * Test harness for collection plans: a sandbox, the request core and an in-memory archive on the
 * sandbox's clock (cache windows and `admin.advance` agree), and a collect service over them; all
 * closed after each test.
 */
import { afterEach } from 'vitest';
import { startSandbox, type SandboxHandle, type SandboxOptions } from '../../sandbox';
import { collectDesignSchema, type CollectDesign } from '../../shared/contract-collect';
import { createApiCore, scaledClock } from '../api';
import type { ApiCore } from '../api/types';
import { openArchive, type Archive } from '../archive';
import type { Clock } from '../ports';
import { createCollectService, type CollectService } from './index';

export interface CollectEnv {
  sb: SandboxHandle;
  api: ApiCore;
  archive: Archive;
  clock: Clock;
  collect: CollectService;
  /** a design with the contract's defaults filled in */
  design(d: CollectDesign): ReturnType<typeof collectDesignSchema.parse>;
  /** credits the sandbox charged (its own billing records) */
  charged(): number;
  /** credits the archive's ledger records */
  ledger(): number;
}

export function collectEnvs(): (o?: Partial<SandboxOptions> & { askAbove?: number | null; maxRetries?: number }) => Promise<CollectEnv> {
  const open: CollectEnv[] = [];
  afterEach(async () => {
    for (const e of open.splice(0)) {
      await e.collect.close();
      await e.api.close();
      e.archive.close();
      await e.sb.close();
    }
  });
  return async (o = {}) => {
    const timeScale = o.timeScale ?? 1;
    const sb = await startSandbox({ port: 0, seed: 21, balance: 1_000_000, freeCalls: 0, ...o, timeScale });
    const clock = scaledClock(() => sb.admin.now(), timeScale);
    const archive = openArchive(':memory:', { clock: () => clock.now() });
    const api = createApiCore({ baseUrl: sb.url, getKey: () => sb.key, store: archive, clock, maxRetries: o.maxRetries });
    const collect = createCollectService({
      api: async () => api,
      archive,
      clock,
      askAboveCredits: () => (o.askAbove === undefined ? null : o.askAbove),
    });
    const env: CollectEnv = {
      sb,
      api,
      archive,
      clock,
      collect,
      design: (d) => collectDesignSchema.parse(d),
      charged: () => sb.admin.charges().reduce((s, c) => s + c.credits_used, 0),
      ledger: () => archive.listLedger({ limit: 100_000 }).reduce((s, l) => s + l.creditsUsed, 0),
    };
    open.push(env);
    return env;
  };
}
