/**
 * Plan (docs/request-core.md "Pipeline of one call", step 1): the catalogue entry (validated, free)
 * and everything fixed about the call — its identity (platform, endpoint, canonical params and their
 * hash), whether it is a dry run, its price range and pages, where it goes.
 */
import type { CatalogueEndpoint } from '../../../shared/api-types';
import type { CallTarget } from '../../ports';
import { canonicalParams, normalizeEndpoint, paramsHash } from '../canonical';
import { isDryRun, pagesOf, priceOf } from '../catalogue';
import type { CallOptions } from '../types';
import type { CallPlan } from './context';

/** Pure: the plan of `target` against its catalogue entry. */
export function planCall(target: CallTarget, ep: CatalogueEndpoint, o: CallOptions): CallPlan {
  const platform = String(target.platform);
  const endpoint = normalizeEndpoint(platform, ep.path);
  const params = { ...target.params };
  const canonical = canonicalParams(params);
  return {
    target,
    ep,
    platform,
    endpoint,
    params,
    canonical,
    hash: paramsHash(`${platform}/${endpoint}?${canonical}`),
    dry: isDryRun(params),
    source: o.source ?? 'app',
    walkId: o.walkId ?? null,
    priority: o.priority ?? 'interactive',
    where: `${platform}/${endpoint}`,
    opts: o,
    price: priceOf(ep),
    pages: pagesOf(params),
  };
}

/** The request's address (the query as given; the key never goes in it). */
export function urlOf(baseUrl: string, p: CallPlan): string {
  const qs = new URLSearchParams(p.params).toString();
  return `${baseUrl}/v1/${p.platform}/${p.endpoint}${qs ? `?${qs}` : ''}`;
}
