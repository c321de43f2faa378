/**
 * Where a data request starts (spec "Pagination rules"): the position its `cursor` or the endpoint's
 * native paging param names, checked against the list the cursor was issued for (the binding hash
 * of the list-defining params) and its lifetime. The engine (engine.ts) walks from it and binds the
 * next page's cursor the same way.
 */
import type { EndpointDef } from '../types';
import { CURSOR_PREFIX, type CursorCodec, type CursorPos, paramsHash } from './cursor';
import { pagingParams, RequestError } from './plan';

/** Params the server handles itself; they never define which list a cursor belongs to. */
const NON_BINDING = new Set([
  'cursor',
  'max_pages',
  'dry_run',
  'limit',
  'judgments',
  'label',
  'exclude',
  'brand',
  'brand_description',
  'offer',
  'label_evidence',
  'fit',
  'goal',
  'fit_tokens',
  'relevance',
  'relevance_threshold',
  'relevant_to',
  'since',
  'until',
  'stop_at_id',
  'recent_days',
  'exclude_pinned',
  'trim',
  'scan_pages',
  'switch_from',
  'safe_url',
]);

export const CURSOR_MIN_TTL_MS = 3600_000;

/** Params bound into a cursor: list-defining params, including `include`. */
export function bindingHash(def: EndpointDef, params: Record<string, string>): string {
  const paging = new Set(pagingParams(def));
  const b: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) if (!NON_BINDING.has(k) && !paging.has(k)) b[k] = v;
  return paramsHash(b);
}

export function cursorTtlMs(def: EndpointDef): number {
  return Math.max(CURSOR_MIN_TTL_MS, def.cacheTtlSeconds * 1000);
}

export interface PositionOptions {
  /**
   * Variant native-ignores-foreign: a service cursor (CURSOR_PREFIX) sent in one of these native
   * params is ignored (the first page is served); the returned token still names the call, so it
   * is not a cache hit of the first page.
   */
  ignoreServiceTokenIn?: ReadonlySet<string>;
}

/** Read the position token: `cursor` or the endpoint's native param (page endpoints accept integers). */
export function readPosition(
  def: EndpointDef,
  params: Record<string, string>,
  codec: CursorCodec,
  now: number,
  opts: PositionOptions = {},
): { pos: CursorPos; token: string | null } {
  const start: CursorPos = { lastId: null, lastAt: null, offset: 0, page: 1 };
  if (!def.paging) return { pos: start, token: null };
  let token: string | undefined;
  let ignored: string | null = null;
  for (const p of pagingParams(def)) {
    const v = params[p];
    if (v === undefined || v === '') continue;
    if (p !== 'cursor' && opts.ignoreServiceTokenIn?.has(p) && v.startsWith(CURSOR_PREFIX)) {
      ignored = ignored ?? `ignored:${p}=${v}`;
      continue;
    }
    token = token ?? v;
  }
  if (token === undefined) return { pos: start, token: ignored };
  if (/^\d+$/.test(token) && (def.paging.param === 'page' || def.paging.alt === 'page')) {
    const page = Number(token);
    if (page < 1) throw new RequestError(400, 'INVALID_REQUEST', '`page` must be an integer >= 1.');
    return { pos: { lastId: null, lastAt: null, offset: (page - 1) * def.paging.pageSize, page }, token: `page:${page}` };
  }
  const r = codec.decode(token, {
    platform: def.platform,
    endpoint: def.path,
    binding: bindingHash(def, params),
    now,
    ttlMs: cursorTtlMs(def),
  });
  if (!r.ok) throw new RequestError(400, 'INVALID_CURSOR', r.message);
  return { pos: r.pos, token: JSON.stringify(r.pos) };
}
