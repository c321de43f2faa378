/**
 * What one value of a list names (docs/collect.md "Inputs", docs/watchlists.md "Importing
 * accounts"): a web address (an account's or a post's, on which network), a handle, a hashtag, an
 * id, or free text (a search). One reading for bulk watches (src/core/watch/import.ts) and
 * collection plans (src/core/collect).
 *
 * - Addresses: `https://…`, `http://…`, or written without a scheme (`www.x.example/nasa`,
 *   `x.example/p/1`). The network is the catalogue platform a host label names (`micro-net.example`
 *   is micro_net's: the name with `-` or nothing for `_`), else unknown.
 * - An account's address: the first path segment (or the one after `in`, `user`, `u`, `profile`,
 *   `c`, `channel`), a leading `@` dropped. A post's address: a segment such as `p`, `reel`,
 *   `status`, `video`, `posts`, `comments`, `pin`, `shorts` followed by an id, or `watch?v=`.
 */

/** first path segments of addresses that are not an account's */
const NOT_ACCOUNT = new Set([
  'p',
  'post',
  'posts',
  'status',
  'statuses',
  'watch',
  'video',
  'videos',
  'reel',
  'reels',
  'tv',
  'hashtag',
  'tag',
  'tags',
  'explore',
  'search',
  'share',
  'stories',
  'events',
  'groups',
  'i',
  'shorts',
  'pin',
  'feed',
  'questions',
  'r',
  'comments',
  'clip',
]);
/** segments before an account's name (work, forum, open-protocol, video networks) */
const ACCOUNT_PREFIX = new Set(['in', 'user', 'u', 'profile', 'c', 'channel', 'company']);
/** segments followed by a post's id */
const POST_MARKERS = new Set([
  'p',
  'reel',
  'tv',
  'status',
  'statuses',
  'video',
  'videos',
  'post',
  'posts',
  'shorts',
  'comments',
  'pin',
  'clip',
  'questions',
  'update',
]);

export const HANDLE = /^[\p{L}\p{N}._-]{1,100}$/u;

/**
 * The value with what surrounds it in a sheet, a chat or a document taken off: spaces, straight
 * and typographic quotes (“nasa”, ‘nasa’, «nasa», `nasa`), the angle brackets of an address
 * (<https://…>), and a trailing comma or semicolon of a list copied one to a line (`@nasa,`).
 */
export function unquote(value: string): string {
  return value
    .trim()
    .replace(/[,;]+$/, '')
    .trim()
    .replace(/^["'“”‘’«»„‚`<]+|["'“”‘’«»„‚`>]+$/g, '')
    .trim();
}

/** A value as a web address: with a scheme, or a host-and-path written without one. */
export function asUrl(value: string): URL | null {
  const v = unquote(value);
  let s = v;
  if (!/^https?:\/\//i.test(v)) {
    if (!/^(www\.)?[a-z0-9-]+(\.[a-z0-9-]+)+\/\S*$/i.test(v)) return null;
    s = `https://${v}`;
  }
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u : null;
  } catch {
    return null;
  }
}

/** true when the value is written as a web address (even a malformed one) */
export function looksLikeUrl(value: string): boolean {
  const v = unquote(value);
  return /^https?:\/\//i.test(v) || asUrl(v) !== null;
}

/** The catalogue platform a host names (a label equal to its name with `-` or nothing for `_`), or null. */
export function platformOfHost(host: string, platforms: readonly string[]): string | null {
  const labels = new Set(host.toLowerCase().split('.'));
  let best: string | null = null;
  for (const p of platforms) {
    if (labels.has(p.replace(/_/g, '-')) || labels.has(p.replace(/_/g, ''))) {
      // the longest name wins: short-video-net-b.example is short_video_net_b's, not short_video_net's
      if (best === null || p.length > best.length) best = p;
    }
  }
  return best;
}

export interface AddressRef {
  url: URL;
  /** the address as it is sent (the value, with https:// added when written without a scheme) */
  href: string;
  host: string;
  segs: string[];
  /** the account it names (handle, no @), when it is an account's address */
  account: string | null;
  /** the post id it names, when it is a post's address */
  post: string | null;
  /** the author a post's address names (`/nasa/status/1`), if any */
  postAuthor: string | null;
}

function seg(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** An address read: the account or the post it names (neither for other pages). */
export function readAddress(value: string): AddressRef | null {
  const url = asUrl(value);
  if (!url) return null;
  const v = unquote(value);
  const href = /^https?:\/\//i.test(v) ? v : `https://${v}`;
  const segs = url.pathname.split('/').filter(Boolean).map(seg);
  const lower = segs.map((s) => s.toLowerCase());
  let post: string | null = null;
  let postAuthor: string | null = null;
  if (lower[0] === 'watch' && url.searchParams.get('v')) post = url.searchParams.get('v');
  for (let i = 0; i < lower.length - 1 && post === null; i++) {
    if (!POST_MARKERS.has(lower[i])) continue;
    if (lower[i] === 'update' && lower[i - 1] !== 'feed') continue;
    post = segs[i + 1];
    if (i >= 1 && !NOT_ACCOUNT.has(lower[0]) && !ACCOUNT_PREFIX.has(lower[0])) postAuthor = segs[0].replace(/^@/, '');
    else if (i >= 2 && ACCOUNT_PREFIX.has(lower[0])) postAuthor = segs[1].replace(/^@/, '');
  }
  let account: string | null = null;
  if (post === null && segs.length >= 1) {
    const at = ACCOUNT_PREFIX.has(lower[0]) && segs.length >= 2 ? 1 : 0;
    const h = segs[at].replace(/^@/, '');
    if ((at === 1 || !NOT_ACCOUNT.has(lower[0])) && HANDLE.test(h)) account = h;
  }
  return { url, href, host: url.hostname.toLowerCase(), segs, account, post, postAuthor };
}

/** An account as an endpoint takes it: which parameter, its value, and a key that finds duplicates. */
export type AccountOf = { param: string; account: string; key: string } | { reason: string };

/** endpoint parameters that take a handle, in order of preference */
export const HANDLE_PARAMS = ['handle', 'username', 'user', 'screen_name'];
export const URL_PARAMS = ['url', 'profile_url'];

/** An account's address (already read) for an endpoint whose parameters are `names`. */
export function accountOfAddress(a: AddressRef, names: ReadonlySet<string>): AccountOf {
  const handleParam = HANDLE_PARAMS.find((p) => names.has(p));
  const urlParam = URL_PARAMS.find((p) => names.has(p));
  if (urlParam) {
    const norm = `${a.url.protocol}//${a.host}${a.url.pathname.replace(/\/+$/, '')}`;
    return { param: urlParam, account: a.href, key: a.account ? `@${a.account.toLowerCase()}` : norm.toLowerCase() };
  }
  if (!handleParam) return { reason: 'this endpoint takes neither a handle nor an address' };
  if (!a.account)
    return {
      reason: `not an account's address (${a.segs.length ? `a /${a.segs[0]}/ address` : 'no account in it'}); give the account's handle or profile address`,
    };
  return { param: handleParam, account: a.account, key: `@${a.account.toLowerCase()}` };
}

/** One account (a handle, `@handle`, or a profile address) for an endpoint whose parameters are `names`. */
export function accountOf(value: string, names: ReadonlySet<string>): AccountOf {
  const v = unquote(value);
  const handleParam = HANDLE_PARAMS.find((p) => names.has(p));
  const urlParam = URL_PARAMS.find((p) => names.has(p));
  if (/^https?:\/\//i.test(v) || asUrl(v)) {
    const a = readAddress(v);
    return a ? accountOfAddress(a, names) : { reason: 'not a web address' };
  }
  if (/\s|,|;/.test(v)) return { reason: 'more than one word: give one account per line (or a CSV with a handle, username or url column)' };
  const handle = v.replace(/^@/, '');
  if (!HANDLE.test(handle)) return { reason: 'not a handle (letters, digits, dot, underscore and hyphen only) nor a web address' };
  if (!handleParam) return { reason: `this endpoint takes a profile address (${urlParam ?? 'url'}), not a handle` };
  return { param: handleParam, account: handle, key: `@${handle.toLowerCase()}` };
}

/**
 * The network another catalogue platform's address belongs to, when a web address's host names it;
 * null for a handle, this platform's address, or a host that names no platform in `platforms`.
 */
export function otherNetworkOf(value: string, platform: string, platforms: readonly string[]): { platform: string; host: string } | null {
  const u = asUrl(value);
  if (!u) return null;
  const host = u.hostname.toLowerCase();
  const named = platformOfHost(host, platforms.includes(platform) ? platforms : [...platforms, platform]);
  return named && named !== platform ? { platform: named, host } : null;
}
