/**
 * The endpoint builder: turns a compact spec row into a full EndpointDef, adding every shared
 * parameter the endpoint accepts in a fixed order so all endpoints read the same.
 */
import type { Platform } from '../../shared/api-types';
import type { EndpointDef, FeedKind, RecordKind, WorldTraits } from '../types';
import {
  cursorParam,
  dryRunParam,
  excludePinnedParam,
  includeParam,
  judgmentParams,
  judgmentsParam,
  limitParam,
  maxPagesParam,
  nativePagingParam,
  oneOfParam,
  recentDaysParam,
  relevanceParams,
  requiredParam,
  sinceParam,
  stopAtIdParam,
  trimParam,
  untilParam,
  type RegistryParam,
} from './params';
import { worldTraits } from './traits';

/** Spec windows: 1 h, 6 h, 24 h. */
export const TTL = { search: 3600, content: 21600, profile: 86400 } as const;

/** Search rows that are posts: post labels + relevance. */
export const POST_SEARCH = { labels: 'post', relevance: true } as const;
/** Rows of the named owner (group, board, playlist, collection, advertiser): a world trait (traits.ts). */
export const BY_OWNER = { byOwner: true } as const;

export type Output = { shape: 'single'; singleKey: string; record: RecordKind } | { shape: 'list'; feed: FeedKind; record: RecordKind };

export const single = (singleKey: string, record: RecordKind = 'object'): Output => ({ shape: 'single', singleKey, record });
export const list = (feed: FeedKind, record: RecordKind = 'post'): Output => ({ shape: 'list', feed, record });

export interface Row {
  path: string;
  group: string;
  label: string;
  /** Spec-derived description. */
  desc: string;
  /** Fixed price, or [min, max] metered per page. */
  credits: number | [number, number];
  out: Output;
  /** Required inputs. */
  req?: string[];
  /** One-of group (at least one must be sent). */
  oneOf?: string[];
  /** Endpoint-specific optional params (after the identifiers). */
  opt?: RegistryParam[];
  /** Paginated: `true` → `cursor` only; a string → `cursor` plus that native param. */
  paging?: true | string;
  pageSize?: number;
  /** Rows of an unpaginated list. */
  listSize?: number;
  maxPages?: boolean;
  sync?: boolean;
  /** since/until accepted as plain filters (not a sync endpoint). */
  dateFilter?: boolean;
  /** since/until take YYYY-MM-DD or ISO datetime WITH timezone only. */
  dateTz?: boolean;
  dateOrdered?: boolean;
  feedOptions?: boolean;
  labels?: 'post' | 'comment';
  relevance?: boolean;
  /** Relevance-capable search without labels still accepts `judgments`. */
  limit?: { kind: 'cap' | 'collect'; max: number; def?: number };
  include?: { tokens: string[]; desc: string };
  ttl?: number;
  tier?: 'standard' | 'advanced';
  gettable?: boolean;
  /** `sort=top` walks repeat rows past the popular head (EndpointDef.topRepeats). */
  topRepeats?: boolean;
  /** `trim` drops media too (EndpointDef.trimMedia). */
  trimMedia?: boolean;
  /** Natural key of profile items under variant record-kinds (EndpointDef.profileKey). */
  profileKey?: 'profile';
  /** `site:` in the query is refused (EndpointDef.noSiteOperator). */
  noSiteOperator?: boolean;
  /** Reason text when price/params/endpoint were chosen, not given by the spec. */
  assumed?: string;
  /** How the world answers, where it differs from the defaults of `out` (EndpointDef.world). */
  world?: Partial<WorldTraits>;
}

const DEFAULT_PAGE: Record<FeedKind, number> = {
  user_posts: 12,
  comments: 20,
  replies: 10,
  search_posts: 20,
  search_comments: 25,
  accounts: 25,
  groups: 10,
  advertisers: 20,
  hashtags: 10,
  places: 20,
  audio: 20,
  events: 10,
  questions: 10,
  generic_posts: 20,
};

function defaultTtl(group: string): number {
  if (group === 'search') return TTL.search;
  if (group === 'profiles') return TTL.profile;
  return TTL.content;
}

export function build(platform: Platform, r: Row, order: number): EndpointDef {
  const params: RegistryParam[] = [];
  for (const n of r.req ?? []) params.push(requiredParam(n));
  for (const n of r.oneOf ?? []) params.push(oneOfParam(n, r.oneOf ?? []));
  params.push(...(r.opt ?? []));

  let paging: EndpointDef['paging'] = null;
  if (r.paging) {
    const feed = r.out.shape === 'list' ? r.out.feed : 'generic_posts';
    const pageSize = r.pageSize ?? DEFAULT_PAGE[feed];
    params.push(cursorParam());
    if (typeof r.paging === 'string') {
      params.push(nativePagingParam(r.paging));
      paging = { param: 'cursor', alt: r.paging, pageSize };
    } else {
      paging = { param: 'cursor', pageSize };
    }
  }
  if (r.limit) params.push(limitParam(r.limit.kind, r.limit.max, r.limit.def));
  if (r.maxPages) params.push(maxPagesParam());
  if (r.sync || r.dateFilter) {
    params.push(sinceParam(r.dateTz), untilParam(r.dateTz));
  }
  if (r.sync) params.push(stopAtIdParam());
  if (r.feedOptions) params.push(recentDaysParam(), excludePinnedParam(), trimParam());
  if (r.include) params.push(includeParam(r.include.tokens, r.include.desc));
  const relevance = r.relevance ?? false;
  if (r.labels) params.push(...judgmentParams(r.labels));
  else if (relevance) params.push(judgmentsParam());
  if (relevance) params.push(...relevanceParams());
  params.push(dryRunParam());

  const names = new Set<string>();
  for (const p of params) {
    if (names.has(p.name)) throw new Error(`registry: duplicate param ${p.name} on ${platform}/${r.path}`);
    names.add(p.name);
  }

  const credits = Array.isArray(r.credits) ? { min: r.credits[0], max: r.credits[1] } : r.credits;
  const def: EndpointDef = {
    platform,
    path: r.path,
    group: r.group,
    label: r.label,
    description: r.assumed ? `${r.desc} (assumed: ${r.assumed})` : r.desc,
    credits,
    tier: r.tier ?? 'standard',
    cacheTtlSeconds: r.ttl ?? defaultTtl(r.group),
    order,
    gettable: r.gettable ?? true,
    assumed: r.assumed !== undefined,
    params,
    shape: r.out.shape,
    record: r.out.record,
    paging,
    acceptsMaxPages: r.maxPages ?? false,
    sync: r.sync ?? false,
    dateOrdered: r.dateOrdered ?? true,
    feedOptions: r.feedOptions ?? false,
    labels: r.labels ?? null,
    relevance,
  };
  if (r.out.shape === 'single') def.singleKey = r.out.singleKey;
  else def.feed = r.out.feed;
  if (r.limit) def.limit = { kind: r.limit.kind, max: r.limit.max };
  if (r.include) def.include = [...r.include.tokens];
  if (r.dateFilter) def.dateFilter = true;
  if (r.topRepeats) def.topRepeats = true;
  if (r.trimMedia) def.trimMedia = true;
  if (r.profileKey) def.profileKey = r.profileKey;
  if (r.noSiteOperator) def.noSiteOperator = true;
  if (!paging && r.out.shape === 'list') def.listSize = r.listSize ?? DEFAULT_PAGE[r.out.feed];
  def.world = worldTraits(r.out, r.world);
  return def;
}
