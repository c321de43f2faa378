/**
 * Two Loupe processes issuing the identical call at once (docs/request-core.md "Single flight"):
 * the app's walk and a cron `loupe watch run` on the same data folder. Two cores over one archive
 * stand for the two processes (single flight inside a core is its own map; the journal is shared).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../sandbox';
import { openArchive } from '../archive';
import type { JournalEntry } from '../ports';
import { inFlightElsewhere } from './call/elsewhere';
import { createApiCore, scaledClock } from './index';

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const f of open.splice(0).reverse()) await f();
});

describe('the identical call from two processes at once', () => {
  it('inside a cache window it is paid once', async () => {
    const sb = await startSandbox({ port: 0, seed: 11, balance: 100_000, freeCalls: 0, latencyMs: 300 });
    const clock = scaledClock(() => sb.admin.now(), 1);
    const dir = mkdtempSync(join(tmpdir(), 'loupe-two-'));
    const a1 = openArchive(join(dir, 'loupe.db'), { clock: () => clock.now() });
    const a2 = openArchive(join(dir, 'loupe.db'), { clock: () => clock.now() });
    open.push(async () => {
      a1.close();
      a2.close();
      await sb.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const core = (store: typeof a1) => {
      const c = createApiCore({ baseUrl: sb.url, getKey: () => sb.key, store, clock });
      open.push(() => c.close());
      return c;
    };
    const app = core(a1);
    const cron = core(a2);
    const target = { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'shared' } };
    await Promise.all([app.credits(), cron.credits()]);
    const first = app.call(target);
    for (let i = 0; i < 400 && sb.admin.stats().in_flight === 0; i++) await new Promise((r) => setTimeout(r, 5));
    const second = cron.call(target);
    const [r1, r2] = await Promise.all([first, second]);
    const paid = sb.admin.charges().filter((c) => c.credits_used > 0);
    expect(paid).toHaveLength(1);
    expect(r1.creditsUsed + r2.creditsUsed).toBe(paid[0].credits_used);
    expect(r2).toMatchObject({ fromArchive: true, creditsUsed: 0 }); // the cron run read the app's answer
  });
});

describe('inFlightElsewhere', () => {
  const plan = { platform: 'photo_net', endpoint: 'profile/posts', hash: 'h' };
  const entry = (o: Partial<JournalEntry>): JournalEntry => ({
    callId: 'c',
    opKey: 'o',
    idempotencyKey: 'k',
    platform: 'photo_net',
    endpoint: 'profile/posts',
    params: '{}',
    paramsHash: 'h',
    state: 'pending',
    createdAt: 1000,
    finishedAt: null,
    ...o,
  });
  const none = () => false;
  it('waits for a live process’s pending call within its lease, or another core’s running one; never a dead, unknown, stale, finished or other one', () => {
    expect(inFlightElsewhere([entry({ owner: 'alive' })], plan, 1000 + 119_000, 120_000, none)).toBeDefined();
    expect(inFlightElsewhere([entry({ owner: 'alive' })], plan, 1000 + 120_000, 120_000, none)).toBeUndefined(); // gave up long ago
    expect(inFlightElsewhere([entry({ owner: 'gone' })], plan, 1001, 120_000, none)).toBeUndefined();
    expect(inFlightElsewhere([entry({ owner: 'unknown' })], plan, 1001, 120_000, none)).toBeUndefined();
    expect(inFlightElsewhere([entry({ owner: 'this' })], plan, 1001, 120_000, none)).toBeUndefined(); // a call of this process that gave up
    expect(inFlightElsewhere([entry({ owner: 'this' })], plan, 1001, 120_000, () => true)).toBeDefined();
    expect(inFlightElsewhere([entry({ owner: 'alive', state: 'done' })], plan, 1001, 120_000, none)).toBeUndefined();
    expect(inFlightElsewhere([entry({ owner: 'alive', paramsHash: 'other' })], plan, 1001, 120_000, none)).toBeUndefined();
  });
});
