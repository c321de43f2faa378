/**
 * The request of a page (docs/request-core.md "Walker", "Rejected cursor"): sent as the logical
 * operation of its page; a failure ends the walk, except a refused cursor, which switches the walk
 * to the entry's own paging parameter once or starts it over from the head.
 */
import { ApiError } from '../errors';
import type { CallResult } from '../types';
import type { PagePlan, Stop, WalkDrive } from './context';
import { pageOpKey, positionOf } from './restart';

/**
 * The request, as the logical operation of its page (`walk:<id>:page:<n>`; a held page after a
 * restart from the service, not the archive). A failure ends the walk, except a refused cursor
 * (`again`: the walk switched paging style or started over).
 */
export async function sendPage(d: WalkDrive, plan: PagePlan): Promise<CallResult | 'again' | Stop> {
  const { core, state, o } = d;
  try {
    return await core.call(d.target(plan.params), {
      source: state.source,
      priority: d.priority,
      fresh: o.fresh,
      // a held page after a restart comes from the service: the archive's copy carries the old cursors
      ...(plan.rereading ? { archive: false } : {}),
      signal: o.signal,
      walkId: state.walkId,
      opKey: pageOpKey(state, plan.pageNumber),
    });
  } catch (e) {
    const error =
      e instanceof ApiError ? e : new ApiError({ kind: 'network', message: `Walk page ${plan.pageNumber} failed: ${String(e)}.` });
    if (error.creditsCharged) state.creditsSpent += error.creditsCharged;
    if (error.kind === 'cancelled') return { stop: d.finish('cancelled', 'cancelled', error) };
    if (error.kind === 'insufficient_local') return { stop: d.finish('paused', 'credit_limit', error) };
    if (error.kind === 'rate_wait') return { stop: d.finish('paused', 'rate_limited', error) };
    if (error.kind === 'storage') return { stop: d.finish('failed', 'error:STORAGE', error) };
    if (state.cursor !== null && state.cursorParam !== 'until' && refusedCursor(error) && onRefusedCursor(d, error)) return 'again';
    return { stop: d.finish('failed', `error:${error.type ?? error.kind.toUpperCase()}`, error) };
  }
}

/** Refusals that page 1 would get as well: they say nothing about the cursor. */
const NOT_ABOUT_THE_CURSOR = new Set([
  'MISSING_API_KEY',
  'INVALID_API_KEY',
  'API_KEY_REVOKED',
  'INSUFFICIENT_CREDITS',
  'UNKNOWN_PLATFORM',
  'UNKNOWN_ENDPOINT',
  'METHOD_NOT_SUPPORTED',
  'RATE_LIMITED',
  'CONCURRENCY_LIMIT',
  'IDEMPOTENCY_IN_PROGRESS',
]);

/** A free 4xx on a page sent with a cursor that page 1 would not get: the cursor was rejected (rule 4 names no type). */
export function refusedCursor(e: ApiError): boolean {
  if (e.kind !== 'api' || e.status === undefined || e.status < 400 || e.status >= 500) return false;
  if (e.status === 401 || e.status === 402 || e.status === 429) return false;
  return !(e.type && NOT_ABOUT_THE_CURSOR.has(e.type));
}

/**
 * The service refused the position sent: the entry's native parameter once where `cursor` was
 * refused (rule 5: one style per walk), else start over from the head — only when the walk got
 * further than at the last rejection (never a loop). False: the walk fails.
 */
export function onRefusedCursor(d: WalkDrive, error: ApiError): boolean {
  const { state } = d;
  const why = error.type ?? `HTTP ${error.status}`;
  if (state.cursorParam === 'cursor' && d.native && !d.listsCursor && !d.triedNative) {
    d.triedNative = true;
    state.cursorParam = d.native;
    d.note(
      `The service refused 'cursor' on ${state.platform}/${state.endpoint} (${why}); the walk continues with its own paging parameter '${d.native}'.`,
      'paging_param',
    );
    d.save();
    return true;
  }
  const at = positionOf(state);
  if (d.lastRejectedAt !== null && at <= d.lastRejectedAt) return false;
  d.lastRejectedAt = at;
  d.restarted = true;
  state.restarts = (state.restarts ?? 0) + 1;
  // the pages it held are re-read (not counted again): free inside their cache window
  state.rewalkAt = state.pagesDone > 0 ? 0 : null;
  d.note(
    `The service rejected the saved position (${why}, free); the walk started again from the first page — the ${state.pagesDone} page(s) it already held are read again (free where the service answered them inside their cache window, and not counted twice), and no row is stored twice.`,
    'cursor_rejected',
  );
  state.cursor = null;
  d.pass = 0;
  d.seen.clear();
  d.seenIds.clear();
  d.save();
  return true;
}
