import { randomUUID } from 'node:crypto';
import type { CatalogueEndpoint, Pagination } from '../../shared/api-types';
import type { CallTarget, WalkState } from '../ports';
import { readItems } from '../archive/extract';
import { canonicalParams, normalizeEndpoint } from './canonical';
import { nativePagingParamOf, paramNames, priceOf } from './catalogue';
import type { CoreInternals } from './internals';
import { ApiError } from './errors';
import type { CallResult, WalkOptions, WalkResult } from './types';
import { freeReread, pageOpKey, positionOf, restartCostNote } from './walk-restart';

/**
 * The walker (spec "Pagination rules", "Incremental sync"; docs/request-core.md "Walker").
 * - `pagination.next_cursor` goes back byte for byte as `cursor` (rule 1). Where a catalogue entry
 *   lists only a native paging parameter, `cursor` is still tried first; a free 4xx on it switches
 *   the walk to the native parameter (rule 5: one style per walk).
 * - A free 4xx on a page sent with a cursor that page 1 did not get means the cursor was rejected
 *   (rule 4: no error type is named): the walk starts again without a cursor — pages already held
 *   inside their cache window cost nothing — at most once per stretch of progress, never a loop.
 * - `has_more` is the only stop signal; a cursor seen before, or a page of rows this walk already
 *   has, stops it (never pay for the same rows twice).
 * - Endpoints without cursor paging but with `until` (open-protocol search) walk back in time:
 *   `until` = the oldest `published_at` of the last page, rows deduplicated on id.
 * - Comment walks page by `sort=recent` where the endpoint offers it (a `top` walk repeats).
 * - A row-cap `limit` (one that does not multiply the quote) is left off walks: it trims each page
 *   while the cursor skips the rest, so the walk would pay for rows it never sees.
 * - fit=goal stubs are recalled in full (free, from the service's cache) and never archived as rows.
 * - saves WalkState after every page; page n of walk w is the logical operation `walk:<w>:page:<n>`.
 */
export async function runWalk(core: CoreInternals, target: CallTarget, o: WalkOptions): Promise<WalkResult> {
  const ep = await core.endpoint(target);
  const platform = String(target.platform);
  const endpoint = normalizeEndpoint(platform, ep.path);
  const fixed = { ...target.params };
  const notes: string[] = [];
  const byUntil = untilPaged(ep);
  const cursorParam = o.cursorParam ?? (byUntil ? 'until' : 'cursor');
  // a starting position given by the caller is the first page's cursor, not a fixed param
  let startCursor: string | null = null;
  // (an integer `page` is a page number the caller chose, not a token: it stays a fixed parameter)
  const native = nativePagingParamOf(ep);
  const positional = byUntil ? ['until'] : [...new Set([cursorParam, 'cursor', native && native !== 'page' ? native : 'cursor'])];
  for (const p of positional) {
    if (fixed[p] !== undefined) {
      startCursor = fixed[p];
      delete fixed[p];
    }
  }
  const multi = o.maxPages === undefined || o.maxPages > 1;
  if (multi) {
    const sort = ep.params.find((p) => p.name === 'sort');
    if (fixed.sort === undefined && /comment|repl/i.test(ep.path) && sort?.enum?.includes('recent') && sort.enum.includes('top')) {
      fixed.sort = 'recent';
      notes.push('Comments are walked newest first (sort=recent): a sort=top walk repeats comments past the popular head.');
    }
    if (fixed.limit !== undefined && ep.paginates && (await isRowCap(core, ep, platform, endpoint, fixed))) {
      notes.push(`limit=${fixed.limit} trims each page while the cursor skips the rest of it, so the walk fetches whole pages instead (same price per page).`);
      delete fixed.limit;
    }
  }
  const now = core.clock.now();
  const state: WalkState = {
    walkId: o.walkId ?? randomUUID(),
    platform,
    endpoint,
    params: canonicalParams(fixed),
    cursorParam,
    cursor: startCursor,
    pagesDone: 0,
    creditsSpent: 0,
    itemsSeen: 0,
    status: 'running',
    stopReason: null,
    source: o.source ?? 'walk',
    createdAt: now,
    updatedAt: now,
    error: null,
  };
  for (const n of notes) {
    core.log(`walk ${state.walkId}: ${n}`);
    core.events.emit('warning', { code: 'walk_note', message: n });
  }
  try {
    core.store.saveWalk(state);
  } catch (e) {
    throw storageOf(e) ?? e;
  }
  return drive(core, ep, state, o, notes);
}

export async function resumeWalk(core: CoreInternals, walkId: string, o: Omit<WalkOptions, 'walkId' | 'cursorParam'>): Promise<WalkResult> {
  const saved = core.store.getWalk(walkId);
  if (!saved) throw new ApiError({ kind: 'validation', message: `No saved walk with id ${walkId}.` });
  if (saved.status === 'done')
    return {
      walkId,
      status: 'done',
      stopReason: saved.stopReason,
      pagesDone: saved.pagesDone,
      creditsSpent: saved.creditsSpent,
      itemsSeen: saved.itemsSeen,
      newItems: 0,
      cursor: saved.cursor,
      stoppedAt: null,
      walkStopped: null,
      unreadable: 0,
      heldBack: 0,
      notes: [],
      rewalkAt: null,
      restarted: false,
      state: saved,
    };
  const params = JSON.parse(saved.params) as Record<string, string>;
  const ep = await core.endpoint({ platform: saved.platform, endpoint: saved.endpoint, params });
  const state: WalkState = { ...saved, status: 'running', stopReason: null, error: null, updatedAt: core.clock.now() };
  try {
    core.store.saveWalk(state);
  } catch (e) {
    throw storageOf(e) ?? e;
  }
  return drive(core, ep, state, { ...o, source: o.source ?? saved.source }, []);
}

/** Endpoints that page by `until` instead of a cursor (open-protocol microblog search). */
function untilPaged(ep: CatalogueEndpoint): boolean {
  const names = paramNames(ep);
  return names.has('until') && !names.has('cursor') && nativePagingParamOf(ep) === null && !ep.paginates;
}

/** A `limit` that does not raise the service's quote is a row cap, not collect-until-N. */
async function isRowCap(core: CoreInternals, ep: CatalogueEndpoint, platform: string, endpoint: string, fixed: Record<string, string>): Promise<boolean> {
  const without = { ...fixed };
  delete without.limit;
  const withHold = await core.holdOf(ep, { platform, endpoint, params: fixed });
  const withoutHold = await core.holdOf(ep, { platform, endpoint, params: without });
  return withHold <= withoutHold;
}

/** Refusals that page 1 would get as well: they say nothing about the cursor. */
const NOT_ABOUT_THE_CURSOR = new Set([
  'MISSING_API_KEY', 'INVALID_API_KEY', 'API_KEY_REVOKED', 'INSUFFICIENT_CREDITS', 'UNKNOWN_PLATFORM', 'UNKNOWN_ENDPOINT',
  'METHOD_NOT_SUPPORTED', 'RATE_LIMITED', 'CONCURRENCY_LIMIT', 'IDEMPOTENCY_IN_PROGRESS',
]);

function refusedCursor(e: ApiError): boolean {
  if (e.kind !== 'api' || e.status === undefined || e.status < 400 || e.status >= 500) return false;
  if (e.status === 401 || e.status === 402 || e.status === 429) return false;
  return !(e.type && NOT_ABOUT_THE_CURSOR.has(e.type));
}

function storageOf(e: unknown): ApiError | null {
  return e instanceof ApiError && e.kind === 'storage' ? e : null;
}

/**
 * Pages a max_pages request walked. `data.walk.stopped = max_pages` means all of them; no
 * `data.walk` means one (the service did not walk several); otherwise
 * (the list ended, a page failed, the time budget ran out) fewer, and since each page walked is
 * billed as one call (rule 8) the charge bounds them: the price per page is at least the floor.
 */
function pagesWalked(asked: number, stopped: string | undefined, r: CallResult, ep: CatalogueEndpoint): number {
  if (asked <= 1 || stopped === 'max_pages') return asked;
  // no data.walk: the service did not report a multi-page walk — count what one answer is
  if (stopped === undefined) return 1;
  const floor = priceOf(ep).min;
  if (r.creditsUsed > 0 && floor > 0) return Math.min(asked, Math.max(1, Math.floor(r.creditsUsed / floor)));
  return 1;
}

function oldestPublished(items: Array<{ record: Record<string, unknown> }>): string | null {
  let oldest: string | null = null;
  let oldestMs = Infinity;
  for (const it of items) {
    const p = it.record.published_at;
    if (typeof p !== 'string') continue;
    const ms = Date.parse(p);
    if (Number.isFinite(ms) && ms < oldestMs) {
      oldestMs = ms;
      oldest = p;
    }
  }
  return oldest;
}

async function drive(core: CoreInternals, ep: CatalogueEndpoint, state: WalkState, o: WalkOptions, notes: string[]): Promise<WalkResult> {
  const fixed = JSON.parse(state.params) as Record<string, string>;
  const priority = o.priority ?? 'background';
  const native = nativePagingParamOf(ep);
  const listsCursor = paramNames(ep).has('cursor');
  const seen = new Set<string>();
  const seenIds = new Set<string>();
  if (state.cursor !== null) seen.add(state.cursor);
  let newItems = 0;
  let unreadable = 0;
  let heldBack = 0;
  let lastStoppedAt: WalkResult['stoppedAt'] = null;
  let lastWalkStopped: string | null = null;
  /** where the last cursor rejection happened (a position), in this process */
  const memo = core.restarts.get(state.walkId) ?? { lastRejectedAt: null };
  core.restarts.set(state.walkId, memo);
  let { lastRejectedAt } = memo;
  const remember = () => Object.assign(memo, { lastRejectedAt });
  let restarted = false;
  /** page requests made in this call (maxRequests), and since the walk last started over */
  let requests = 0;
  let pass = 0;
  let triedNative = state.cursorParam !== 'cursor';
  const perRequest = Math.max(1, Math.min(5, o.pagesPerRequest ?? 5));
  const byMaxPages = perRequest > 1 && paramNames(ep).has('max_pages') && fixed.max_pages === undefined && state.cursorParam !== 'until';

  const note = (text: string, code: string) => {
    notes.push(text);
    core.log(`walk ${state.walkId}: ${text}`);
    core.events.emit('warning', { code, message: text });
  };
  const save = () => {
    try {
      core.store.saveWalk(state);
    } catch {
      /* the walk's own bookkeeping: a storage failure is reported by the call that hits it */
    }
  };
  const finish = (status: WalkState['status'], reason: string | null, err?: ApiError): WalkResult => {
    remember();
    if (status === 'done') core.restarts.delete(state.walkId);
    state.status = status;
    state.stopReason = reason;
    state.error = err ? err.message : null;
    state.updatedAt = core.clock.now();
    save();
    progress();
    return {
      walkId: state.walkId,
      status,
      stopReason: reason,
      pagesDone: state.pagesDone,
      creditsSpent: state.creditsSpent,
      itemsSeen: state.itemsSeen,
      newItems,
      cursor: state.cursor,
      stoppedAt: lastStoppedAt,
      walkStopped: lastWalkStopped,
      unreadable,
      heldBack,
      notes: [...notes],
      rewalkAt: state.rewalkAt ?? null,
      restarted,
      ...(err ? { error: err } : {}),
      state: { ...state },
    };
  };
  const progress = () => {
    const left = o.maxPages !== undefined ? Math.max(0, o.maxPages - positionOf(state)) : null;
    core.events.emit('walk-progress', {
      walkId: state.walkId,
      platform: state.platform,
      endpoint: state.endpoint,
      pagesDone: state.pagesDone,
      maxPages: o.maxPages ?? null,
      creditsSpent: state.creditsSpent,
      itemsSeen: state.itemsSeen,
      newItems,
      status: state.status,
      stopReason: state.stopReason,
      etaMs: left === null ? null : state.status === 'running' ? core.eta(left, priority) : 0,
      rewalkAt: state.rewalkAt ?? null,
    });
  };

  for (;;) {
    if (o.signal?.aborted) return finish('cancelled', 'cancelled', new ApiError({ kind: 'cancelled', message: 'Walk cancelled; resume it to continue from the saved position.' }));
    if (o.maxPages !== undefined && positionOf(state) >= o.maxPages) return finish('paused', 'page_limit');
    if (o.maxRequests !== undefined && requests >= o.maxRequests) return finish('paused', 'page_limit');
    /** re-reading a page this walk already held, after a restart */
    const rereading = state.rewalkAt !== undefined && state.rewalkAt !== null;
    let params: Record<string, string> = { ...fixed };
    if (state.cursor !== null) params[state.cursorParam] = state.cursor;
    let hold: number;
    let pagesAsked = 1;
    try {
      hold = await core.holdOf(ep, { platform: state.platform, endpoint: state.endpoint, params });
      // max_pages (Pagination rule 8): up to 5 pages in one request and one rate slot, billed per
      // page, holding ceiling × pages — as many as the pages still wanted, the budget and the
      // balance allow
      if (byMaxPages) {
        let fit = Math.min(perRequest, o.maxPages !== undefined ? o.maxPages - positionOf(state) : perRequest);
        if (o.maxCredits !== undefined) fit = Math.min(fit, Math.floor((o.maxCredits - state.creditsSpent) / Math.max(1, hold)));
        const bal = core.balance();
        if (bal !== null) fit = Math.min(fit, Math.floor(bal / Math.max(1, hold)));
        if (fit > 1) {
          pagesAsked = fit;
          params.max_pages = String(fit);
          hold = await core.holdOf(ep, { platform: state.platform, endpoint: state.endpoint, params });
        }
      }
    } catch (e) {
      if (e instanceof ApiError) return finish('failed', `error:${e.type ?? e.kind.toUpperCase()}`, e);
      throw e;
    }
    if (rereading) {
      // a held page is asked of the service again (for current cursors): certainly free only as
      // the exact call answered inside its cache window; otherwise the user approves it first
      const free = freeReread(core, ep, state, params, { byMaxPages, most: pagesAsked, fresh: !!o.fresh });
      if (free) {
        params = free.params;
        pagesAsked = free.pages;
        try {
          hold = await core.holdOf(ep, { platform: state.platform, endpoint: state.endpoint, params });
        } catch (e) {
          if (e instanceof ApiError) return finish('failed', `error:${e.type ?? e.kind.toUpperCase()}`, e);
          throw e;
        }
      } else if (!o.payRestart) {
        note(restartCostNote(ep, state), 'restart_costs');
        return finish('paused', 'restart_costs');
      }
    }
    if (o.maxCredits !== undefined && state.creditsSpent + hold > o.maxCredits) return finish('paused', 'credit_limit');

    const pageNumber = positionOf(state) + 1;
    let r: CallResult;
    try {
      r = await core.call(
        { platform: state.platform, endpoint: state.endpoint, params },
        {
          source: state.source,
          priority,
          fresh: o.fresh,
          // a held page after a restart comes from the service: the archive's copy carries the old cursors
          ...(rereading ? { archive: false } : {}),
          signal: o.signal,
          walkId: state.walkId,
          opKey: pageOpKey(state, pageNumber),
        },
      );
    } catch (e) {
      const error = e instanceof ApiError ? e : new ApiError({ kind: 'network', message: `Walk page ${pageNumber} failed: ${String(e)}.` });
      if (error.creditsCharged) state.creditsSpent += error.creditsCharged;
      if (error.kind === 'cancelled') return finish('cancelled', 'cancelled', error);
      if (error.kind === 'insufficient_local') return finish('paused', 'credit_limit', error);
      if (error.kind === 'rate_wait') return finish('paused', 'rate_limited', error);
      if (error.kind === 'storage') return finish('failed', 'error:STORAGE', error);
      if (state.cursor !== null && state.cursorParam !== 'until' && refusedCursor(error)) {
        if (state.cursorParam === 'cursor' && native && !listsCursor && !triedNative) {
          // the entry lists only a native parameter and the service refused `cursor`: switch style
          triedNative = true;
          state.cursorParam = native;
          note(`The service refused 'cursor' on ${state.platform}/${state.endpoint} (${error.type ?? `HTTP ${error.status}`}); the walk continues with its own paging parameter '${native}'.`, 'paging_param');
          save();
          continue;
        }
        const at = positionOf(state);
        if (lastRejectedAt === null || at > lastRejectedAt) {
          // only when the walk got further than at the last rejection: never a loop
          lastRejectedAt = at;
          restarted = true;
          state.restarts = (state.restarts ?? 0) + 1;
          // the pages it held are re-read (not counted again): free inside their cache window
          state.rewalkAt = state.pagesDone > 0 ? 0 : null;
          note(
            `The service rejected the saved position (${error.type ?? `HTTP ${error.status}`}, free); the walk started again from the first page — the ${state.pagesDone} page(s) it already held are read again (free where the service answered them inside their cache window, and not counted twice), and no row is stored twice.`,
            'cursor_rejected',
          );
          state.cursor = null;
          pass = 0;
          seen.clear();
          seenIds.clear();
          save();
          continue;
        }
      }
      return finish('failed', `error:${error.type ?? error.kind.toUpperCase()}`, error);
    }

    const env = r.envelope;
    const read = readItems(env.data);
    requests++;
    pass++;
    const reached = pageNumber - 1 + pagesWalked(pagesAsked, (env.data as { walk?: { stopped?: string } }).walk?.stopped, r, ep);
    if (rereading) {
      // a page read again is not a page more; the walk is past its held pages once it reaches them
      if (reached >= state.pagesDone) {
        state.pagesDone = reached;
        state.rewalkAt = null;
      } else state.rewalkAt = reached;
      state.itemsSeen += r.newItems;
    } else {
      state.pagesDone = reached;
      state.itemsSeen += read.items.length;
    }
    state.creditsSpent += r.creditsUsed;
    newItems += r.newItems;
    // rows without an id of their own (issue 24 #3): kept raw in the stored answer, never merged
    // into another item — counted and said (also for a page served from the archive)
    unreadable += read.unreadable;
    if (read.unreadable > 0)
      note(`Page ${pageNumber}: ${read.unreadable} row(s) could not be read as records (no id of their own); they are kept raw in the stored answer, not archived as items.`, 'unreadable_rows');
    state.updatedAt = core.clock.now();
    // a page's consumer may hold the walk here (the CLI waits while its reader catches up)
    await o.onPage?.({ walkId: state.walkId, pageNumber, result: r });

    // fit=goal: the rows held back are recalled in full (free, from the service's cache)
    const recallId = (env.data as { held_back?: { recall_id?: unknown } }).held_back?.recall_id;
    if (r.heldBack > 0) {
      let recalled = false;
      if (typeof recallId === 'string' && !r.fromArchive) {
        try {
          const full = await core.call(
            { platform: state.platform, endpoint: state.endpoint, params: { ...params, recall: recallId } },
            { source: state.source, priority, signal: o.signal, walkId: state.walkId, opKey: `walk:${state.walkId}:page:${pageNumber}:recall` },
          );
          state.creditsSpent += full.creditsUsed;
          newItems += full.newItems;
          recalled = full.heldBack === 0;
        } catch (e) {
          if (e instanceof ApiError && (e.kind === 'storage' || e.kind === 'cancelled')) return finish(e.kind === 'storage' ? 'failed' : 'cancelled', e.kind === 'storage' ? 'error:STORAGE' : 'cancelled', e);
        }
      }
      if (!recalled) {
        heldBack += r.heldBack;
        note(`${r.heldBack} row(s) of page ${pageNumber} were held back by fit=goal and could not be recalled; they were not archived (they are not rows, only stubs).`, 'held_back');
      }
    }

    const pg: Pagination | undefined = env.pagination;
    const stoppedAt = pg?.stopped_at ?? null;
    const walkStopped = (env.data as { walk?: { stopped?: string } }).walk?.stopped;
    lastStoppedAt = stoppedAt;
    lastWalkStopped = walkStopped ?? null;

    // rows this walk already has: a repeating list is never paid for twice
    const ids = read.items.map((it) => `${it.kind}\u0000${it.id}`);
    const fresh = ids.filter((id) => !seenIds.has(id));
    for (const id of ids) seenIds.add(id);
    const repeating = ids.length > 0 && fresh.length <= Math.floor(ids.length * 0.2) && pass > 1;

    if (state.cursorParam === 'until') {
      const oldest = oldestPublished(read.items);
      if (fresh.length === 0 || oldest === null || oldest === state.cursor) {
        state.cursor = null;
        return finish('done', 'end');
      }
      state.cursor = oldest;
      save();
      progress();
      continue;
    }
    if (!pg || pg.has_more !== true) {
      state.cursor = null;
      return finish('done', stoppedAt && stoppedAt !== 'end' ? stoppedAt : 'end');
    }
    const next = pg.next_cursor;
    if (next === null || next === undefined || next === '') {
      // has_more but no position: a boundary (since / stop_at_id / recent_days) ended the walk
      state.cursor = null;
      return finish('done', stoppedAt ?? (walkStopped && walkStopped !== 'max_pages' && walkStopped !== 'page_error' ? walkStopped : 'end'));
    }
    if (seen.has(next)) {
      const err = new ApiError({
        kind: 'api',
        type: 'REPEATED_CURSOR',
        requestId: env.request_id,
        message: `The service sent a cursor this walk already used on page ${pageNumber}; stopped to avoid paying for the same pages again (REPEATED_CURSOR, request ${env.request_id}).`,
      });
      core.events.emit('warning', { code: 'repeated_cursor', message: err.message });
      core.log(`walk ${state.walkId}: ${err.message}`);
      return finish('failed', 'error:REPEATED_CURSOR', err);
    }
    if (repeating) {
      state.cursor = next;
      note(`Page ${pageNumber} repeated rows this walk already has (${ids.length - fresh.length} of ${ids.length}); stopped so the same rows are not paid for again. Resume to continue anyway.`, 'repeating');
      return finish('paused', 'repeating');
    }
    seen.add(next);
    state.cursor = next;
    save();
    progress();
  }
}
