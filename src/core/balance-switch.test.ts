/**
 * Issue 14 #6: the balance shown is the balance of the service in use — after a base-URL switch
 * the previous service's number is dropped at once and the new one is read (free), and the new
 * core never holds calls against the old number.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../sandbox';
import type { BalanceInfo, LoupeEvent } from '../shared/contract';
import { createApp, type LoupeApp } from './app';
import { dispatch } from './bridge';
import { MemorySecretStore } from './secrets';

let a: SandboxHandle;
let b: SandboxHandle;
let dir: string;
let app: LoupeApp;
const events: LoupeEvent[] = [];
const call = async <T>(m: string, input: unknown = {}): Promise<T> => {
  const r = await dispatch(app, m, input);
  if (!r.ok) throw new Error(`${m}: ${r.error.message}`);
  return r.result as T;
};

beforeAll(async () => {
  a = await startSandbox({ port: 0, seed: 7, balance: 10_000 });
  b = await startSandbox({ port: 0, seed: 8, balance: 777 });
  dir = mkdtempSync(join(tmpdir(), 'loupe-bal-'));
  app = createApp({ dataDir: dir, secrets: new MemorySecretStore(), door: 'web', sandbox: async () => ({ url: a.url, key: a.key }) });
  app.events.on((e) => events.push(e));
});
afterAll(async () => {
  await app?.close();
  await a?.close();
  await b?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('balance after a base-URL switch', () => {
  it('drops the old service’s balance and reads the new one', async () => {
    const first = await call<BalanceInfo>('credits.refresh');
    expect(first.creditsRemaining).toBe(10_000);

    await call('keys.add', { name: 'other', key: b.key });
    await call('settings.update', { baseUrl: b.url });
    const n = events.length;
    await call('catalogue.get', {}); // any use of the service connects to the new one
    // the old number is withdrawn at the switch, then the new service's arrives
    const after = events.slice(n).filter((e): e is Extract<LoupeEvent, { type: 'balance' }> => e.type === 'balance');
    expect(after[0]?.balance).toEqual({ creditsRemaining: null, freeCallsRemaining: null, at: null });
    for (let i = 0; i < 50 && (await call<BalanceInfo>('credits.get')).creditsRemaining === null; i++)
      await new Promise((r) => setTimeout(r, 20));
    const now = await call<BalanceInfo>('credits.get');
    expect(now.creditsRemaining).toBe(777);
    expect(events.slice(n).some((e) => e.type === 'balance' && e.balance.creditsRemaining === 10_000)).toBe(false);
  });
});
