import { randomUUID } from 'node:crypto';
import type { CatalogueEndpoint } from '../../../shared/api-types';
import type { CallTarget, WalkState } from '../../ports';
import { canonicalParams, normalizeEndpoint } from '../canonical';
import { nativePagingParamOf, paramNames } from '../catalogue';
import type { CoreInternals } from '../internals';
import { ApiError } from '../errors';
import type { WalkOptions, WalkResult } from '../types';
import { accountPage, recallHeldBack } from './account';
import { advance } from './advance';
import { isStop, WalkDrive } from './context';
import { planPage, stopBefore } from './plan';
import { sendPage } from './send';

/**
 * The walker (spec "Pagination rules", "Incremental sync"; docs/request-core.md "Walker").
 * - `pagination.next_cursor` goes back byte for byte as `cursor` (rule 1). Where a catalogue entry
 *   lists only a native paging parameter, `cursor` is still tried first; a free 4xx on it switches
 *   the walk to the native parameter (rule 5: one style per walk).
 * - A free 4xx on a page sent with a cursor that page 1 did not get means the cursor was rejected
 *   (rule 4: no error type is named): the walk starts again without a cursor, re-reading the pages
 *   it held — free where the exact call was answered inside its cache window, else only once the
 *   user approved (restart.ts) — at most once per stretch of progress, never a loop.
 * - `has_more` is the only stop signal; a cursor seen before, or a page of rows this walk already
 *   has, stops it (never pay for the same rows twice).
 * - Endpoints without cursor paging but with `until` (open-protocol search) walk back in time:
 *   `until` = the oldest `published_at` of the last page, rows deduplicated on id.
 * - Comment walks page by `sort=recent` where the endpoint offers it (a `top` walk repeats).
 * - A row-cap `limit` (one that does not multiply the quote) is left off walks: it trims each page
 *   while the cursor skips the rest, so the walk would pay for rows it never sees.
 * - fit=goal stubs are recalled in full (free, from the service's cache) and never archived as rows.
 * - saves WalkState after every page; page n of walk w is the logical operation `walk:<w>:page:<n>`
 *   (`walk:<w>:r<k>:page:<n>` after its k-th restart).
 * The page loop (`drive`) is a short loop of stages over the run's typed context (context.ts),
 * each its own module, tested on its own against a scripted core (stages.test.ts):
 *   stopBefore → planPage (plan.ts) → sendPage (send.ts) → accountPage → recallHeldBack
 *   (account.ts) → advance (advance.ts); a restart's re-reads in restart.ts.
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
      notes.push(
        `limit=${fixed.limit} trims each page while the cursor skips the rest of it, so the walk fetches whole pages instead (same price per page).`,
      );
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
async function isRowCap(
  core: CoreInternals,
  ep: CatalogueEndpoint,
  platform: string,
  endpoint: string,
  fixed: Record<string, string>,
): Promise<boolean> {
  const without = { ...fixed };
  delete without.limit;
  const withHold = await core.holdOf(ep, { platform, endpoint, params: fixed });
  const withoutHold = await core.holdOf(ep, { platform, endpoint, params: without });
  return withHold <= withoutHold;
}

function storageOf(e: unknown): ApiError | null {
  return e instanceof ApiError && e.kind === 'storage' ? e : null;
}

/**
 * The page loop: each stage either hands the next what it needs or ends the walk (`Stop`); a
 * refused cursor (`again`) goes round once more from the new position.
 */
async function drive(core: CoreInternals, ep: CatalogueEndpoint, state: WalkState, o: WalkOptions, notes: string[]): Promise<WalkResult> {
  const d = new WalkDrive(core, ep, state, o, notes);
  for (;;) {
    const limit = stopBefore(d);
    if (limit) return limit.stop;
    const plan = await planPage(d);
    if (isStop(plan)) return plan.stop;
    const r = await sendPage(d, plan);
    if (r === 'again') continue;
    if (isStop(r)) return r.stop;
    const read = await accountPage(d, plan, r);
    const end = (await recallHeldBack(d, plan, r)) ?? advance(d, plan, r, read);
    if (end) return end.stop;
  }
}
