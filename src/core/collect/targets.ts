/**
 * Which endpoint of a network does what an input asks (docs/collect.md "Inputs"), read from the
 * catalogue: the first of the usual paths the network has (or the one the design names for it),
 * and how an input fills that endpoint's parameters (a handle or an address, a post's address or
 * id, a query, a hashtag).
 */
import type { CatalogueEndpoint } from '../../shared/api-types';
import type { CollectDo } from '../../shared/contract-collect';
import type { CatalogueApi } from '../api';
import { normalizeEndpoint } from '../api';
import { paramNames } from '../api';

/** The usual paths, in order of preference (the spec's names for each network's endpoints). */
const PREFER: Record<CollectDo, string[]> = {
  feed: ['profile/posts', 'user/tweets', 'user/posts', 'profile/videos', 'channel/videos'],
  profile: ['profile', 'channel', 'basic-profile'],
  comments: ['post/comments', 'video/comments', 'tweet/replies', 'post/replies'],
  post: ['post', 'tweet', 'video', 'pin', 'clip'],
  search: ['search/tweets', 'search/posts', 'search', 'search/popular', 'search/reels', 'search/videos', 'search/top'],
  hashtag: ['search/hashtag'],
};

/** Does what reads a list, walked page by page (the design's depth applies). */
const LISTS: ReadonlySet<CollectDo> = new Set(['feed', 'comments', 'search', 'hashtag']);

export const QUERY_PARAMS = ['query', 'q', 'keyword', 'keywords', 'term'];
export const HASHTAG_PARAMS = ['hashtag', 'tag'];
export const POST_URL_PARAMS = ['url', 'post_url', 'video_url'];
export const POST_ID_PARAMS = ['post_id', 'video_id', 'tweet_id', 'media_id', 'id'];
export const USER_ID_PARAMS = ['user_id', 'userId', 'channel_id', 'pageId', 'page_id'];

export interface Target {
  ep: CatalogueEndpoint;
  /** the path after the platform */
  endpoint: string;
  /** a hashtag searched through the network's search (`#tag`), which has no hashtag search */
  viaSearch?: boolean;
}

const NAMES = new WeakMap<CatalogueEndpoint, ReadonlySet<string>>();
/** The parameters an endpoint lists (kept per catalogue entry: planning asks for every input). */
export function namesOf(ep: CatalogueEndpoint): ReadonlySet<string> {
  let n = NAMES.get(ep);
  if (!n) {
    n = paramNames(ep);
    NAMES.set(ep, n);
  }
  return n;
}

export function pathOf(ep: CatalogueEndpoint): string {
  return normalizeEndpoint(ep.platform, ep.path);
}

/** Reads pages: a list endpoint, or a search walked back in time by `until` (open-protocol search). */
export function isListy(ep: CatalogueEndpoint): boolean {
  if (ep.paginates) return true;
  const names = namesOf(ep);
  return names.has('until') && !names.has('cursor') && ep.params.some((p) => p.name === 'query');
}

function usable(cat: CatalogueApi, platform: string, path: string, listy: boolean): CatalogueEndpoint | null {
  const ep = cat.find(platform, path);
  if (!ep || !ep.available) return null;
  if (listy && !isListy(ep)) return null;
  return ep;
}

/** The endpoint of `platform` for `what`, or why there is none. */
export function targetFor(cat: CatalogueApi, what: CollectDo, platform: string, override?: string): Target | { reason: string } {
  if (override) {
    const ep = cat.find(platform, override);
    if (!ep) return { reason: `${platform} has no endpoint ${override} in the catalogue` };
    if (!ep.available) return { reason: `${platform}/${override} cannot be called through the API` };
    return { ep, endpoint: pathOf(ep) };
  }
  const wantsList = LISTS.has(what);
  // lists first (a search endpoint that answers one mixed page is a last resort)
  for (const listy of wantsList ? [true, false] : [false]) {
    for (const path of PREFER[what]) {
      const ep = usable(cat, platform, path, listy);
      if (ep) return { ep, endpoint: pathOf(ep) };
    }
  }
  if (what === 'hashtag') {
    const s = targetFor(cat, 'search', platform);
    if ('ep' in s && QUERY_PARAMS.some((q) => namesOf(s.ep).has(q))) return { ...s, viaSearch: true };
  }
  const words: Record<CollectDo, string> = {
    feed: "an account's posts",
    profile: 'a profile',
    comments: "a post's comments",
    post: 'a single post',
    search: 'a search of posts',
    hashtag: 'a hashtag search (nor a search)',
  };
  return { reason: `${platform} has no endpoint for ${words[what]} in the catalogue` };
}

/** The first of `names` the endpoint takes. */
export function paramOf(ep: CatalogueEndpoint, names: readonly string[]): string | null {
  const have = namesOf(ep);
  return names.find((n) => have.has(n)) ?? null;
}

/** Pages an input reads on this endpoint: the depth on lists, one answer otherwise. */
export function pagesFor(ep: CatalogueEndpoint, depth: number): number {
  return isListy(ep) ? depth : 1;
}

/**
 * Comments walked past the first page go newest first where the endpoint offers it (spec: a `top`
 * walk repeats comments once past the popular head) — as the walker does, but written into the
 * input's parameters so the plan prices, checks the archive for and runs the same call.
 */
export function commentSort(ep: CatalogueEndpoint, params: Record<string, string>, pages: number): Record<string, string> {
  if (pages <= 1 || params.sort !== undefined || !/comment|repl/i.test(ep.path)) return params;
  const sort = ep.params.find((p) => p.name === 'sort');
  if (sort?.enum?.includes('recent') && sort.enum.includes('top')) return { ...params, sort: 'recent' };
  return params;
}
