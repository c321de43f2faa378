/**
 * Issue 24 #7: the balance on screen followed only this process's answers. A cron `loupe watch
 * run` on the same data folder spent 460 and the app went on showing 4,940 where the service said
 * 4,480 until a reload. Two apps on one data folder: when the other one writes the ledger, this one
 * re-reads the balance (GET /v1/credits, free) and says so — `ledger-changed`, then `balance` with
 * the service's figure — without being asked; Usage and credits.get answer the same figure.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../sandbox';
import type { BalanceInfo, LoupeEvent, UsageSummary } from '../shared/contract';
import { createApp, type LoupeApp } from './app';
import { callApp } from './test-app';
import { openArchive } from './archive';
import { post } from './archive/test-fixtures';
import { watchLedger } from './ledger-watch';
import { MemorySecretStore } from './secrets';

let sb: SandboxHandle;
let dir: string;
const apps: LoupeApp[] = [];
beforeEach(async () => {
  sb = await startSandbox({ port: 0, seed: 3, balance: 5_000, freeCalls: 0 });
  dir = mkdtempSync(join(tmpdir(), 'loupe-others-'));
});
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(door: 'web' | 'cli', watchOthersMs?: number): { app: LoupeApp; events: LoupeEvent[] } {
  const app = createApp({
    dataDir: dir,
    secrets: new MemorySecretStore(),
    door,
    sandbox: { url: sb.url, key: sb.key },
    ...(watchOthersMs !== undefined ? { watchOthersMs } : {}),
  });
  apps.push(app);
  const events: LoupeEvent[] = [];
  app.events.on((e) => events.push(e));
  return { app, events };
}

/** Waits for a state (polled), never for a time. */
async function until<T>(what: string, f: () => T | undefined | null | false): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const v = f();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`never: ${what}`);
}

const lastBalance = (events: LoupeEvent[]): BalanceInfo | undefined =>
  events.flatMap((e) => (e.type === 'balance' ? [e.balance] : [])).at(-1);

describe('another process spending on the same data folder (issue 24 #7)', () => {
  for (const connected of [true, false]) {
    it(`the app re-reads the balance when another process writes the ledger (${connected ? 'connected' : 'not yet connected'})`, async () => {
      const a = open('web', 20);
      if (connected) expect((await callApp<BalanceInfo>(a.app, 'credits.refresh')).creditsRemaining).toBe(5_000);
      // the other process: the CLI's composition on the same folder (it does not watch)
      const b = open('cli');
      const spends = 2 + Math.floor(Math.random() * 3);
      for (let i = 0; i < spends; i++)
        await callApp(b.app, 'api.call', {
          target: { platform: 'photo_net', endpoint: 'profile', params: { handle: `other_${i}` } },
          source: 'cli',
        });
      const service = sb.admin.balance();
      expect(service).toBeLessThan(5_000);
      await until('a ledger-changed event', () => a.events.some((e) => e.type === 'ledger-changed'));
      const seen = await until('the service balance in a balance event', () =>
        lastBalance(a.events)?.creditsRemaining === service ? lastBalance(a.events) : null,
      );
      expect(seen.creditsRemaining).toBe(service);
      expect((await callApp<BalanceInfo>(a.app, 'credits.get')).creditsRemaining).toBe(service);
      expect((await callApp<UsageSummary>(a.app, 'usage.summary')).balance.creditsRemaining).toBe(service);
      expect(b.events.some((e) => e.type === 'ledger-changed')).toBe(false); // its own writes are not another's
    });
  }

  it("only another connection's ledger or balance write counts: not its own, not an unrelated commit", () => {
    const file = join(dir, 'loupe.db');
    const mine = openArchive(file);
    const theirs = openArchive(file);
    try {
      let seen = 0;
      const w = watchLedger({ archive: mine, everyMs: 3_600_000, onForeignWrite: () => seen++ });
      const entry = (n: number, archive: typeof mine) =>
        archive.recordAttempt({
          callId: `c${n}`,
          attempt: 1,
          startedAt: n,
          durationMs: 1,
          platform: 'photo_net',
          endpoint: 'profile',
          params: '{}',
          paramsHash: 'h',
          idempotencyKey: `k${n}`,
          requestId: `r${n}`,
          status: 200,
          errorType: null,
          creditsUsed: 20,
          creditsRemaining: 5_000 - 20 * n,
          chargeReason: 'miss',
          cached: false,
          freeCall: false,
          idempotentReplay: false,
          source: 'cli',
          walkId: null,
          dryRun: false,
        });
      expect(w.check()).toBe(false);
      entry(1, mine); // its own spending
      mine.setBalance(4_980, 1);
      expect(w.check()).toBe(false);
      theirs.ingestItems([{ platform: 'photo_net', kind: 'post', record: post({ id: '1' }) }]); // unrelated
      theirs.addTag({ platform: 'photo_net', kind: 'post', id: '1' }, 'x');
      expect(w.check()).toBe(false);
      entry(2, theirs); // another process's ledger row
      expect(w.check()).toBe(true);
      expect(w.check()).toBe(false);
      theirs.setBalance(4_900, 5); // another process's balance reading
      expect(w.check()).toBe(true);
      entry(3, mine);
      theirs.addTag({ platform: 'photo_net', kind: 'post', id: '1' }, 'y'); // both at once: own ledger, their unrelated commit
      expect(w.check()).toBe(true); // cannot tell them apart: one free re-read too many, never one too few
      expect(seen).toBe(3);
      w.stop();
    } finally {
      mine.close();
      theirs.close();
    }
  });

  it('the CLI does not watch; a watch turned off raises nothing', async () => {
    const off = open('web', 0);
    const b = open('cli');
    await callApp(b.app, 'api.call', {
      target: { platform: 'photo_net', endpoint: 'profile', params: { handle: 'theirs' } },
      source: 'cli',
    });
    const a = open('web', 20);
    await callApp(b.app, 'api.call', {
      target: { platform: 'photo_net', endpoint: 'profile', params: { handle: 'theirs_again' } },
      source: 'cli',
    });
    await until('the watching app sees it', () => a.events.some((e) => e.type === 'ledger-changed'));
    expect(off.events.some((e) => e.type === 'ledger-changed')).toBe(false);
    expect(b.events.some((e) => e.type === 'ledger-changed')).toBe(false);
  });
});
