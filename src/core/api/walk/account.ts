/**
 * What an answered page adds to the walk (docs/request-core.md "Walker"): the position, credits,
 * rows, rows without an id of their own (`accountPage`), and the rows fit=goal held back, recalled
 * in full (`recallHeldBack`).
 */
import type { CatalogueEndpoint } from '../../../shared/api-types';
import { readItems, type ReadItems } from '../../archive';
import { priceOf } from '../catalogue';
import { ApiError } from '../errors';
import type { CallResult } from '../types';
import type { PagePlan, Stop, WalkDrive } from './context';

/**
 * What the page adds to the walk: the position (a held page read again is not a page more),
 * credits, rows and new rows, rows without an id of their own (counted and said), then the
 * caller's `onPage` (which may hold the walk: the CLI waits for its reader).
 */
export async function accountPage(d: WalkDrive, plan: PagePlan, r: CallResult): Promise<ReadItems> {
  const { state, core, o, ep } = d;
  const read = readItems(r.envelope.data);
  d.requests++;
  d.pass++;
  const reached = plan.pageNumber - 1 + pagesWalked(plan.pagesAsked, walkStoppedOf(r), r, ep);
  if (plan.rereading) {
    // the walk is past its held pages once it reaches them
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
  d.newItems += r.newItems;
  // rows without an id of their own (issue 24 #3): kept raw in the stored answer, never merged
  // into another item — counted and said (also for a page served from the archive)
  d.unreadable += read.unreadable;
  if (read.unreadable > 0)
    d.note(
      `Page ${plan.pageNumber}: ${read.unreadable} row(s) could not be read as records (no id of their own); they are kept raw in the stored answer, not archived as items.`,
      'unreadable_rows',
    );
  state.updatedAt = core.clock.now();
  await o.onPage?.({ walkId: state.walkId, pageNumber: plan.pageNumber, result: r });
  return read;
}

export const walkStoppedOf = (r: CallResult): string | undefined =>
  (r.envelope.data as { walk?: { stopped?: string } } | undefined)?.walk?.stopped;

/**
 * Pages a max_pages request walked. `data.walk.stopped = max_pages` means all of them; no
 * `data.walk` means one (the service did not walk several); otherwise (the list ended, a page
 * failed, the time budget ran out) fewer, and since each page walked is billed as one call
 * (rule 8) the charge bounds them: the price per page is at least the floor.
 */
export function pagesWalked(asked: number, stopped: string | undefined, r: CallResult, ep: CatalogueEndpoint): number {
  if (asked <= 1 || stopped === 'max_pages') return asked;
  if (stopped === undefined) return 1;
  const floor = priceOf(ep).min;
  if (r.creditsUsed > 0 && floor > 0) return Math.min(asked, Math.max(1, Math.floor(r.creditsUsed / floor)));
  return 1;
}

/**
 * fit=goal: the rows the service held back are recalled in full (free, from its cache) and
 * archived; rows that could not be recalled are counted and said (stubs are never rows).
 */
export async function recallHeldBack(d: WalkDrive, plan: PagePlan, r: CallResult): Promise<Stop | null> {
  if (r.heldBack <= 0) return null;
  const { core, state, o } = d;
  const recallId = (r.envelope.data as { held_back?: { recall_id?: unknown } }).held_back?.recall_id;
  let recalled = false;
  if (typeof recallId === 'string' && !r.fromArchive) {
    try {
      const full = await core.call(d.target({ ...plan.params, recall: recallId }), {
        source: state.source,
        priority: d.priority,
        signal: o.signal,
        walkId: state.walkId,
        opKey: `walk:${state.walkId}:page:${plan.pageNumber}:recall`,
      });
      state.creditsSpent += full.creditsUsed;
      d.newItems += full.newItems;
      recalled = full.heldBack === 0;
    } catch (e) {
      if (e instanceof ApiError && e.kind === 'storage') return { stop: d.finish('failed', 'error:STORAGE', e) };
      if (e instanceof ApiError && e.kind === 'cancelled') return { stop: d.finish('cancelled', 'cancelled', e) };
    }
  }
  if (!recalled) {
    d.heldBack += r.heldBack;
    d.note(
      `${r.heldBack} row(s) of page ${plan.pageNumber} were held back by fit=goal and could not be recalled; they were not archived (they are not rows, only stubs).`,
      'held_back',
    );
  }
  return null;
}
