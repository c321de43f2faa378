/**
 * Issue 14 #9: the Sandbox panel drives the in-process sandbox from the app — its URL, its clock
 * (advance), its balance, faults on and off, reset — and says so when the app is on a real service.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxState } from '../shared/contract';
import { createApp } from './app';
import { dispatch } from './bridge';
import { MemorySecretStore } from './secrets';
import { callApp, startTestApp, type TestApp } from './test-app';

let t: TestApp;
const call = callApp;
beforeAll(async () => {
  t = await startTestApp({ seed: 7, balance: 10_000, timeScale: 60 }, 'loupe-sbpanel-');
});
afterAll(async () => {
  await t?.close();
});

describe('the Sandbox panel', () => {
  it('shows the URL and the service clock; advances it; sets the balance; faults on and off; reset', async () => {
    const lo = t.sb.admin.now();
    const s0 = await call<SandboxState>(t.app, 'sandbox.state');
    const hi = t.sb.admin.now();
    expect(s0.url).toBe(t.sb.url);
    expect(s0.timeScale).toBe(60);
    // read during the call (a loaded machine may take seconds: 60× that on this clock)
    expect(s0.now).toBeGreaterThanOrEqual(lo);
    expect(s0.now).toBeLessThanOrEqual(hi);
    // and the app's clock is now the sandbox's (issue 27 #3)
    const info = await call<{ serviceClock: { now: number } }>(t.app, 'app.info');
    expect(info.serviceClock.now).toBeGreaterThanOrEqual(lo - 2_000);
    expect(info.serviceClock.now).toBeLessThanOrEqual(t.sb.admin.now() + 2_000);
    expect(s0.balance).toBe(10_000);

    const s1 = await call<SandboxState>(t.app, 'sandbox.advance', { seconds: 2 * 86_400 });
    expect(s1.now - s0.now).toBeGreaterThanOrEqual(2 * 86_400_000);

    const s2 = await call<SandboxState>(t.app, 'sandbox.setBalance', { balance: 120 });
    expect(s2.balance).toBe(120);
    expect(t.sb.admin.balance()).toBe(120);

    const s3 = await call<SandboxState>(t.app, 'sandbox.faults', { rate: 0.3 });
    expect(s3.faultRate).toBe(0.3);

    const s4 = await call<SandboxState>(t.app, 'sandbox.reset');
    expect(s4.faultRate).toBe(0);
    expect(s4.balance).toBe(10_000);
    expect(t.sb.admin.faults()).toEqual([]);
  });

  it('on a real service: no state, and the actions say why', async () => {
    const d = mkdtempSync(join(tmpdir(), 'loupe-sbpanel-real-'));
    const real = createApp({ dataDir: d, secrets: new MemorySecretStore(), door: 'web', baseUrl: t.sb.url, envKey: t.sb.key });
    try {
      expect(await call(real, 'sandbox.state')).toBeNull();
      const r = await dispatch(real, 'sandbox.advance', { seconds: 60 });
      expect(r.ok).toBe(false);
      expect(!r.ok && r.error.kind).toBe('not_available');
    } finally {
      await real.close();
      rmSync(d, { recursive: true, force: true });
    }
  });
});
