/**
 * Issue 27 #3: one clock. After "+1 day" on the sandbox, what Loupe records and compares follows
 * the service's clock: a run that just finished is not "24 h ago", the forecast sees runs a day
 * apart, and a search watch re-run past its cache window re-fetches (and pays) exactly once —
 * inside the window it sends nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { WatchlistInfo, WatchRunInfo } from '../shared/contract';
import { testDb } from './archive/testing';
import { appWatchFactory } from './watch';
import { createApp } from './app';
import { MemorySecretStore } from './secrets';
import { callApp, startTestApp, type TestApp } from './test-app';

let t: TestApp | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

const DAY = 86_400;
const pagesOf = (t: TestApp) =>
  t.sb.admin.charges().filter((c) => c.endpoint.endsWith('/search/tweets') && c.params.dry_run === undefined && c.status === 200);

describe('one clock: the service’s (issue 27 #3)', () => {
  it('after the sandbox moves on, runs, windows and forecasts follow it; a re-run pays once past the window, never inside it', async () => {
    t = await startTestApp({ seed: 5, balance: 1_000_000, freeCalls: 0 }, 'loupe-clock-', { watch: appWatchFactory({ scheduler: false }) });
    const app = t;
    const l = await app.call<WatchlistInfo>('watchlists.create', {
      name: 'kettles',
      watches: [{ platform: 'micro_net', endpoint: 'search/tweets', params: { query: 'kettle' } }],
    });
    const run = () => app.call<WatchRunInfo>('watchlists.run', { id: l.id, approved: true });

    const r1 = await run();
    expect(r1.status).toBe('done');
    const afterFirst = pagesOf(app).length;
    expect(afterFirst).toBeGreaterThan(0);

    // inside the window (same service minute): answered from the archive, nothing sent
    const r2 = await run();
    expect(r2.status).toBe('done');
    expect(pagesOf(app).length).toBe(afterFirst);

    for (const days of [1, 2]) {
      const before = pagesOf(app);
      await app.call('sandbox.advance', { seconds: days * DAY });
      const r = await run();
      expect(r.status).toBe('done');
      // past the window: the head page is fetched again, each call paid once
      const sent = pagesOf(app).slice(before.length);
      expect(sent.length).toBeGreaterThan(0);
      const keys = sent.map((c) => JSON.stringify(Object.entries(c.params).sort()));
      expect(new Set(keys).size).toBe(keys.length);
      expect(r.creditsSpent).toBe(sent.reduce((a, c) => a + c.credits_used, 0));
      expect(r.newItems).toBeGreaterThan(0); // a day on, the search has new posts
      // the run's times are the service's: it just finished, on the sandbox's clock
      expect(Math.abs(app.sb.admin.now() - (r.finishedAt ?? 0))).toBeLessThan(5 * 60_000);
      // and right after it, inside the window again: nothing more is sent
      const n = pagesOf(app).length;
      await run();
      expect(pagesOf(app).length).toBe(n);
    }

    const hist = await app.call<WatchRunInfo[]>('watchlists.history', { id: l.id });
    const first = hist[hist.length - 1];
    const last = hist[0];
    expect(last.startedAt - first.startedAt).toBeGreaterThanOrEqual(3 * DAY * 1000);
    const w = (await app.call<WatchlistInfo[]>('watchlists.list', {})).find((x) => x.id === l.id)!;
    expect(w.forecastNote ?? '').not.toMatch(/less than an hour apart/);
    expect(w.forecast).not.toBeNull();
    expect(w.lastRunAt).toBe(last.startedAt);
  });

  it('an answer stored on another session’s clock (in the future) is not inside any window', async () => {
    t = await startTestApp({ seed: 5, balance: 1_000_000, freeCalls: 0 }, 'loupe-clock-future-');
    const app = t;
    const target = { platform: 'micro_net', endpoint: 'search/tweets', params: { query: 'kettle' } };
    await app.call('api.call', { target, source: 'search' });
    const n = pagesOf(app).length;
    // the stored answer moved a week ahead, as if a sandbox moved on in an earlier session had stored it
    testDb(app.app.archive)
      .prepare('UPDATE responses SET fetched_at = fetched_at + ?')
      .run(7 * DAY * 1000);
    const q = await app.call<{ servedFromArchive?: boolean }>('api.quote', target);
    expect(q.servedFromArchive ?? false).toBe(false);
    await app.call('api.call', { target, source: 'search' });
    expect(pagesOf(app).length).toBe(n + 1);
  });

  it('on a service whose clock Loupe cannot read, its answers’ Date headers carry the clock', async () => {
    t = await startTestApp({ seed: 5, balance: 1_000_000, freeCalls: 0 }, 'loupe-clock-date-');
    const sb = t.sb;
    const dir = mkdtempSync(join(tmpdir(), 'loupe-clock-real-'));
    const real = createApp({ dataDir: dir, secrets: new MemorySecretStore(), door: 'web', baseUrl: sb.url, envKey: sb.key });
    try {
      const target = { platform: 'micro_net', endpoint: 'search/tweets', params: { query: 'kettle' } };
      await callApp(real, 'api.call', { target, source: 'search' });
      const n = pagesOf(t).length;
      sb.admin.advance(DAY); // moved behind Loupe's back: only its answers tell
      await callApp(real, 'credits.refresh');
      await callApp(real, 'credits.refresh');
      await callApp(real, 'api.call', { target, source: 'search' });
      expect(pagesOf(t).length).toBe(n + 1);
    } finally {
      await real.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
