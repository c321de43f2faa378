/**
 * A walk that starts over after the service rejected its saved cursor (spec Pagination rule 4:
 * "start again without a cursor"; docs/request-core.md "Rejected cursor", issue 24 #4).
 *
 * The restart needs the service's current cursors, so held pages are asked of the SERVICE again,
 * not served from the archive (the archive's copies carry the old cursors, which lead back to the
 * rejected one). That is free exactly where the exact call was answered inside the endpoint's
 * cache window (Limits rule 7; Pagination rule 3: re-walking pages inside the free window costs
 * nothing) — which the archive can tell, since it keeps every answer with its time. A held page
 * that is not certainly free costs a page: the walk stops before it unless the restart was
 * approved (`payRestart`), so the user is told first.
 */
import type { CatalogueEndpoint } from '../../../shared/api-types';
import type { WalkState } from '../../ports';
import { canonicalParams, paramsHash } from '../canonical';
import { priceOf } from '../catalogue';
import { ownership } from '../call/loss';
import type { CoreInternals } from '../internals';

/** Margin against the window's edge: our answer time is after the service's (the request's duration). */
const EDGE_MS = 60_000;

/** The logical operation of page `n` of a walk: `walk:<id>:page:<n>`, after a restart `walk:<id>:r<k>:page:<n>`. */
export function pageOpKey(state: WalkState, n: number): string {
  const r = state.restarts ?? 0;
  return r > 0 ? `walk:${state.walkId}:r${r}:page:${n}` : `walk:${state.walkId}:page:${n}`;
}

/** The saved cursor's position: pages from the head (below pagesDone while re-reading held pages). */
export function positionOf(state: WalkState): number {
  return state.rewalkAt ?? state.pagesDone;
}

/**
 * Whether this exact call was bought inside the endpoint's cache window, so asking the service again
 * costs nothing. Bought, not only answered: an answer read from the cache (an owner read, a replay)
 * keeps the call free for a window after it only under one reading of where a window starts
 * (docs/request-core.md "Where a cache window starts", simulation finding 23), so the ledger's rows
 * must show it owned under every reading (`ownership`, judged once the last of them finished). A
 * store without the ledger's rows of a request: the archive's answers of any kind, as before.
 */
export function answeredInWindow(
  core: Pick<CoreInternals, 'store' | 'clock'>,
  ep: CatalogueEndpoint,
  state: WalkState,
  params: Record<string, string>,
): boolean {
  const ttl = ep.cache_ttl_seconds * 1000;
  if (!(ttl > 0)) return false;
  const hash = paramsHash(`${state.platform}/${state.endpoint}?${canonicalParams(params)}`);
  const now = core.clock.now();
  if (core.store.ledgerOfRequest) {
    const rows = core.store.ledgerOfRequest(state.platform, state.endpoint, hash, now - ttl, now + 1);
    const at = rows.reduce((t, r) => Math.max(t, r.startedAt + r.durationMs), now);
    return ownership(rows, at, '', ep.cache_ttl_seconds) === 'owned';
  }
  const since = now - ttl + Math.min(EDGE_MS, ttl / 10);
  return core.store.findFreshResponse(state.platform, state.endpoint, hash, since) !== undefined;
}

/**
 * For a re-read of a held page: the request that is certainly free — the exact call as sent before
 * (one page, or `max_pages` up to `most` where the walk asks several: never a larger hold than the
 * walk would have asked), answered inside its window — or null when none is (then the page costs
 * what a page costs).
 */
export function freeReread(
  core: Pick<CoreInternals, 'store' | 'clock'>,
  ep: CatalogueEndpoint,
  state: WalkState,
  params: Record<string, string>,
  o: { byMaxPages: boolean; most: number; fresh: boolean },
): { params: Record<string, string>; pages: number } | null {
  if (o.fresh) return null; // Cache-Control: no-cache is always charged
  const one = { ...params };
  delete one.max_pages;
  const fixedPages = params.max_pages !== undefined && !o.byMaxPages ? Number(params.max_pages) : null;
  const tries =
    fixedPages !== null
      ? [fixedPages]
      : o.byMaxPages
        ? Array.from({ length: Math.max(1, o.most) }, (_, i) => Math.max(1, o.most) - i)
        : [1];
  for (const n of tries) {
    const p = n > 1 || fixedPages !== null ? { ...one, max_pages: String(n) } : one;
    if (answeredInWindow(core, ep, state, p)) return { params: p, pages: n };
  }
  return null;
}

/** What re-reading the held pages left will cost, in words, for the note that stops the walk before spending. */
export function restartCostNote(ep: CatalogueEndpoint, state: WalkState): string {
  const left = Math.max(1, state.pagesDone - positionOf(state));
  const p = priceOf(ep);
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const why = ep.cache_ttl_seconds > 0 ? 'outside their free cache window' : 'this endpoint has no free cache window';
  const price = p.min === p.max ? `${fmt(left * p.min)} credits` : `about ${fmt(left * p.min)}–${fmt(left * p.max)} credits`;
  return (
    `Starting over re-reads ${left} page(s) this walk already holds (${why}): ${price}. Nothing was spent on them; ` +
    `approve the restart to re-read them and continue (pages done stay at ${state.pagesDone}).`
  );
}
