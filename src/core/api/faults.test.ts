/**
 * Hostile-network cases (issue 12) against the sandbox's scripted faults: every one ends within
 * its deadline with a clear outcome, and the ledger equals what the service charged.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../sandbox';
import { openArchive, type Archive } from '../archive';
import { createApiCore, exitCodeFor, scaledClock, type ApiCore } from '.';
import type { ApiError } from './errors';

const TIME_SCALE = 600;
const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c();
});

async function setup(
  o: { variants?: string[]; timeoutMs?: number; maxWaitMs?: number } = {},
): Promise<{ sb: SandboxHandle; api: ApiCore; archive: Archive }> {
  const sb = await startSandbox({ port: 0, seed: 9, balance: 100_000, freeCalls: 0, timeScale: TIME_SCALE, variants: o.variants ?? [] });
  sb.admin.advance(86_400 * 60);
  const clock = scaledClock(() => sb.admin.now(), TIME_SCALE);
  const archive = openArchive(':memory:', { clock: () => clock.now() });
  const api = createApiCore({
    baseUrl: sb.url,
    getKey: () => sb.key,
    store: archive,
    clock,
    timeoutMs: o.timeoutMs ?? 800,
    maxWaitMs: o.maxWaitMs,
  });
  open.push(async () => {
    await api.close();
    archive.close();
    await sb.close();
  });
  return { sb, api, archive };
}

const service = (sb: SandboxHandle) => sb.admin.charges().reduce((s, c) => s + c.credits_used, 0);
const ledger = (a: Archive) => a.listLedger({ limit: 10_000 }).reduce((s, l) => s + l.creditsUsed, 0);
const FEED = { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'faults' } };

describe('faults a hostile network makes', () => {
  for (const kind of ['stall', 'trickle'] as const) {
    it(`abandons a ${kind === 'stall' ? 'stalled' : 'trickling'} answer at the attempt's deadline and retries; the walk completes, ledger = service`, async () => {
      const { sb, api, archive } = await setup();
      sb.admin.queueFaults([{ kind, match: 'profile/posts', intervalMs: 200 }]);
      const t0 = Date.now();
      const r = await api.walk(FEED, { maxPages: 3 });
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(r.error?.message).toBeUndefined();
      expect(r.pagesDone).toBe(3);
      expect(archive.listLedger({ limit: 50 }).some((l) => l.errorType === 'NETWORK_TIMEOUT')).toBe(true);
      expect(ledger(archive)).toBe(service(sb));
    });
  }

  it('records the charge of an answer the service billed but cut short, so the ledger equals the service', async () => {
    for (const variants of [[], ['no-cache-window']]) {
      const { sb, api, archive } = await setup({ variants });
      sb.admin.queueFaults([{ kind: 'truncate-charged', match: 'profile/posts' }]);
      const r = await api.walk(FEED, { maxPages: 2 });
      expect(r.pagesDone).toBe(2);
      expect(service(sb)).toBeGreaterThan(0);
      expect(ledger(archive)).toBe(service(sb));
      expect(r.creditsSpent).toBe(service(sb));
      expect(archive.listLedger({ limit: 50 }).some((l) => l.chargeReason?.startsWith('inferred:'))).toBe(true);
    }
  });

  it('never pays the ceiling for a dropped answer, under any reading', async () => {
    for (const variants of [[], ['drop-charged'], ['strict-ceiling'], ['no-cache-window'], ['drop-charged', 'no-cache-window']]) {
      const { sb, api, archive } = await setup({ variants });
      sb.admin.queueFaults([
        { kind: 'drop', match: 'profile/posts' },
        { kind: 'status', status: 500, type: 'INTERNAL_ERROR', match: 'profile/posts' },
      ]);
      const r = await api.walk(FEED, { maxPages: 2 });
      expect(r.pagesDone).toBe(2);
      const paid = sb.admin.charges().filter((c) => c.credits_used > 0);
      // photo_net profile/posts is metered 20..340: a ceiling charge would show as 340
      expect(paid.every((c) => c.credits_used < 340)).toBe(true);
      expect(ledger(archive)).toBe(service(sb));
    }
  });

  it('stops at once with "rate limited until HH:MM" on a Retry-After beyond the wait cap, resumable', async () => {
    const { sb, api } = await setup({ maxWaitMs: 120_000 });
    sb.admin.queueFaults([{ kind: 'status', status: 429, type: 'RATE_LIMITED', retryAfter: 86_400, match: 'profile/posts' }]);
    const t0 = Date.now();
    const r = await api.walk(FEED, { maxPages: 3 });
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(r).toMatchObject({ status: 'paused', stopReason: 'rate_limited' });
    expect(r.error?.message).toMatch(/^Rate limited by the service until/);
    expect(exitCodeFor(r.error)).toBe(4);
  });

  it("fails at once on a 4xx with a non-JSON body (418 text/plain): one request, the server's words, exit 3", async () => {
    const { sb, api } = await setup();
    sb.admin.queueFaults([{ kind: 'status', status: 418, contentType: 'text/plain', body: "I'm a teapot", match: 'profile/posts' }]);
    const e = (await api.call(FEED).catch((x: unknown) => x)) as ApiError;
    expect(e.kind).toBe('api');
    expect(e.message).toMatch(/HTTP 418 .*I'm a teapot.*fix the request/);
    expect(exitCodeFor(e)).toBe(3);
    expect(sb.admin.charges().filter((c) => c.endpoint.endsWith('profile/posts'))).toHaveLength(1);
  });

  it('a new process resuming after a charged answer was lost reads the charge from the balance: same key, free replay, ledger = service', async () => {
    for (const variants of [[], ['no-cache-window'], ['strict-ceiling']]) {
      const sb = await startSandbox({ port: 0, seed: 9, balance: 100_000, freeCalls: 0, timeScale: TIME_SCALE, variants });
      sb.admin.advance(86_400 * 60);
      const clock = scaledClock(() => sb.admin.now(), TIME_SCALE);
      const archive = openArchive(':memory:', { clock: () => clock.now() });
      open.push(async () => {
        archive.close();
        await sb.close();
      });
      // the first process: page 2 is charged but its body is cut, and the process gives up (or dies)
      const first = createApiCore({ baseUrl: sb.url, getKey: () => sb.key, store: archive, clock, maxRetries: 0 });
      const feed = { platform: 'micro_net', endpoint: 'user/tweets', params: { handle: 'killed' } };
      const w1 = await first.walk(feed, { maxPages: 1 });
      sb.admin.queueFaults([{ kind: 'truncate-charged', match: 'user/tweets' }]);
      const w2 = await first.resumeWalk(w1.walkId, { maxPages: 2 });
      expect(w2.status).toBe('failed');
      await first.close();
      expect(ledger(archive)).toBeLessThan(service(sb)); // the lost charge is not known yet
      // a new process over the same archive
      const second = createApiCore({ baseUrl: sb.url, getKey: () => sb.key, store: archive, clock });
      const w3 = await second.resumeWalk(w1.walkId, { maxPages: 3 });
      await second.close();
      expect(w3.error?.message).toBeUndefined();
      expect(w3.pagesDone).toBe(3);
      expect(ledger(archive)).toBe(service(sb));
      expect(w3.creditsSpent).toBe(service(sb));
      const paid = sb.admin.charges().filter((c) => c.credits_used > 0);
      expect(paid).toHaveLength(3); // three pages, each paid once: no ceiling, no second charge
    }
  });
});
