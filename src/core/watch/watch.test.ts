import { describe, expect, it } from 'vitest';
import type { LoupeEvent } from '../../shared/contract';
import type { WatchRunDetail } from './index';
import { testDb } from '../archive/testing';
import { watchEnvs, type WatchEnv, type WatchEnvOptions } from './test-env';

type Env = WatchEnv & { events: LoupeEvent[]; notes: Array<{ title: string; body: string }> };

const watchEnv = watchEnvs();
async function setup(o: Omit<WatchEnvOptions, 'service'> = {}): Promise<Env> {
  const events: LoupeEvent[] = [];
  const notes: Array<{ title: string; body: string }> = [];
  const env = await watchEnv({ ...o, service: { emit: (e) => events.push(e), notify: (title, body) => notes.push({ title, body }) } });
  return { ...env, events, notes };
}

const SYNC_WATCHES = [
  { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'alice' } },
  { platform: 'micro_net', endpoint: 'user/tweets', params: { handle: 'bob.runs' } },
  { platform: 'video_net', endpoint: 'channel/videos', params: { handle: 'carol' } },
];

function heldIds(e: Env, watchId: string): string[] {
  return (
    testDb(e.archive).prepare('SELECT item_id FROM watch_items WHERE watch_id = ? ORDER BY item_id').all(watchId) as Array<{
      item_id: string;
    }>
  ).map((r) => r.item_id);
}

function record(e: Env, id: string): { published_at: string | null; flags?: { pinned?: boolean | null } } {
  const r = testDb(e.archive).prepare('SELECT raw FROM items WHERE id = ?').get(id) as { raw: string };
  return JSON.parse(r.raw) as { published_at: string | null; flags?: { pinned?: boolean | null } };
}

/** Oldest non-pinned item a run held for a watch: the baseline a full walk is compared down to. */
function baselineOldest(e: Env, watchId: string): number {
  const times = heldIds(e, watchId)
    .map((id) => record(e, id))
    .filter((r) => r.flags?.pinned !== true && r.published_at)
    .map((r) => Date.parse(r.published_at as string));
  return Math.min(...times);
}

/** A full fresh walk of the list (own key, straight HTTP), down to `since`: the non-pinned ids. */
async function fullWalk(
  e: Env,
  t: { platform: string; endpoint: string; params: Record<string, string> },
  since: number,
): Promise<string[]> {
  const key = e.sb.admin.createKey('oracle');
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 200; i++) {
    const q = new URLSearchParams({ ...t.params, since: new Date(since).toISOString(), ...(cursor ? { cursor } : {}) });
    const r = await fetch(`${e.sb.url}/v1/${t.platform}/${t.endpoint}?${q}`, {
      headers: { 'x-api-key': key, 'cache-control': 'no-cache' },
    });
    const j = (await r.json()) as {
      data: { items: Array<Record<string, { id: string; flags?: { pinned?: boolean } }>> };
      pagination: { has_more: boolean; next_cursor: string | null };
    };
    for (const it of j.data.items) {
      const rec = Object.values(it)[0];
      if (rec.flags?.pinned !== true) ids.push(rec.id);
    }
    if (!j.pagination.has_more || !j.pagination.next_cursor) break;
    cursor = j.pagination.next_cursor;
  }
  return ids.sort();
}

function nonPinnedHeld(e: Env, watchId: string): string[] {
  return heldIds(e, watchId).filter((id) => record(e, id).flags?.pinned !== true);
}

/** How many stored answers of this watchlist contain each non-pinned item (1 = fetched once). */
function fetchCounts(e: Env, listId: string): Map<string, number> {
  const rows = testDb(e.archive)
    .prepare(
      `SELECT i.id, i.raw, count(*) AS n FROM provenance p JOIN items i ON i.rid = p.item_rid
       JOIN responses r ON r.call_id = p.call_id WHERE r.source = ? GROUP BY i.rid`,
    )
    .all(`watch:${listId}`) as Array<{ id: string; raw: string; n: number }>;
  const m = new Map<string, number>();
  for (const r of rows) if ((JSON.parse(r.raw) as { flags?: { pinned?: boolean } }).flags?.pinned !== true) m.set(r.id, r.n);
  return m;
}

/**
 * The watch holds every non-pinned post a full fresh walk lists now (none missing); a held post the
 * walk no longer lists was removed at the service since it was fetched (the sandbox ages posts:
 * docs/sandbox.md), and it came once from this list's own calls.
 */
async function expectHoldsList(
  e: Env,
  listId: string,
  w: { watchId: string; platform: string; endpoint: string; params: Record<string, string> },
  since: number,
): Promise<void> {
  const oracle = await fullWalk(e, w, since);
  const held = nonPinnedHeld(e, w.watchId);
  expect(oracle.filter((id) => !held.includes(id))).toEqual([]);
  const counts = fetchCounts(e, listId);
  for (const id of held.filter((x) => !oracle.includes(x))) expect(counts.get(id), id).toBe(1);
}

function ledgerCredits(e: Env, listId: string): number {
  return (
    testDb(e.archive).prepare('SELECT coalesce(sum(credits_used), 0) AS c FROM calls WHERE source = ?').get(`watch:${listId}`) as {
      c: number;
    }
  ).c;
}

const serverCredits = (e: Env) => e.sb.admin.charges().reduce((a, c) => a + c.credits_used, 0);

describe('watchlists: incremental refresh', () => {
  it('a second refresh with no new posts spends one page per watch (stop_at_id), a third inside the cache window nothing', async () => {
    const e = await setup();
    const l = await e.watch.create({ name: 'sync', watches: SYNC_WATCHES });
    const r1 = await e.watch.run(l.id, { approved: true });
    expect(r1.status).toBe('done');
    expect(r1.watches.every((w) => w.complete && w.pages === 1 && w.stopReason === 'first_run')).toBe(true);

    const before = serverCredits(e);
    const r2 = await e.watch.run(l.id, { approved: true });
    expect(r2.status).toBe('done');
    for (const w of r2.watches) {
      expect(w.pages).toBe(1);
      expect(w.newItems).toBe(0);
      expect(w.stopReason).toBe('known_id');
      expect(w.complete).toBe(true);
    }
    // the minimum: one page per watch at the endpoint's lowest price (20), charged by the service
    expect(serverCredits(e) - before).toBe(3 * 20);
    expect(r2.creditsSpent).toBe(3 * 20);

    const r3 = await e.watch.run(l.id, { approved: true });
    expect(r3.status).toBe('done');
    expect(serverCredits(e) - before).toBe(3 * 20); // same call inside the cache window: answered from the archive
    expect(r3.creditsSpent).toBe(0);
  });

  it('a 7-page first run on an endpoint that accepts max_pages takes 2 requests (5 + 2 pages), billed per page; a refresh down to the first held item goes a page at a time', async () => {
    const e = await setup({ seed: 7 });
    const l = await e.watch.create({
      name: 'deep',
      watches: [{ platform: 'micro_net', endpoint: 'search/tweets', params: { query: 'kettle' } }],
      firstRunPages: 7,
    });
    const r1 = await e.watch.run(l.id, { approved: true });
    expect(r1.status).toBe('done');
    expect(r1.watches[0]).toMatchObject({ complete: true, pages: 7, stopReason: 'first_run' });
    const reqs = e.sb.admin.charges().filter((c) => c.endpoint.endsWith('search/tweets') && c.params.dry_run === undefined);
    expect(reqs.map((c) => c.params.max_pages)).toEqual(['5', '2']);
    // billed per page walked: the ledger equals the service, and the run says what it spent
    expect(ledgerCredits(e, l.id)).toBe(serverCredits(e));
    expect(r1.creditsSpent).toBe(serverCredits(e));
    e.sb.admin.advance(7200);
    const r2 = await e.watch.run(l.id, { approved: true });
    expect(r2.status).toBe('done');
    const later = e.sb.admin
      .charges()
      .filter((c) => c.endpoint.endsWith('search/tweets') && c.params.dry_run === undefined)
      .slice(2);
    expect(later.every((c) => c.params.max_pages === undefined)).toBe(true);
  });

  it('new posts after time passes are fetched exactly once, none missing (compared with a full fresh walk)', async () => {
    const e = await setup({ seed: 5 });
    const l = await e.watch.create({ name: 'grow', watches: SYNC_WATCHES });
    await e.watch.run(l.id, { approved: true });
    const info = await e.watch.get(l.id);
    const base = new Map(info.watches.map((w) => [w.watchId, baselineOldest(e, w.watchId)]));

    e.sb.admin.advance(30 * 3600);
    const r2 = await e.watch.run(l.id, { approved: true });
    expect(r2.status).toBe('done');
    expect(r2.newItems).toBeGreaterThan(0);
    e.sb.admin.advance(80 * 3600); // more than a page of new posts on some watches
    const r3 = await e.watch.run(l.id, { approved: true });
    expect(r3.status).toBe('done');
    expect(r3.watches.some((w) => w.pages > 1)).toBe(true);

    for (const w of info.watches) await expectHoldsList(e, l.id, w, base.get(w.watchId) as number);
    for (const [, n] of fetchCounts(e, l.id)) expect(n).toBe(1);
    const held = info.watches.reduce((a, w) => a + heldIds(e, w.watchId).length, 0);
    const runs = await e.watch.history(l.id);
    expect(runs.reduce((a, r) => a + r.newItems, 0)).toBe(held);
  });

  it('a run killed mid-way resumes the unfinished walk first and fills the gap: nothing lost, nothing twice', async () => {
    const e = await setup({ seed: 8 });
    const l = await e.watch.create({ name: 'kill', watches: [SYNC_WATCHES[0]] });
    await e.watch.run(l.id, { approved: true });
    const w = (await e.watch.get(l.id)).watches[0];
    const base = baselineOldest(e, w.watchId);
    const markerBefore = (
      testDb(e.archive).prepare('SELECT marker_id FROM watches WHERE watch_id = ?').get(w.watchId) as { marker_id: string }
    ).marker_id;

    e.sb.admin.advance(120 * 3600); // ~30 new posts: several pages
    const ctl = new AbortController();
    const off = e.api.events.on('walk-progress', (p) => {
      if (p.pagesDone >= 1) ctl.abort();
    });
    const r2 = await e.watch.run(l.id, { approved: true, signal: ctl.signal });
    off();
    expect(r2.status).toBe('cancelled');
    expect(r2.watches[0].complete).toBe(false);
    expect(r2.watches[0].pages).toBe(1);
    expect(r2.watches[0].gap).toMatch(new RegExp(`stopped after page 1 of a newer-than-${markerBefore} walk: the run was cancelled`));
    // the marker did not move
    expect(
      (testDb(e.archive).prepare('SELECT marker_id FROM watches WHERE watch_id = ?').get(w.watchId) as { marker_id: string }).marker_id,
    ).toBe(markerBefore);

    e.sb.admin.advance(2 * 3600); // more posts arrive above the interrupted walk (its cursor is still valid)
    const r3 = await e.watch.run(l.id, { approved: true });
    expect(r3.watches[0].gap).toBeNull();
    expect(r3.status).toBe('done');
    expect(r3.watches[0].complete).toBe(true);
    await expectHoldsList(e, l.id, w, base);
    for (const [, n] of fetchCounts(e, l.id)) expect(n).toBe(1);
    // the resumed walk went on with its old stop_at_id; the new head walk stopped at the interrupted walk's newest
    const walks = (
      testDb(e.archive).prepare('SELECT walk_ids FROM watch_run_watches WHERE run_id = ?').get(r3.runId) as { walk_ids: string }
    ).walk_ids;
    const [resumed, head] = JSON.parse(walks) as string[];
    expect(JSON.parse(e.archive.getWalk(resumed)?.params ?? '{}').stop_at_id).toBe(markerBefore);
    const headStop = JSON.parse(e.archive.getWalk(head)?.params ?? '{}').stop_at_id as string;
    expect(headStop).not.toBe(markerBefore);
  });

  it('a saved cursor that expired between runs: the unfinished walk restarts from the head with its old boundary — no gap', async () => {
    const e = await setup({ seed: 9 });
    const l = await e.watch.create({ name: 'expired', watches: [SYNC_WATCHES[0]] });
    await e.watch.run(l.id, { approved: true });
    const w = (await e.watch.get(l.id)).watches[0];
    const base = baselineOldest(e, w.watchId);
    e.sb.admin.advance(200 * 3600);
    const ctl = new AbortController();
    const off = e.api.events.on('walk-progress', (p) => {
      if (p.pagesDone >= 1) ctl.abort();
    });
    const r2 = await e.watch.run(l.id, { approved: true, signal: ctl.signal });
    off();
    expect(r2.watches[0].complete).toBe(false);
    e.sb.admin.advance(12 * 3600); // past the cursor's lifetime
    const r3 = await e.watch.run(l.id, { approved: true });
    expect(r3.status).toBe('done');
    expect(r3.watches[0].gap).toBeNull();
    await expectHoldsList(e, l.id, w, base);
    // only the first page of the interrupted walk is read twice (the price of an expired cursor)
    const twice = [...fetchCounts(e, l.id).values()].filter((n) => n > 1).length;
    expect(twice).toBeGreaterThan(0);
    expect(twice).toBeLessThanOrEqual(r2.watches[0].pages * 40);
    for (const [, n] of fetchCounts(e, l.id)) expect(n).toBeLessThanOrEqual(2);
  });
});

describe('watchlists: budgets', () => {
  it('needs approval above the per-run budget, and never spends past it (holds reserved before each page)', async () => {
    const e = await setup({ seed: 21 });
    const watches = ['alice', 'bob', 'carol', 'dave'].map((h) => ({
      platform: 'photo_net',
      endpoint: 'profile/posts',
      params: { handle: h },
    }));
    const l = await e.watch.create({ name: 'budget', watches, budgetPerRun: 500, firstRunPages: 3 });
    const est = await e.watch.estimate(l.id);
    expect(est.creditsMin).toBe(4 * 3 * 20);
    expect(est.creditsMax).toBe(4 * 3 * 340);
    expect(est.needsConfirmation).toBe(true);

    const refused = await e.watch.run(l.id);
    expect(refused.status).toBe('over_budget');
    expect(refused.message).toMatch(/Needs approval/);
    expect(ledgerCredits(e, l.id)).toBe(0);
    expect(e.sb.admin.charges().length).toBe(0);

    const r = await e.watch.run(l.id, { approved: true });
    expect(r.status).toBe('over_budget');
    const spent = ledgerCredits(e, l.id);
    expect(spent).toBeLessThanOrEqual(500);
    expect(serverCredits(e)).toBe(spent);
    expect(r.creditsSpent).toBe(spent);
    // every page holds 340 and costs 20: a page is sent only while spent + 340 <= 500 (last at 160)
    expect(spent).toBe(180);
    const cut = r.watches.filter((w) => !w.complete);
    expect(cut.length).toBeGreaterThan(0);
    for (const w of cut)
      expect(w.gap).toMatch(/budget of 500 credits reached.*the next run resumes from the saved cursor \(≈20–340 credits a page\)/);

    // a month budget with less left than one page's hold: nothing is sent
    await e.watch.update(l.id, { budgetPerRun: null, budgetPerMonth: spent + 300 });
    const n = e.sb.admin.charges().length;
    const m = await e.watch.run(l.id, { approved: true });
    expect(m.status).toBe('over_budget');
    expect(e.sb.admin.charges().length).toBe(n);
    expect(ledgerCredits(e, l.id)).toBe(spent);

    // enough budget: the cut chains complete
    await e.watch.update(l.id, { budgetPerMonth: null, budgetPerRun: 5000 });
    const done = await e.watch.run(l.id, { approved: true });
    expect(done.status).toBe('done');
    expect(done.watches.every((w) => w.complete)).toBe(true);
    for (const w of (await e.watch.get(l.id)).watches) expect(heldIds(e, w.watchId).length).toBeGreaterThanOrEqual(3 * 12 - 3);
  });
});

describe('watchlists: completeness under chaos', () => {
  it('retries exhausted mid-walk → the exact gap is recorded; the next run fills it', async () => {
    const e = await setup({ seed: 31, timeScale: 1000, maxRetries: 2 });
    const l = await e.watch.create({ name: 'chaos', watches: [SYNC_WATCHES[1]] });
    await e.watch.run(l.id, { approved: true });
    const w = (await e.watch.get(l.id)).watches[0];
    const base = baselineOldest(e, w.watchId);
    e.sb.admin.advance(150 * 3600);
    const off = e.api.events.on('walk-progress', (p) => {
      if (p.pagesDone >= 1) e.sb.admin.setChaos({ rate500: 1 });
    });
    const r2 = await e.watch.run(l.id, { approved: true });
    off();
    e.sb.admin.setChaos(0);
    expect(r2.status).toBe('failed');
    const v = r2.watches[0];
    expect(v.complete).toBe(false);
    expect(v.stopReason).toBe('error:INTERNAL_ERROR');
    expect(v.gap).toMatch(
      /stopped after page 1 of a newer-than-\d+ walk: page 2 failed \(INTERNAL_ERROR after 3 attempts\).*the next run retries that page from the saved cursor/,
    );

    const r3 = await e.watch.run(l.id, { approved: true });
    expect(r3.status).toBe('done');
    expect(r3.watches[0].complete).toBe(true);
    await expectHoldsList(e, l.id, w, base);
    for (const [, n] of fetchCounts(e, l.id)) expect(n).toBe(1);
  });
});

describe('watchlists: forecast, schedule and alerts', () => {
  it('forecast is null with a reason before history, then computed from the watchlist’s own runs', async () => {
    const e = await setup({ seed: 41 });
    const l = await e.watch.create({ name: 'fc', watches: SYNC_WATCHES.slice(0, 2), schedule: { everyHours: 12 } });
    expect(l.forecast).toBeNull();
    expect(l.forecastNote).toMatch(/No history yet/);
    await e.watch.run(l.id, { approved: true });
    expect((await e.watch.get(l.id)).forecast).toBeNull();
    const runs: WatchRunDetail[] = [];
    for (let i = 0; i < 3; i++) {
      e.sb.admin.advance(12 * 3600);
      runs.push(await e.watch.run(l.id, { approved: true }));
    }
    const info = await e.watch.get(l.id);
    expect(info.forecast).not.toBeNull();
    const f = info.forecast as NonNullable<typeof info.forecast>;
    expect(f.basis).toMatch(/new items a day/);
    expect(f.basis).not.toMatch(/\d\.\d+ h\b/); // durations in words (issue 27 #20)
    // every watch costs at least one 20-credit page per run
    expect(f.perRunCredits).toBeGreaterThanOrEqual(2 * 20);
    expect(f.perMonthCredits).toBe(Math.round((f.perRunCredits * 30 * 24) / 12) || f.perMonthCredits);
    expect(Math.abs(f.perMonthCredits - f.perRunCredits * 60)).toBeLessThanOrEqual(60);
    // the observed cost of an incremental run is in line with the forecast
    const avg = runs.reduce((a, r) => a + r.creditsSpent, 0) / runs.length;
    expect(Math.abs(avg - f.perRunCredits)).toBeLessThanOrEqual(f.perRunCredits);
  });

  it('a due scheduled run alerts on new items matching the label filter (notify + watch-run event)', async () => {
    const e = await setup({ seed: 51 });
    const alert = [{ family: 'sponsored', field: 'p', op: 'gte' as const, value: 0 }];
    const l = await e.watch.create({ name: 'alerts', watches: [SYNC_WATCHES[0]], schedule: { everyHours: 6 }, alert, budgetPerRun: 2000 });
    expect((await e.watch.tick()).length).toBe(0); // not due yet
    e.sb.admin.advance(7 * 3600);
    const first = await e.watch.tick();
    expect(first.length).toBe(1);
    expect(first[0].trigger).toBe('schedule');
    e.sb.admin.advance(30 * 3600);
    const [run] = await e.watch.tick();
    expect(run.status).toBe('done');
    expect(run.newItems).toBeGreaterThan(0);
    // independent count: this run's new items whose sponsored.p >= 0, through the library query
    const walkIds = (
      testDb(e.archive).prepare('SELECT walk_ids FROM watch_run_watches WHERE run_id = ?').all(run.runId) as Array<{ walk_ids: string }>
    ).flatMap((r) => JSON.parse(r.walk_ids) as string[]);
    let matching = 0;
    for (const walkId of walkIds) matching += e.archive.count({ source: { type: 'walk', id: walkId }, labels: alert });
    const pinnedRepeats = 0;
    expect(run.alerts).toBe(matching - pinnedRepeats);
    expect(run.alerts).toBeGreaterThan(0);
    expect(e.notes.some((n) => n.title.includes(`${run.alerts} new item(s) match the alert`))).toBe(true);
    const ev = e.events.filter(
      (x): x is Extract<LoupeEvent, { type: 'watch-run' }> =>
        x.type === 'watch-run' && x.run.runId === run.runId && x.run.status === 'done',
    );
    expect(ev.length).toBe(1);
    expect(ev[0].alerts).toBe(run.alerts);
    // the badge counts items since the last markSeen
    expect((await e.watch.get(l.id)).newSinceSeen).toBeGreaterThan(0);
    await e.watch.markSeen(l.id);
    expect((await e.watch.get(l.id)).newSinceSeen).toBe(0);
  });

  it('validates schedules and watch params; cron gives the next run time', async () => {
    const e = await setup();
    await expect(e.watch.create({ name: 'x', schedule: { cron: 'not a cron' } })).rejects.toThrow(/cron expression/);
    await expect(
      e.watch.create({ name: 'x', watches: [{ ...SYNC_WATCHES[0], params: { handle: 'a', stop_at_id: '1' } }] }),
    ).rejects.toThrow(/stop_at_id/);
    await expect(
      e.watch.create({ name: 'x', watches: [{ platform: 'photo_net', endpoint: 'profile', params: { handle: 'a' } }] }),
    ).rejects.toThrow(/not a list/);
    const l = await e.watch.create({ name: 'cron', schedule: { cron: '0 */6 * * *' }, watches: [SYNC_WATCHES[0]] });
    expect(l.nextRunAt).not.toBeNull();
    expect(new Date(l.nextRunAt as number).getUTCMinutes()).toBe(0);
    expect(new Date(l.nextRunAt as number).getUTCHours() % 6).toBe(0);
    const p = await e.watch.update(l.id, { paused: true });
    expect(p.nextRunAt).toBeNull();
  });
});
