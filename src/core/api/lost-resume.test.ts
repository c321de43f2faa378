/**
 * A lost answer taken up again later (docs/request-core.md "Which Idempotency-Key a retry uses"):
 * the balance says what a lost attempt cost only when it can be told apart. Two lost attempts are
 * pending at once — one the service never finished (a stalled answer, cancelled), one it charged (a
 * truncated answer, then a stalled retry, cancelled) — so the balance moved by the second one's
 * charge. Resuming the first must not take that movement for its own (same key → a ceiling charge
 * for a call the service never charged): neither in the process that left it pending, nor in a
 * later one that finds both pending (a `kill -9` with several pages in flight).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../sandbox';
import { openArchive, type Archive } from '../archive';
import { createApiCore, scaledClock } from './index';
import type { ApiCore } from './types';

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const f of open.splice(0).reverse()) await f();
});

async function setup(): Promise<{ sb: SandboxHandle; archive: Archive; core: () => ApiCore }> {
  const sb = await startSandbox({ port: 0, seed: 5, balance: 100_000, freeCalls: 0 });
  const clock = scaledClock(() => sb.admin.now(), 1);
  const archive = openArchive(':memory:', { clock: () => clock.now() });
  open.push(async () => {
    archive.close();
    await sb.close();
  });
  const core = () => {
    // no grace after the cancel: the stalled pages are abandoned at once (as in a kill)
    const c = createApiCore({ baseUrl: sb.url, getKey: () => sb.key, store: archive, clock, timeoutMs: 60_000, cancelGraceMs: 0 });
    open.push(() => c.close());
    return c;
  };
  return { sb, archive, core };
}

const target = (handle: string) => ({ platform: 'photo_net', endpoint: 'profile/posts', params: { handle } });

/** A's page 1 stalls (never charged); B's page 1 is charged but truncated, its retry stalls; both cancelled. */
async function twoLost(sb: SandboxHandle, core: ApiCore): Promise<void> {
  await core.credits(); // a clean balance before anything is lost
  sb.admin.queueFaults([{ kind: 'stall' }, { kind: 'truncate-charged' }, { kind: 'stall' }]);
  const stop = new AbortController();
  const a = core.walk(target('lost_a'), { walkId: 'wa', maxPages: 1, signal: stop.signal });
  await until(() => sb.admin.stats().in_flight === 1);
  const b = core.walk(target('lost_b'), { walkId: 'wb', maxPages: 1, signal: stop.signal });
  await until(() => sb.admin.faults().length === 0 && sb.admin.stats().in_flight === 2);
  stop.abort();
  await Promise.all([a, b]);
}

async function until(f: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !f(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!f()) throw new Error('state not reached');
}

const chargesOf = (sb: SandboxHandle, handle: string) =>
  sb.admin
    .charges()
    .filter((c) => c.params.handle === handle && c.credits_used > 0)
    .map((c) => c.credits_used);

describe('resuming one of several lost answers', () => {
  it('in the same process: the other one’s charge is not taken for it (it pays the price, not the ceiling)', async () => {
    const { sb, archive, core } = await setup();
    const c = core();
    await twoLost(sb, c);
    expect(archive.pendingJournal().length).toBe(2);
    expect(chargesOf(sb, 'lost_b')).toEqual([20]); // the truncated answer was charged
    const r = await c.resumeWalk('wa', { maxPages: 1 });
    expect(r.status).toBe('paused');
    expect(chargesOf(sb, 'lost_a')).toEqual([20]);
  });

  it('in a later process that finds both pending: neither is charged twice or at the ceiling', async () => {
    const { sb, archive, core } = await setup();
    await twoLost(sb, core());
    const later = core();
    await later.resumeWalk('wa', { maxPages: 1 });
    await later.resumeWalk('wb', { maxPages: 1 });
    expect(chargesOf(sb, 'lost_a')).toEqual([20]);
    expect(chargesOf(sb, 'lost_b')).toEqual([20]);
    const ledger = archive.listLedger({ limit: 100 }).reduce((s, l) => s + l.creditsUsed, 0);
    expect(ledger).toBe(sb.admin.charges().reduce((s, x) => s + x.credits_used, 0));
  });
});

describe('a stopped process’s call taken over by a new walk of the same request (simulation finding 6)', () => {
  it('the charge of its cut-short answer is recorded under that answer’s Idempotency-Key', async () => {
    const { sb, archive, core } = await setup();
    const first = core();
    await first.credits();
    sb.admin.queueFaults([{ kind: 'truncate-charged' }, { kind: 'stall' }]);
    const stop = new AbortController();
    const w = first.walk(target('taken'), { walkId: 'w1', maxPages: 1, signal: stop.signal });
    await until(() => sb.admin.faults().length === 0 && sb.admin.stats().in_flight === 1); // the retry stalls
    stop.abort();
    await w;
    const later = core();
    const r = await later.walk(target('taken'), { walkId: 'w2', maxPages: 1 });
    expect(r.pagesDone).toBe(1);
    const cut = sb.admin.charges().find((c) => c.fault === 'truncate-charged');
    expect(cut?.credits_used).toBe(20);
    const inferred = archive.listLedger({ limit: 100 }).filter((l) => l.chargeReason?.startsWith('inferred:'));
    expect(inferred.map((l) => [l.idempotencyKey, l.creditsUsed])).toEqual([[cut?.idempotency_key, 20]]);
    expect(archive.listLedger({ limit: 100 }).reduce((s, l) => s + l.creditsUsed, 0)).toBe(
      sb.admin.charges().reduce((s, c) => s + c.credits_used, 0),
    );
  });
});
