/**
 * Holds and estimates (docs/request-core.md "Pipeline of one call", step 4, and "Estimates"): what
 * a call may hold — the price ceiling × pages, and for collect-until-N `limit` the service's free
 * quote, once per call shape — the quote itself (`dry_run=1`), and a walk's estimate.
 */
import { NATIVE_PAGING_PARAMS, type CatalogueEndpoint } from '../../../shared/api-types';
import type { CallTarget, Priority } from '../../ports';
import { canonicalParams, normalizeEndpoint } from '../canonical';
import { holdOf, isDryRun, pagesOf, priceOf } from '../catalogue';
import { ApiError } from '../errors';
import type { KeyPool } from '../key-pool';
import type { CallOptions, CallResult, Quote, WalkEstimate } from '../types';

type Call = <D = Record<string, unknown>>(target: CallTarget, opts?: CallOptions) => Promise<CallResult<D>>;

export interface Estimates {
  holdFor: (ep: CatalogueEndpoint, target: CallTarget) => Promise<number>;
  quote: (target: CallTarget, o?: Omit<CallOptions, 'fresh' | 'opKey'>) => Promise<Quote>;
  estimateWalk: (target: CallTarget, o: { pages: number; maxPages?: number; priority?: Priority }) => Promise<WalkEstimate>;
}

/** `call` is read when a quote is first asked for (the caller is built with `holdFor`). */
export function createEstimates(d: {
  call: () => Call;
  endpointOf: (t: CallTarget) => Promise<CatalogueEndpoint>;
  pool: KeyPool;
}): Estimates {
  async function quote(target: CallTarget, o: Omit<CallOptions, 'fresh' | 'opKey'> = {}): Promise<Quote> {
    // dry runs never come from the archive and never send Cache-Control (they are free anyway)
    const r = await d.call()<Record<string, unknown>>({ ...target, params: { ...target.params, dry_run: '1' } }, { ...o, fresh: false });
    const data = r.envelope.data;
    const dr = data.dry_run as { credits_min?: unknown; credits_max?: unknown } | undefined;
    if (dr && typeof dr.credits_min === 'number' && typeof dr.credits_max === 'number')
      return { credits_min: dr.credits_min, credits_max: dr.credits_max, requestId: r.envelope.request_id };
    const est = data.estimate as Quote['estimate'] | undefined;
    if (est && typeof est.base_credits === 'number')
      return {
        credits_min: est.base_credits + (est.label_credits_min ?? 0),
        credits_max: est.base_credits + (est.label_credits_max ?? 0),
        estimate: est,
        requestId: r.envelope.request_id,
      };
    throw new ApiError({
      kind: 'api',
      requestId: r.envelope.request_id,
      message: `The price quote had neither data.dry_run nor data.estimate (request ${r.envelope.request_id}).`,
    });
  }

  // Collect-until-N `limit` multiplies the ceiling by a page count only the service knows: its free
  // quote (dry_run=1) tells, once per call shape (paging params left out).
  const quotedHolds = new Map<string, number>();
  async function holdFor(ep: CatalogueEndpoint, target: CallTarget): Promise<number> {
    const local = holdOf(ep, target.params);
    if (target.params.limit === undefined || !ep.paginates || isDryRun(target.params)) return local;
    const shape: Record<string, string> = { ...target.params };
    for (const p of ['cursor', ...NATIVE_PAGING_PARAMS]) delete shape[p];
    const id = `${target.platform}/${normalizeEndpoint(String(target.platform), ep.path)}?${canonicalParams(shape)}`;
    let q = quotedHolds.get(id);
    if (q === undefined) {
      try {
        q = (await quote({ ...target, params: shape })).credits_max;
        quotedHolds.set(id, q);
      } catch {
        return local;
      }
    }
    return Math.max(local, q);
  }

  async function estimateWalk(target: CallTarget, o: { pages: number; maxPages?: number; priority?: Priority }): Promise<WalkEstimate> {
    const ep = await d.endpointOf(target);
    const p = priceOf(ep);
    const params = o.maxPages !== undefined ? { ...target.params, max_pages: String(o.maxPages) } : target.params;
    const mp = pagesOf(params);
    const hold = await holdFor(ep, { ...target, params });
    const requests = Math.max(0, Math.ceil(o.pages));
    await d.pool.members().catch(() => []); // the keys the estimate spreads over
    return {
      creditsMin: requests * p.min * mp,
      creditsMax: requests * Math.max(hold, p.max * mp),
      requests,
      etaMs: d.pool.eta(requests, o.priority ?? 'background'),
    };
  }

  return { holdFor, quote, estimateWalk };
}
