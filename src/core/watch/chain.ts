/**
 * The chain driver: how one watch's walks run (docs/watchlists.md). A chain is a newest-first walk
 * from the head of a list down to what the watch already held; it may take several runs when it
 * is cut short (budget, cancel, error, page cap) and is then resumed first, from its saved cursor,
 * with its original params. The marker advances only when a chain completes.
 *
 * `driveChain` drives a watch's pending chain page by page through the request core, reserving
 * each page's hold from the run's shared budget first; `runWatch` is one watch's part of a run (its
 * unfinished chain, then a new head chain). Both read and write the watch's rows in the
 * WatchStore and the walk rows in the archive, and nothing else (tested on their own in
 * chain.test.ts).
 */
import { randomUUID } from 'node:crypto';
import type { CatalogueEndpoint } from '../../shared/api-types';
import type { Clock } from '../ports';
import { ApiError } from '../api';
import { holdOf, maxPagesOf, priceOf } from '../api';
import type { ApiCore, CallResult, WalkResult } from '../api';
import type { SharedBudget } from './budget';
import type { ChainKind, RunRow, RunWatchRow, WatchlistRow, WatchRow, WatchStore } from '../archive';
import type { WatchArchive } from './types';
import { accepts, endpointOf, fmt, isoOf, parseTime } from './util';
import { newerThan, newestRow, pageRows, stopEvidence } from './page-rows';

/** What the chain driver needs besides the run: the watch rows, the walk rows, time, the page cap. */
export interface ChainDeps {
  store: WatchStore;
  archive: WatchArchive;
  clock: Clock;
  /** pages one watch may fetch in one run before it stops (resumable) */
  maxPagesPerWatch: number;
}

/** A watch's result within a run: what is stored per run (RunWatchRow) plus what the run needs. */
export interface WatchOutcome extends Omit<RunWatchRow, 'runId'> {
  expectedPages: number;
  finished: boolean;
  /** walks restarted from the head because their saved cursor had expired */
  restarts: number;
}

export interface RunCtx {
  api: ApiCore;
  list: WatchlistRow;
  run: RunRow;
  budget: SharedBudget;
  budgetLabel: string;
  signal: AbortSignal;
  outcomes: Map<string, WatchOutcome>;
  progress: () => void;
}

/** A watch's outcome before its run starts: nothing fetched yet. */
export function newOutcome(watchId: string, expectedPages: number): WatchOutcome {
  return {
    watchId,
    pages: 0,
    credits: 0,
    newItems: 0,
    itemsSeen: 0,
    firstRun: false,
    stopReason: null,
    complete: false,
    gap: null,
    walkIds: [],
    expectedPages,
    finished: false,
    restarts: 0,
  };
}

/**
 * A head walk's parameters: down to the marker (`stop_at_id`) with its time as a safety net
 * (`since`), where the endpoint takes them. Also a collection plan's feed inputs (src/core/collect).
 */
export function headParams(w: Pick<WatchRow, 'params' | 'markerId' | 'markerAt'>, ep: CatalogueEndpoint): Record<string, string> {
  const params = { ...w.params };
  if (w.markerId !== null && accepts(ep, 'stop_at_id')) {
    params.stop_at_id = w.markerId;
    if (w.markerAt !== null && accepts(ep, 'since')) {
      // safety net: a deleted marker post must not turn the walk into a full-history walk
      const user = parseTime(params.since);
      if (user === null || user < w.markerAt) params.since = isoOf(w.markerAt);
    }
  }
  return params;
}

/**
 * Marks a walk done where the watch's own rule ends it (a first run's baseline reached, a page that
 * holds an item the watch held before) while the request core would have walked on. (The comment
 * that stood here described linking archive-answered pages to the watchlist; the archive does that
 * now, see WatchArchive.ingestItems.)
 */
function markWalkDone(d: ChainDeps, walkId: string, reason: string): void {
  const { archive, clock } = d;
  const s = archive.getWalk(walkId);
  if (s && s.status !== 'done') archive.saveWalk({ ...s, status: 'done', stopReason: reason, updatedAt: clock.now() });
}

function describeChain(w: WatchRow, ep: CatalogueEndpoint): string {
  if (w.pendingKind === 'first') return 'the first-run walk';
  const stopAt = w.pendingParams?.stop_at_id;
  if (stopAt) return `a newer-than-${stopAt} walk`;
  if (accepts(ep, 'stop_at_id')) return 'a head walk';
  return 'a walk down to the first already-held item';
}

/**
 * Drives the watch's pending chain page by page until it completes (true) or stops (false,
 * with `out.gap` saying exactly what is missing and how the next run fills it).
 */
export async function driveChain(d: ChainDeps, ctx: RunCtx, ep: CatalogueEndpoint, watchId: string, out: WatchOutcome): Promise<boolean> {
  const { store, archive, clock, maxPagesPerWatch } = d;
  const source = `watch:${ctx.list.id}`;
  const price = priceOf(ep);
  let w = store.watch(watchId) as WatchRow;
  const chainId = w.pendingChainId as string;
  let restarted = false;
  const stop = (reason: string, why: string, resume = 'the next run resumes from the saved cursor') => {
    w = store.watch(watchId) as WatchRow;
    const walk = w.pendingWalkId ? archive.getWalk(w.pendingWalkId) : undefined;
    const done = walk?.pagesDone ?? 0;
    const where =
      done > 0 ? `stopped after page ${done} of ${describeChain(w, ep)}` : `stopped before the first page of ${describeChain(w, ep)}`;
    const mp = maxPagesOf(w.pendingParams ?? w.params);
    const missing = w.markerId ? `items newer than ${w.markerId} below that page are not fetched yet` : 'the baseline is not complete yet';
    out.stopReason = reason;
    out.complete = false;
    out.gap = `${where}: ${why}; ${missing}; ${resume} (≈${fmt(price.min * mp)}–${fmt(price.max * mp)} credits a page).`;
    return false;
  };

  for (;;) {
    w = store.watch(watchId) as WatchRow;
    const walkId = w.pendingWalkId as string;
    const params = w.pendingParams ?? w.params;
    const saved = archive.getWalk(walkId);
    if (saved?.status === 'done') {
      store.completeChain(watchId, ctx.run.startedAt);
      out.stopReason = saved.stopReason;
      return true;
    }
    if (w.pendingKind === 'first' && saved && saved.pagesDone >= ctx.list.firstRunPages) {
      markWalkDone(d, walkId, 'first_run');
      store.completeChain(watchId, ctx.run.startedAt);
      out.stopReason = 'first_run';
      return true;
    }
    if (ctx.signal.aborted) return stop('cancelled', 'the run was cancelled');
    if (out.pages >= maxPagesPerWatch) return stop('page_cap', `the per-run cap of ${maxPagesPerWatch} pages for one watch was reached`);

    // max_pages (issue 15): up to 5 pages in one request and one rate slot where the service
    // itself stops at the chain's boundary (stop_at_id / since) or the pages still wanted are
    // known (a first run's baseline); a walk down to the first held item goes a page at a time,
    // so no page past that item is ever paid for
    const done = saved?.pagesDone ?? 0;
    /** the saved cursor's position (below `done` while a restarted walk re-reads held pages) */
    const at = saved ? (saved.rewalkAt ?? saved.pagesDone) : 0;
    const bounded = params.stop_at_id !== undefined || params.since !== undefined;
    let want = 1;
    if (accepts(ep, 'max_pages') && params.max_pages === undefined) {
      const capLeft = maxPagesPerWatch - out.pages;
      if (w.pendingKind === 'first') want = Math.min(5, ctx.list.firstRunPages - done, capLeft);
      else if (bounded) want = Math.min(5, capLeft);
      want = Math.max(1, want);
    }
    const holdAt = async (n: number): Promise<number> => {
      const p = n > 1 ? { ...params, max_pages: String(n) } : params;
      try {
        return await ctx.api.hold({ platform: w.platform, endpoint: w.endpoint, params: p });
      } catch {
        return holdOf(ep, p); // the quote could not be had: the parameters' own multipliers stand
      }
    };
    let hold = await holdAt(want);
    let reserved = await ctx.budget.reserve(hold, ctx.signal);
    if (!reserved && want > 1 && !ctx.signal.aborted) {
      // the budget cannot hold several pages: one page may still fit
      want = 1;
      hold = await holdAt(1);
      reserved = await ctx.budget.reserve(hold, ctx.signal);
    }
    if (!reserved) {
      if (ctx.signal.aborted) return stop('cancelled', 'the run was cancelled');
      return stop(
        'budget',
        `${ctx.budgetLabel} reached (the next page holds ${fmt(hold)} credits, ${fmt(ctx.budget.remaining ?? 0)} left)`,
      );
    }
    let page: CallResult | null = null;
    let res: WalkResult;
    const target = { platform: w.platform, endpoint: w.endpoint, params };
    // one request per reserved hold (maxRequests), and a restart after a rejected cursor may re-read
    // held pages at a page's price: the run's budget is the standing approval, each request reserved
    const common = {
      source,
      priority: 'background' as const,
      signal: ctx.signal,
      maxRequests: 1,
      payRestart: true,
      onPage: (p: { result: CallResult }) => (page = p.result),
    };
    try {
      if (!saved) {
        res = await ctx.api.walk(target, { ...common, walkId, maxPages: want });
      } else {
        const nextOp = `walk:${walkId}:page:${saved.pagesDone + 1}`;
        const j = archive.findJournal(nextOp);
        if (saved.status === 'failed' && j?.state === 'failed') {
          // that page failed for good (nothing to replay): continue the same chain in a new walk
          // from the saved cursor, so the page gets a fresh idempotency key
          const cont = randomUUID();
          const p2 = saved.cursor !== null ? { ...params, [saved.cursorParam]: saved.cursor } : params;
          store.setPendingWalk(watchId, cont, params);
          out.walkIds.push(cont);
          res = await ctx.api.walk({ ...target, params: p2 }, { ...common, walkId: cont, maxPages: want, cursorParam: saved.cursorParam });
        } else {
          res = await ctx.api.resumeWalk(walkId, { ...common, maxPages: (saved.rewalkAt ?? saved.pagesDone) + want });
        }
      }
    } catch (e) {
      ctx.budget.settle(hold, 0);
      const err = e instanceof ApiError ? e : null;
      return stop(
        `error:${err?.type ?? err?.kind.toUpperCase() ?? 'INTERNAL'}`,
        `the walk could not run: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    const got = page as CallResult | null;
    ctx.budget.settle(hold, got?.creditsUsed ?? 0);
    if (!out.walkIds.includes(res.walkId)) out.walkIds.push(res.walkId);

    let heldHit = 0;
    if (got) {
      // the pages that request walked (several under max_pages)
      out.pages += Math.max(1, res.walkId === walkId ? (res.rewalkAt ?? res.pagesDone) - at : (res.rewalkAt ?? res.pagesDone));
      out.credits += got.creditsUsed;
      const items = pageRows(w.platform, got.envelope, w.endpoint);
      // pinned posts never end a walk, and a row whose pin state is unknown only where it stands
      // in date order (page-rows.ts): an old pinned post at the top is never "already held"
      heldHit = store.heldBefore(watchId, chainId, stopEvidence(items));
      const newest = newestRow(items);
      if (newest && newerThan(newest, w.pendingNewestId, w.pendingNewestAt)) store.setPendingNewest(watchId, newest.id, newest.at);
      out.newItems += store.addItems(watchId, chainId, ctx.run.runId, clock.now(), items);
      out.itemsSeen += items.length;
      ctx.progress();
    }

    if (res.status === 'done') {
      store.completeChain(watchId, ctx.run.startedAt);
      out.stopReason = res.stopReason;
      return true;
    }
    if (res.status === 'paused' && res.stopReason === 'page_limit') {
      if (heldHit > 0) {
        markWalkDone(d, res.walkId, 'known_item');
        store.completeChain(watchId, ctx.run.startedAt);
        out.stopReason = 'known_item';
        return true;
      }
      continue;
    }
    if (res.status === 'cancelled')
      return stop(
        'cancelled',
        'the run was cancelled while a page was in flight (a page answered meanwhile replays for free under the same idempotency key)',
      );
    if (res.status === 'paused') {
      return stop('balance', `not enough credits for the next page (${res.error?.message ?? 'the hold exceeds the known balance'})`);
    }
    // failed
    if (res.error?.type === 'INVALID_CURSOR' && !restarted) {
      // the saved cursor expired between runs (spec: start again without a cursor). Restart the
      // chain's walk from the head with the SAME params (old stop_at_id / since): pages already
      // read are paid again, but nothing between the head and the old marker is skipped. The
      // chain's newest item is reset so the marker lands on the newest item the restart sees.
      restarted = true;
      const fresh = randomUUID();
      store.setPending(watchId, { walkId: fresh, chainId, params, kind: w.pendingKind ?? 'head', newestId: null, newestAt: null });
      out.walkIds.push(fresh);
      out.restarts++;
      continue;
    }
    const type = res.error?.type ?? res.error?.kind ?? 'ERROR';
    const retries = res.error?.attempts !== undefined ? ` after ${res.error.attempts} attempts` : '';
    return stop(
      res.stopReason ?? `error:${type}`,
      `page ${res.pagesDone + 1} failed (${type}${retries}): ${res.error?.message ?? 'no detail'}`,
      'the next run retries that page from the saved cursor',
    );
  }
}

/**
 * One watch's part of a run: its unfinished chain first (with its original params), then a new
 * head chain down to the marker. What happened is left in `ctx.outcomes` and stored per run.
 */
export async function runWatch(d: ChainDeps, ctx: RunCtx, w0: WatchRow): Promise<void> {
  const { store } = d;
  const out = ctx.outcomes.get(w0.watchId) as WatchOutcome;
  try {
    const ep = endpointOf(ctx.api, w0);
    // 1. the unfinished chain first, with its original params (old stop_at_id)
    if (w0.pendingWalkId) {
      out.firstRun = w0.pendingKind === 'first';
      if (!(await driveChain(d, ctx, ep, w0.watchId, out))) return;
    }
    // 2. a new head chain down to the (possibly just advanced) marker
    const w = store.watch(w0.watchId) as WatchRow;
    const kind: ChainKind = w.lastCompleteAt === null ? 'first' : 'head';
    if (kind === 'first') out.firstRun = true;
    const walkId = randomUUID();
    store.setPending(w.watchId, { walkId, chainId: randomUUID(), params: headParams(w, ep), kind, newestId: null, newestAt: null });
    out.walkIds.push(walkId);
    if (!(await driveChain(d, ctx, ep, w.watchId, out))) return;
    out.complete = true;
    out.gap = null;
  } catch (e) {
    out.complete = false;
    out.stopReason = `error:${e instanceof ApiError ? (e.type ?? e.kind.toUpperCase()) : 'INTERNAL'}`;
    out.gap = `the watch could not run: ${e instanceof Error ? e.message : String(e)}; nothing was marked as held, the next run tries again.`;
  } finally {
    out.finished = true;
    store.putRunWatch({ runId: ctx.run.runId, ...out });
  }
}
