/**
 * Choosing endpoints from the catalogue (GET /v1/endpoints), for any network: views never hard-code
 * a network's paths; they filter the catalogue by what an endpoint is for.
 */
import type { Catalogue, CatalogueEndpoint, CatalogueParam } from '../../../shared/api-types';

/** Catalogue paths may carry the `/v1/<platform>/` prefix; views use the part after the platform. */
export function endpointPath(e: CatalogueEndpoint): string {
  const p = e.path.replace(/^\/?v1\//, '').replace(/^\//, '');
  return p.startsWith(e.platform + '/') ? p.slice(e.platform.length + 1) : p;
}

export function usable(cat: Catalogue | undefined): CatalogueEndpoint[] {
  return (cat?.endpoints ?? []).filter((e) => e.available !== false);
}

export function platformsOf(eps: CatalogueEndpoint[]): string[] {
  return [...new Set(eps.map((e) => e.platform))].sort();
}

export function byOrder(a: CatalogueEndpoint, b: CatalogueEndpoint): number {
  return (a.order ?? 0) - (b.order ?? 0) || endpointPath(a).localeCompare(endpointPath(b));
}

/** Search endpoints: path contains `search` and takes a query-like parameter. */
export function searchEndpoints(cat: Catalogue | undefined, platform?: string): CatalogueEndpoint[] {
  return usable(cat)
    .filter((e) => (!platform || e.platform === platform) && endpointPath(e).includes('search') && queryParam(e) !== null)
    .sort(byOrder);
}

export function queryParam(e: CatalogueEndpoint): CatalogueParam | null {
  return e.params.find((p) => p.name === 'query') ?? e.params.find((p) => p.name === 'q' || p.name === 'keyword') ?? null;
}

export function profileEndpoint(cat: Catalogue | undefined, platform: string): CatalogueEndpoint | null {
  const eps = usable(cat).filter((e) => e.platform === platform);
  return (
    eps.find((e) => endpointPath(e) === 'profile') ??
    eps.find((e) => endpointPath(e) === 'user/profile' || endpointPath(e) === 'channel') ??
    null
  );
}

const FEED_NAMES = [
  'profile/posts',
  'profile/reels',
  'profile/videos',
  'channel/videos',
  'channel/shorts',
  'user/tweets',
  'user/posts',
  'profile/shorts',
  'user/media',
];

/** A profile's feeds: known feed paths first, then other paginating profile/user/channel lists of posts. */
export function feedEndpoints(cat: Catalogue | undefined, platform: string): CatalogueEndpoint[] {
  const eps = usable(cat).filter((e) => e.platform === platform);
  const known = FEED_NAMES.map((n) => eps.find((e) => endpointPath(e) === n)).filter((e): e is CatalogueEndpoint => !!e);
  const extra = eps.filter(
    (e) =>
      !known.includes(e) &&
      e.paginates &&
      /^(profile|user|channel)\//.test(endpointPath(e)) &&
      /(posts|reels|videos|tweets|shorts)$/.test(endpointPath(e)) &&
      !endpointPath(e).includes('/full'),
  );
  return [...known, ...extra];
}

/** Comment endpoints of a network: post/comments, video/comments, tweet/replies, search/comments… */
export function commentEndpoints(cat: Catalogue | undefined, platform?: string): CatalogueEndpoint[] {
  return usable(cat)
    .filter(
      (e) => (!platform || e.platform === platform) && /(comments|replies)/.test(endpointPath(e)) && !/^profile\//.test(endpointPath(e)),
    )
    .sort((a, b) => rankComment(a) - rankComment(b) || byOrder(a, b));
}

function rankComment(e: CatalogueEndpoint): number {
  const p = endpointPath(e);
  if (/^(post|video)\/comments$/.test(p) || p === 'tweet/replies') return 0;
  if (p.includes('search')) return 2;
  return 1;
}

/** The identifying parameter a profile-scoped endpoint wants: handle, else user_id / url / first required. */
export function identityParam(e: CatalogueEndpoint): string {
  const names = e.params.map((p) => p.name);
  for (const n of ['handle', 'url', 'user_id', 'userId', 'channel_id', 'pageId']) if (names.includes(n)) return n;
  return e.params.find((p) => p.required)?.name ?? 'handle';
}

export function accepts(e: CatalogueEndpoint | null | undefined, name: string): boolean {
  return !!e?.params.some((p) => p.name === name);
}

export function credits(e: CatalogueEndpoint): { min: number; max: number } {
  return typeof e.credits === 'number' ? { min: e.credits, max: e.credits } : e.credits;
}

/** Parameters Loupe handles itself (paging, quoting) and never shows in generated forms. */
export const MANAGED_PARAMS = new Set([
  'cursor',
  'dry_run',
  'page',
  'continuationToken',
  'max_cursor',
  'next_page_id',
  'pagination_token',
  'next_max_id',
  'max_id',
  'after',
]);

/** Human text for one-of groups: "one of handle | user_id is required". */
export function oneOfGroups(e: CatalogueEndpoint): Array<{ group: string; names: string[] }> {
  const m = new Map<string, string[]>();
  for (const p of e.params) if (p.one_of_group) m.set(p.one_of_group, [...(m.get(p.one_of_group) ?? []), p.name]);
  return [...m.entries()].map(([group, names]) => ({ group, names }));
}

/** Local validation before any call (saves a free-but-slow 400 round trip). Returns problems in words. */
export function validateParams(e: CatalogueEndpoint, values: Record<string, string>): string[] {
  const problems: string[] = [];
  for (const p of e.params) {
    const v = values[p.name];
    const has = v !== undefined && v !== '';
    if (p.required && !p.one_of_group && !has) problems.push(`${p.name} is required`);
    if (!has) continue;
    if ((p.type === 'integer' || p.type === 'number') && v.trim() !== '') {
      const n = Number(v);
      if (!Number.isFinite(n) || (p.type === 'integer' && !Number.isInteger(n)))
        problems.push(`${p.name} must be ${p.type === 'integer' ? 'a whole number' : 'a number'}`);
      else {
        if (p.minimum !== null && p.minimum !== undefined && n < p.minimum) problems.push(`${p.name} must be at least ${p.minimum}`);
        if (p.maximum !== null && p.maximum !== undefined && n > p.maximum) problems.push(`${p.name} must be at most ${p.maximum}`);
      }
    }
    if (p.enum && p.enum.length && !p.enum.includes(v)) problems.push(`${p.name} must be one of ${p.enum.join(', ')}`);
  }
  for (const g of oneOfGroups(e)) {
    if (!g.names.some((n) => values[n] !== undefined && values[n] !== '')) problems.push(`one of ${g.names.join(' | ')} is required`);
  }
  return problems;
}

/** Drop empty values: the API treats an empty parameter as sent. */
export function cleanParams(values: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) if (v !== '' && v !== undefined) out[k] = v;
  return out;
}
