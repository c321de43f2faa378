import { randomUUID } from 'node:crypto';
import type { CatalogueEndpoint, Pagination } from '../../shared/api-types';
import type { CallTarget, WalkState } from '../ports';
import { canonicalParams, normalizeEndpoint } from './canonical';
import { holdOf, pagingParamOf } from './catalogue';
import type { CoreInternals } from './core';
import { ApiError } from './errors';
import type { CallResult, WalkOptions, WalkResult } from './types';

/**
 * The cursor walker (spec "Pagination rules", "Incremental sync").
 * - sends `pagination.next_cursor` back byte for byte in the walk's paging parameter
 *   (URLSearchParams encodes it exactly once; it is never decoded or rebuilt);
 * - `has_more` is the only stop signal: empty pages do not stop a walk;
 * - a cursor seen before on this walk stops it with an error (REPEATED_CURSOR), never a loop;
 * - since / until / stop_at_id / recent_days / max_pages are fixed params, sent on every page;
 * - saves WalkState after every page; page n of walk w is the logical operation
 *   `walk:<w>:page:<n>`, so a page in flight when the process died is re-sent with the same
 *   Idempotency-Key on resume and the service replays it for free;
 * - retries (429/503...) happen inside `call` on the same cursor: a page is never skipped.
 */
export async function runWalk(core: CoreInternals, target: CallTarget, o: WalkOptions): Promise<WalkResult> {
  const ep = await core.endpoint(target);
  const platform = String(target.platform);
  const endpoint = normalizeEndpoint(platform, ep.path);
  const cursorParam = o.cursorParam ?? pagingParamOf(ep);
  const fixed = { ...target.params };
  // a starting position given by the caller is the first page's cursor, not a fixed param
  let startCursor: string | null = null;
  for (const p of new Set([cursorParam, 'cursor'])) {
    if (fixed[p] !== undefined) {
      startCursor = fixed[p];
      delete fixed[p];
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
  core.store.saveWalk(state);
  return drive(core, ep, state, o);
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
      state: saved,
    };
  const params = JSON.parse(saved.params) as Record<string, string>;
  const ep = await core.endpoint({ platform: saved.platform, endpoint: saved.endpoint, params });
  const state: WalkState = { ...saved, status: 'running', stopReason: null, error: null, updatedAt: core.clock.now() };
  core.store.saveWalk(state);
  return drive(core, ep, state, { ...o, source: o.source ?? saved.source });
}

async function drive(core: CoreInternals, ep: CatalogueEndpoint, state: WalkState, o: WalkOptions): Promise<WalkResult> {
  const fixed = JSON.parse(state.params) as Record<string, string>;
  const priority = o.priority ?? 'background';
  const seen = new Set<string>();
  if (state.cursor !== null) seen.add(state.cursor);
  let newItems = 0;
  let error: ApiError | undefined;
  let lastStoppedAt: WalkResult['stoppedAt'] = null;
  let lastWalkStopped: string | null = null;

  const finish = (status: WalkState['status'], reason: string | null, err?: ApiError): WalkResult => {
    state.status = status;
    state.stopReason = reason;
    state.error = err ? err.message : null;
    state.updatedAt = core.clock.now();
    core.store.saveWalk(state);
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
      ...(err ? { error: err } : {}),
      state: { ...state },
    };
  };
  const progress = () => {
    const left = o.maxPages !== undefined ? Math.max(0, o.maxPages - state.pagesDone) : null;
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
    });
  };

  for (;;) {
    if (o.signal?.aborted) return finish('cancelled', 'cancelled', new ApiError({ kind: 'cancelled', message: 'Walk cancelled; resume it to continue from the saved position.' }));
    if (o.maxPages !== undefined && state.pagesDone >= o.maxPages) return finish('paused', 'page_limit');
    const params: Record<string, string> = { ...fixed };
    if (state.cursor !== null) params[state.cursorParam] = state.cursor;
    const hold = holdOf(ep, params);
    if (o.maxCredits !== undefined && state.creditsSpent + hold > o.maxCredits) return finish('paused', 'credit_limit');

    const pageNumber = state.pagesDone + 1;
    let r: CallResult;
    try {
      r = await core.call(
        { platform: state.platform, endpoint: state.endpoint, params },
        {
          source: state.source,
          priority,
          fresh: o.fresh,
          signal: o.signal,
          walkId: state.walkId,
          opKey: `walk:${state.walkId}:page:${pageNumber}`,
        },
      );
    } catch (e) {
      error = e instanceof ApiError ? e : new ApiError({ kind: 'network', message: `Walk page ${pageNumber} failed: ${String(e)}.` });
      if (error.kind === 'cancelled') return finish('cancelled', 'cancelled', error);
      if (error.kind === 'insufficient_local') return finish('paused', 'credit_limit', error);
      return finish('failed', `error:${error.type ?? error.kind.toUpperCase()}`, error);
    }

    const env = r.envelope;
    const items = listItemsOf(env);
    state.pagesDone = pageNumber;
    state.creditsSpent += r.creditsUsed;
    state.itemsSeen += items.length;
    newItems += r.newItems;
    state.updatedAt = core.clock.now();
    const pg: Pagination | undefined = env.pagination;
    o.onPage?.({ walkId: state.walkId, pageNumber, result: r });

    const stoppedAt = pg?.stopped_at ?? null;
    const walkStopped = (env.data as { walk?: { stopped?: string } }).walk?.stopped;
    lastStoppedAt = stoppedAt;
    lastWalkStopped = walkStopped ?? null;
    if (!pg || pg.has_more !== true) {
      state.cursor = null;
      return finish('done', stoppedAt && stoppedAt !== 'end' ? stoppedAt : 'end');
    }
    const next = pg.next_cursor;
    if (next === null || next === undefined || next === '') {
      // has_more but no position: a boundary (since / stop_at_id / recent_days) ended the walk
      state.cursor = null;
      return finish('done', stoppedAt ?? (walkStopped && walkStopped !== 'max_pages' ? walkStopped : 'end'));
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
    seen.add(next);
    state.cursor = next;
    core.store.saveWalk(state);
    progress();
  }
}

function listItemsOf(env: { data: unknown }): unknown[] {
  const items = (env.data as { items?: unknown } | null)?.items;
  return Array.isArray(items) ? items : [];
}
