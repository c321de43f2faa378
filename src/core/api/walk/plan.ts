/**
 * Before a request (docs/request-core.md "Walker"): the limits that end the walk before anything is
 * planned (`stopBefore`), then the next request and its hold (`planPage`).
 */
import { ApiError } from '../errors';
import type { PagePlan, Stop, WalkDrive } from './context';
import { freeReread, positionOf, restartCostNote } from './restart';

/** Limits reached before anything is planned: cancelled, the page limit, the requests of this run. */
export function stopBefore(d: WalkDrive): Stop | null {
  const { o, state } = d;
  if (o.signal?.aborted)
    return {
      stop: d.finish(
        'cancelled',
        'cancelled',
        new ApiError({ kind: 'cancelled', message: 'Walk cancelled; resume it to continue from the saved position.' }),
      ),
    };
  if (o.maxPages !== undefined && positionOf(state) >= o.maxPages) return { stop: d.finish('paused', 'page_limit') };
  if (o.maxRequests !== undefined && d.requests >= o.maxRequests) return { stop: d.finish('paused', 'page_limit') };
  return null;
}

/**
 * The next request and its hold: the position, `max_pages` where the walker chooses it (as many
 * pages as are still wanted, the budget and the balance allow — Pagination rule 8), a held page
 * after a restart only where it is certainly free or approved, and never past `maxCredits`.
 */
export async function planPage(d: WalkDrive): Promise<PagePlan | Stop> {
  const { core, ep, state, o } = d;
  const rereading = state.rewalkAt !== undefined && state.rewalkAt !== null;
  let params: Record<string, string> = { ...d.fixed };
  if (state.cursor !== null) params[state.cursorParam] = state.cursor;
  let hold: number;
  let pagesAsked = 1;
  try {
    hold = await core.holdOf(ep, d.target(params));
    if (d.byMaxPages) {
      const fit = pagesThatFit(d, hold);
      if (fit > 1) {
        pagesAsked = fit;
        params.max_pages = String(fit);
        hold = await core.holdOf(ep, d.target(params));
      }
    }
    if (rereading) {
      // a held page is asked of the service again (for current cursors): certainly free only as
      // the exact call answered inside its cache window; otherwise the user approves it first
      const free = freeReread(core, ep, state, params, { byMaxPages: d.byMaxPages, most: pagesAsked, fresh: !!o.fresh });
      if (free) {
        params = free.params;
        pagesAsked = free.pages;
        hold = await core.holdOf(ep, d.target(params));
      } else if (!o.payRestart) {
        d.note(restartCostNote(ep, state), 'restart_costs');
        return { stop: d.finish('paused', 'restart_costs') };
      }
    }
  } catch (e) {
    return { stop: d.failWith(e) };
  }
  if (o.maxCredits !== undefined && state.creditsSpent + hold > o.maxCredits) return { stop: d.finish('paused', 'credit_limit') };
  return { params, pagesAsked, hold, rereading, pageNumber: positionOf(state) + 1 };
}

/** Pages one `max_pages` request may ask: the pages still wanted, the budget left and the known balance allow. */
function pagesThatFit(d: WalkDrive, hold: number): number {
  const { o, state, core } = d;
  let fit = Math.min(d.perRequest, o.maxPages !== undefined ? o.maxPages - positionOf(state) : d.perRequest);
  if (o.maxCredits !== undefined) fit = Math.min(fit, Math.floor((o.maxCredits - state.creditsSpent) / Math.max(1, hold)));
  const bal = core.balance();
  if (bal !== null) fit = Math.min(fit, Math.floor(bal / Math.max(1, hold)));
  return fit;
}
