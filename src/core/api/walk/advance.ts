/**
 * Where the walk goes after a page (docs/request-core.md "Walker"; spec "Pagination rules",
 * "Incremental sync"): on to the next cursor, or an end — the list ran out, a boundary, a cursor or
 * rows already had.
 */
import type { Pagination } from '../../../shared/api-types';
import type { ReadItems } from '../../archive';
import { ApiError } from '../errors';
import type { CallResult } from '../types';
import { walkStoppedOf } from './account';
import type { PagePlan, Stop, WalkDrive } from './context';

/**
 * Where the walk goes next: `has_more` is the only stop signal; a boundary (has_more without a
 * cursor) ends it; a cursor already used, or a page of rows this walk already has, stops it
 * (never pay for the same rows twice); `until` paging walks back in time.
 */
export function advance(d: WalkDrive, plan: PagePlan, r: CallResult, read: ReadItems): Stop | null {
  const { state } = d;
  const env = r.envelope;
  const pg: Pagination | undefined = env.pagination;
  const stoppedAt = pg?.stopped_at ?? null;
  const walkStopped = walkStoppedOf(r);
  d.lastStoppedAt = stoppedAt;
  d.lastWalkStopped = walkStopped ?? null;
  const ids = read.items.map((it) => `${it.kind}\u0000${it.id}`);
  const fresh = ids.filter((id) => !d.seenIds.has(id));
  for (const id of ids) d.seenIds.add(id);
  if (state.cursorParam === 'until') return untilNext(d, read, fresh.length);
  if (!pg || pg.has_more !== true) {
    state.cursor = null;
    return { stop: d.finish('done', stoppedAt && stoppedAt !== 'end' ? stoppedAt : 'end') };
  }
  const next = pg.next_cursor;
  if (next === null || next === undefined || next === '') {
    // has_more but no position: a boundary (since / stop_at_id / recent_days) ended the walk
    state.cursor = null;
    return {
      stop: d.finish(
        'done',
        stoppedAt ?? (walkStopped && walkStopped !== 'max_pages' && walkStopped !== 'page_error' ? walkStopped : 'end'),
      ),
    };
  }
  if (d.seen.has(next)) {
    const err = new ApiError({
      kind: 'api',
      type: 'REPEATED_CURSOR',
      requestId: env.request_id,
      message: `The service sent a cursor this walk already used on page ${plan.pageNumber}; stopped to avoid paying for the same pages again (REPEATED_CURSOR, request ${env.request_id}).`,
    });
    d.core.events.emit('warning', { code: 'repeated_cursor', message: err.message });
    d.core.log(`walk ${state.walkId}: ${err.message}`);
    return { stop: d.finish('failed', 'error:REPEATED_CURSOR', err) };
  }
  if (ids.length > 0 && fresh.length <= Math.floor(ids.length * 0.2) && d.pass > 1) {
    state.cursor = next;
    d.note(
      `Page ${plan.pageNumber} repeated rows this walk already has (${ids.length - fresh.length} of ${ids.length}); stopped so the same rows are not paid for again. Resume to continue anyway.`,
      'repeating',
    );
    return { stop: d.finish('paused', 'repeating') };
  }
  d.seen.add(next);
  state.cursor = next;
  d.save();
  d.progress();
  return null;
}

/** `until` paging (open-protocol search): the oldest `published_at` of the page; a page with nothing new ends the walk. */
function untilNext(d: WalkDrive, read: ReadItems, fresh: number): Stop | null {
  const { state } = d;
  const oldest = oldestPublished(read.items);
  if (fresh === 0 || oldest === null || oldest === state.cursor) {
    state.cursor = null;
    return { stop: d.finish('done', 'end') };
  }
  state.cursor = oldest;
  d.save();
  d.progress();
  return null;
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
