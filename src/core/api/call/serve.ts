/**
 * Serve from the archive (docs/request-core.md "Pipeline of one call", step 2): the exact call
 * answered inside the endpoint's cache window costs nothing, so it is answered from the stored
 * response — no request, no ledger row.
 */
import type { Envelope } from '../../../shared/api-types';
import type { Clock, CoreStore } from '../../ports';
import type { CallResult } from '../types';
import type { CallPlan } from './context';

/**
 * An answer stored more than this after now was fetched on another clock (a sandbox moved on in an
 * earlier session, then restarted at today): not inside any window of this service's clock.
 */
export const FUTURE_TOLERANCE_MS = 60_000;

/** Whether an answer fetched at `fetchedAt` is inside a window of `ttlSeconds` at `now` (the service's clock). */
export function storedInsideWindow(fetchedAt: number, now: number, ttlSeconds: number): boolean {
  return fetchedAt >= now - ttlSeconds * 1000 && fetchedAt <= now + FUTURE_TOLERANCE_MS;
}

/** Usage's "held in Loupe" (issue 27 #5); a store that cannot write now (read-only) only misses a count. */
function noteServed(
  d: { store: CoreStore; write: <T>(f: () => T) => T },
  s: { at: number; source: string | null; platform: string; endpoint: string },
): void {
  const store = d.store;
  const note = store.noteServedFromArchive?.bind(store);
  if (!note) return;
  try {
    d.write(() => note(s));
  } catch {
    /* counted next time it can be written */
  }
}

/** The stored answer of the exact call inside its window, or null when the call must be sent. */
export function serveFromArchive<D>(
  d: { clock: Clock; store: CoreStore; write: <T>(f: () => T) => T },
  c: Pick<CallPlan, 'ep' | 'platform' | 'endpoint' | 'hash' | 'dry' | 'source' | 'walkId' | 'opts'>,
): CallResult<D> | null {
  if (c.opts.fresh || c.opts.archive === false || c.dry || c.ep.cache_ttl_seconds <= 0) return null;
  // the window on the service's clock (the app's clock is the service's: issue 27 #3)
  const now = d.clock.now();
  const hit = d.write(() => d.store.findFreshResponse(c.platform, c.endpoint, c.hash, now - c.ep.cache_ttl_seconds * 1000));
  if (!hit || !storedInsideWindow(hit.fetchedAt, now, c.ep.cache_ttl_seconds)) return null;
  // a walk's page answered from the archive still belongs to that walk: its rows are linked to it
  // (and its source), so what the walk counts is what its lists show
  const store = d.store;
  const linked =
    c.walkId !== null && store.linkStoredResponse ? d.write(() => store.linkStoredResponse?.(hit, c.source, c.walkId) ?? null) : null;
  noteServed(d, { at: now, source: c.source, platform: c.platform, endpoint: c.endpoint });
  return {
    envelope: hit.envelope as Envelope<D>,
    fromArchive: true,
    callId: hit.callId,
    idempotencyKey: null,
    attempts: 0,
    creditsUsed: 0,
    creditsInferred: 0,
    items: linked?.items ?? [],
    newItems: linked?.newItems ?? 0,
    unreadable: 0,
    heldBack: 0,
  };
}
