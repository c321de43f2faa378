import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../sandbox';
import { composeApp, doorSetup } from './compose';
import { MemorySecretStore } from './secrets';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('one composition for every door', () => {
  it('reads the data folder, base URL and key from the flags, else the environment', () => {
    const env = { LOUPE_HOME: '/env-home', LOUPE_BASE_URL: 'http://env', LOUPE_API_KEY: 'k1', LOUPE_SANDBOX_SEED: '5' };
    expect(doorSetup({}, env)).toMatchObject({ dataDir: '/env-home', baseUrl: 'http://env', envKey: 'k1', env: { sandboxSeed: 5 } });
    expect(doorSetup({ dataDir: '/flag', baseUrl: 'http://flag' }, env)).toMatchObject({ dataDir: '/flag', baseUrl: 'http://flag' });
    expect(doorSetup({}, { LOUPE_API_KEY: '' })).toMatchObject({ baseUrl: null, envKey: null });
  });

  it('LOUPE_RATE_LIMIT / LOUPE_MAX_IN_FLIGHT pace the app, and LOUPE_SANDBOX_SEED seeds its sandbox', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loupe-compose-'));
    dirs.push(dir);
    const setup = doorSetup({ dataDir: dir }, { LOUPE_RATE_LIMIT: '12/30s', LOUPE_MAX_IN_FLIGHT: '3', LOUPE_SANDBOX_SEED: '9' });
    const seeds: number[] = [];
    const c = composeApp({
      setup,
      door: 'web',
      secrets: new MemorySecretStore(),
      startSandbox: (o) => {
        seeds.push(o.seed);
        return startSandbox(o);
      },
    });
    try {
      const core = await c.app.api();
      expect(seeds).toEqual([9]);
      expect(c.sandbox()).not.toBeNull();
      expect(core.pacer.stats().limits).toMatchObject({ requests: 12, windowSeconds: 30, maxInFlight: 3 });
    } finally {
      await c.close();
    }
  });
});
