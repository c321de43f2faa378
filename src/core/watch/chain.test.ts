/**
 * The chain driver on its own (issue 13): driveChain / runWatch over a WatchStore and an archive,
 * without the service around them — no watchlist CRUD, no scheduler, no run bookkeeping. Against
 * the sandbox (a head walk stopping at the marker, a budget stop and its exact gap, an expired
 * cursor) and against a scripted request core (the chain's own restart after INVALID_CURSOR, and
 * that it restarts once, never in a loop).
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../sandbox';
import { createApiCore, scaledClock } from '../api';
import { ApiError } from '../api/errors';
import { priceOf } from '../api/catalogue';
import type { ApiCore, CallResult, WalkOptions, WalkResult } from '../api/types';
import { openArchive, type Archive } from '../archive';
import type { CallTarget, Clock, WalkState } from '../ports';
import { SharedBudget } from './budget';
import { driveChain, headParams, newOutcome, runWatch, type ChainDeps, type RunCtx } from './chain';
import type { RunRow, WatchlistRow, WatchRow, WatchStore } from '../archive/watchlists';
import { testDb } from '../archive/testing';

const WATCH = { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'alice' } };
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

interface Env {
  deps: ChainDeps;
  store: WatchStore;
  archive: Archive;
  clock: Clock;
  list: WatchlistRow;
  watchId: string;
}

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

/** A watchlist with one watch, straight in the store (nothing of the service). */
function makeEnv(archive: Archive, clock: Clock, firstRunPages: number): Env {
  const store = archive.watchlists;
  const now = clock.now();
  const list: WatchlistRow = {
    id: randomUUID(),
    name: 'chain',
    schedule: null,
    budgetPerRun: null,
    budgetPerMonth: null,
    paused: false,
    alert: null,
    firstRunPages,
    seenAt: now,
    createdAt: now,
    updatedAt: now,
  };
  store.insertList(list);
  const watchId = randomUUID();
  store.insertWatch({
    watchId,
    watchlistId: list.id,
    position: 0,
    ...WATCH,
    label: 'alice',
    markerId: null,
    markerAt: null,
    lastCompleteAt: null,
    pendingWalkId: null,
    pendingChainId: null,
    pendingParams: null,
    pendingKind: null,
    pendingNewestId: null,
    pendingNewestAt: null,
    createdAt: now,
  });
  return { deps: { store, archive, clock, maxPagesPerWatch: 50 }, store, archive, clock, list, watchId };
}

/** A run row and the context the chain driver reads: the request core, the budget, the signal. */
function runCtx(
  e: Env,
  api: ApiCore,
  limit: number | null,
  budgetLabel = limit === null ? 'no budget' : `budget of ${fmt(limit)} credits`,
): RunCtx {
  const run: RunRow = {
    runId: randomUUID(),
    watchlistId: e.list.id,
    trigger: 'test',
    startedAt: e.clock.now(),
    finishedAt: null,
    status: 'running',
    creditsSpent: 0,
    newItems: 0,
    alerts: 0,
    message: null,
    estimate: null,
  };
  e.store.insertRun(run);
  return {
    api,
    list: e.list,
    run,
    budget: new SharedBudget(limit),
    budgetLabel,
    signal: new AbortController().signal,
    outcomes: new Map(),
    progress: () => {},
  };
}

const watchRow = (e: Env) => e.store.watch(e.watchId) as WatchRow;

/** Opens a chain on the watch, as runWatch does: a head chain (stop_at_id = marker) or the first run's. */
function openChain(e: Env, api: ApiCore, kind: 'first' | 'head'): string {
  const w = watchRow(e);
  const ep = api.catalogue.find(w.platform, w.endpoint)!;
  const walkId = randomUUID();
  e.store.setPending(e.watchId, {
    walkId,
    chainId: randomUUID(),
    params: kind === 'first' ? w.params : headParams(w, ep),
    kind,
    newestId: null,
    newestAt: null,
  });
  return walkId;
}

describe('chain driver, against the sandbox', () => {
  let sb: SandboxHandle;
  let api: ApiCore;

  async function setup(seed: number, firstRunPages = 1): Promise<Env> {
    sb = await startSandbox({ port: 0, seed, balance: 1_000_000, timeScale: 1, freeCalls: 0 });
    const clock = scaledClock(() => sb.admin.now(), 1);
    const archive = openArchive(':memory:', { clock: () => clock.now() });
    api = createApiCore({ baseUrl: sb.url, getKey: () => sb.key, store: archive, clock });
    await api.catalogue.load();
    cleanup.push(
      () => sb.close(),
      () => archive.close(),
      () => api.close(),
    );
    return makeEnv(archive, clock, firstRunPages);
  }

  const endpoint = () => api.catalogue.find(WATCH.platform, WATCH.endpoint)!;

  it('a head walk sends stop_at_id = the marker, stops there, and moves the marker to the newest item it saw', async () => {
    const e = await setup(21);
    // the first run: a one-page baseline
    const first = newOutcome(e.watchId, 1);
    const c1 = runCtx(e, api, null);
    c1.outcomes.set(e.watchId, first);
    await runWatch(e.deps, c1, watchRow(e));
    expect(first).toMatchObject({ complete: true, firstRun: true, stopReason: 'first_run', pages: 1, gap: null });
    const marker = watchRow(e).markerId;
    expect(marker).not.toBeNull();

    sb.admin.advance(30 * 3600); // new posts above the marker
    const walkId = openChain(e, api, 'head');
    const out = newOutcome(e.watchId, 1);
    expect(await driveChain(e.deps, runCtx(e, api, null), endpoint(), e.watchId, out)).toBe(true);
    expect(out.stopReason).toBe('known_id');
    expect(out.complete).toBe(false); // runWatch, not the driver, declares the watch complete
    expect(out.walkIds).toEqual([walkId]);
    expect(JSON.parse(e.archive.getWalk(walkId)!.params).stop_at_id).toBe(marker);
    expect(out.newItems).toBeGreaterThan(0);
    const after = watchRow(e);
    expect(after.pendingWalkId).toBeNull();
    expect(after.markerId).not.toBe(marker);
    // the new marker is the newest non-pinned item of the walk's first page
    const newest = (
      testDb(e.archive).prepare('SELECT item_id FROM watch_items WHERE watch_id = ? AND item_id = ?').get(e.watchId, after.markerId) as
        { item_id: string } | undefined
    )?.item_id;
    expect(newest).toBe(after.markerId);
  });

  it('a budget stop records the exact gap, leaves the marker alone, and the next drive resumes from the saved cursor', async () => {
    const e = await setup(22, 3);
    const walkId = openChain(e, api, 'first');
    const onePage = await api.hold({ ...WATCH });
    const price = priceOf(endpoint());
    const out = newOutcome(e.watchId, 3);
    // room for one page's hold: page 1 is sent, page 2's hold no longer fits once page 1 is paid
    expect(await driveChain(e.deps, runCtx(e, api, onePage), endpoint(), e.watchId, out)).toBe(false);
    expect(out.pages).toBe(1);
    expect(out.credits).toBeGreaterThan(0);
    expect(out.stopReason).toBe('budget');
    expect(out.gap).toBe(
      `stopped after page 1 of the first-run walk: budget of ${fmt(onePage)} credits reached (the next page holds ${fmt(onePage)} credits, ` +
        `${fmt(onePage - out.credits)} left); the baseline is not complete yet; the next run resumes from the saved cursor ` +
        `(≈${fmt(price.min)}–${fmt(price.max)} credits a page).`,
    );
    expect(watchRow(e)).toMatchObject({ markerId: null, pendingWalkId: walkId, pendingKind: 'first' });
    expect(e.archive.getWalk(walkId)?.pagesDone).toBe(1);
    const charged = sb.admin.charges().length;

    const rest = newOutcome(e.watchId, 2);
    expect(await driveChain(e.deps, runCtx(e, api, null), endpoint(), e.watchId, rest)).toBe(true);
    expect(rest.stopReason).toBe('first_run');
    expect(rest.pages).toBe(2); // pages 2 and 3, not page 1 again
    expect(rest.walkIds).toEqual([walkId]); // the same walk, from its cursor
    expect(e.archive.getWalk(walkId)?.pagesDone).toBe(3);
    expect(sb.admin.charges().length - charged).toBeLessThanOrEqual(2);
    expect(watchRow(e).markerId).not.toBeNull();
  });

  it('an expired cursor: the chain starts again from the head with its old boundary and completes, no gap', async () => {
    const e = await setup(23);
    const c1 = runCtx(e, api, null);
    const first = newOutcome(e.watchId, 1);
    c1.outcomes.set(e.watchId, first);
    await runWatch(e.deps, c1, watchRow(e));
    const marker = watchRow(e).markerId;

    sb.admin.advance(200 * 3600); // several pages of new posts
    const walkId = openChain(e, api, 'head');
    const cut = newOutcome(e.watchId, 1);
    expect(await driveChain(e.deps, runCtx(e, api, await api.hold({ ...WATCH })), endpoint(), e.watchId, cut)).toBe(false);
    expect(cut).toMatchObject({ pages: 1, stopReason: 'budget' });
    expect(cut.gap).toMatch(new RegExp(`^stopped after page 1 of a newer-than-${marker} walk: `));

    sb.admin.advance(12 * 3600); // past the saved cursor's lifetime
    const out = newOutcome(e.watchId, 1);
    expect(await driveChain(e.deps, runCtx(e, api, null), endpoint(), e.watchId, out)).toBe(true);
    expect(out.gap).toBeNull();
    expect(out.stopReason).toBe('known_id');
    // whichever walk read the pages, it kept the chain's boundary: stop_at_id = the old marker
    for (const id of out.walkIds) expect(JSON.parse(e.archive.getWalk(id)!.params).stop_at_id).toBe(marker);
    expect(out.walkIds[0]).toBe(walkId);
    expect(watchRow(e).pendingWalkId).toBeNull();
    expect(watchRow(e).markerId).not.toBe(marker);
  });
});

describe('chain driver, against a scripted request core', () => {
  /** A request core that answers walk/resumeWalk from a script, saving walk rows as the real one does. */
  function scripted(archive: Archive, script: Array<(state: WalkState, o: WalkOptions) => { result: WalkResult; page?: CallResult }>) {
    const calls: Array<{ how: 'walk' | 'resume'; walkId: string; params: Record<string, string> }> = [];
    const answer = (state: WalkState, o: WalkOptions): WalkResult => {
      const step = script.shift();
      if (!step) throw new Error('script exhausted');
      const { result, page } = step(state, o);
      archive.saveWalk(result.state);
      if (page) o.onPage?.({ result: page } as never);
      return result;
    };
    const api = {
      hold: async () => 20,
      walk: async (t: CallTarget, o: WalkOptions) => {
        const walkId = o.walkId ?? randomUUID();
        calls.push({ how: 'walk', walkId, params: t.params });
        const now = Date.now();
        const state: WalkState = {
          walkId,
          platform: t.platform,
          endpoint: t.endpoint,
          params: JSON.stringify(t.params),
          cursorParam: 'cursor',
          cursor: null,
          pagesDone: 0,
          creditsSpent: 0,
          itemsSeen: 0,
          status: 'running',
          stopReason: null,
          source: o.source ?? '',
          createdAt: now,
          updatedAt: now,
          error: null,
        };
        return answer(state, o);
      },
      resumeWalk: async (walkId: string, o: WalkOptions) => {
        const state = archive.getWalk(walkId)!;
        calls.push({ how: 'resume', walkId, params: JSON.parse(state.params) });
        return answer(state, o);
      },
    } as unknown as ApiCore;
    return { api, calls };
  }

  const result = (state: WalkState, r: Partial<WalkResult> & Pick<WalkResult, 'status'>): WalkResult => ({
    walkId: state.walkId,
    stopReason: null,
    pagesDone: state.pagesDone,
    creditsSpent: 0,
    itemsSeen: 0,
    newItems: 0,
    cursor: state.cursor,
    stoppedAt: null,
    walkStopped: null,
    unreadable: 0,
    heldBack: 0,
    notes: [],
    rewalkAt: null,
    restarted: false,
    ...r,
    state: { ...state, status: r.status, stopReason: r.stopReason ?? null, pagesDone: r.pagesDone ?? state.pagesDone },
  });
  const invalidCursor = (state: WalkState) =>
    result(state, {
      status: 'failed',
      stopReason: 'error:INVALID_CURSOR',
      error: new ApiError({ kind: 'api', type: 'INVALID_CURSOR', status: 400, message: 'The cursor has expired.' }),
    });
  const pageOf = (ids: string[]): CallResult =>
    ({
      creditsUsed: 20,
      envelope: {
        data: {
          items: ids.map((id, i) => ({
            post: { id, text: `post ${id}`, published_at: new Date(Date.UTC(2025, 0, 10 - i)).toISOString() },
          })),
        },
      },
    }) as unknown as CallResult;
  const ep = {
    platform: 'photo_net',
    path: '/v1/photo_net/profile/posts',
    params: [{ name: 'handle' }, { name: 'stop_at_id' }],
    credits: 20,
    paginates: true,
  } as never;

  /** A watch whose head chain was cut after one page: its walk is saved with a cursor. */
  function cutChain(e: Env): { walkId: string; chainId: string; params: Record<string, string> } {
    const walkId = randomUUID();
    const chainId = randomUUID();
    const params = { handle: 'alice', stop_at_id: 'p0' };
    const now = e.clock.now();
    // an earlier chain completed with p0 as its newest item
    testDb(e.archive)
      .prepare('UPDATE watches SET marker_id = ?, marker_at = ?, last_complete_at = ? WHERE watch_id = ?')
      .run('p0', now - 86_400_000, now, e.watchId);
    e.store.setPending(e.watchId, { walkId, chainId, params, kind: 'head', newestId: null, newestAt: null });
    e.archive.saveWalk({
      walkId,
      platform: 'photo_net',
      endpoint: 'profile/posts',
      params: JSON.stringify(params),
      cursorParam: 'cursor',
      cursor: 'c-old',
      pagesDone: 1,
      creditsSpent: 20,
      itemsSeen: 2,
      status: 'paused',
      stopReason: 'page_limit',
      source: 'watch:x',
      createdAt: now,
      updatedAt: now,
      error: null,
    });
    return { walkId, chainId, params };
  }

  function fakeEnv(): Env {
    const clock: Clock = { now: () => Date.UTC(2025, 0, 10), sleep: async () => {} };
    const archive = openArchive(':memory:', { clock: () => clock.now() });
    cleanup.push(() => archive.close());
    return makeEnv(archive, clock, 1);
  }

  it('a walk that fails on INVALID_CURSOR is restarted once, in a new walk of the same chain with the same params', async () => {
    const e = fakeEnv();
    const cut = cutChain(e);
    const { api, calls } = scripted(e.archive, [
      (s) => ({ result: invalidCursor(s) }),
      (s) => ({ result: result(s, { status: 'done', stopReason: 'known_id', pagesDone: 1 }), page: pageOf(['p9', 'p8']) }),
    ]);
    const out = newOutcome(e.watchId, 1);
    expect(await driveChain(e.deps, runCtx(e, api, null), ep, e.watchId, out)).toBe(true);
    expect(calls.map((c) => c.how)).toEqual(['resume', 'walk']);
    expect(calls[1].params).toEqual(cut.params); // the old boundary, no cursor
    expect(out.restarts).toBe(1);
    expect(out.walkIds).toEqual([cut.walkId, calls[1].walkId]);
    expect(out).toMatchObject({ stopReason: 'known_id', pages: 1, newItems: 2, gap: null });
    // the chain completed: the marker is the newest item the restart saw
    expect(watchRow(e)).toMatchObject({ markerId: 'p9', pendingWalkId: null, pendingChainId: null });
  });

  it('a second INVALID_CURSOR in the same drive is not retried: the chain stops with the exact gap', async () => {
    const e = fakeEnv();
    cutChain(e);
    const { api, calls } = scripted(e.archive, [(s) => ({ result: invalidCursor(s) }), (s) => ({ result: invalidCursor(s) })]);
    const out = newOutcome(e.watchId, 1);
    expect(await driveChain(e.deps, runCtx(e, api, null), ep, e.watchId, out)).toBe(false);
    expect(calls.map((c) => c.how)).toEqual(['resume', 'walk']);
    expect(out.restarts).toBe(1);
    expect(out.stopReason).toBe('error:INVALID_CURSOR');
    expect(out.gap).toBe(
      'stopped before the first page of a newer-than-p0 walk: page 1 failed (INVALID_CURSOR): The cursor has expired.; ' +
        'items newer than p0 below that page are not fetched yet; the next run retries that page from the saved cursor (≈20–20 credits a page).',
    );
    expect(watchRow(e).markerId).toBe('p0'); // the marker did not move
    expect(watchRow(e).pendingWalkId).toBe(calls[1].walkId);
  });
});
