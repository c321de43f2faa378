/**
 * Reading identifiers out of request parameters, and the reserved prefixes:
 *   private_… / missing_…  → not found (404 RESOURCE_NOT_FOUND)
 *   empty_…                → the account/post/query exists but has no rows
 *   nospeech_ (media url)  → transcript 404 with reason no_speech
 *   nocaptions_ (video url)→ transcript value null
 */

/** Parameters that name the thing asked for, in priority order. */
export const ID_KEYS = [
  'handle',
  'username',
  'user',
  'user_id',
  'userId',
  'pageId',
  'page_id',
  'channel_id',
  'channelId',
  'channel',
  'group_id',
  'groupId',
  'url',
  'post_url',
  'comment_url',
  'video_url',
  'profile_url',
  'id',
  'ids',
  'query',
  'q',
  'keyword',
  'keywords',
  'hashtag',
  'tag',
  'audio_id',
  'music_id',
  'song_id',
  'location_id',
  'place_id',
  'story_id',
  'playlist_id',
  'collection_id',
  'effect_id',
  'subreddit',
  'board',
  'urn',
  'feedback_id',
  'comment_id',
  'author',
  'video_id',
  'post_id',
  'tweet_id',
  'clip_id',
  'question_id',
  'company',
  'name',
] as const;

const RESERVED_404 = /^(private_|missing_)/i;

/** Candidate strings to test for prefixes: the value, or for URLs each path segment and query value. */
export function pieces(v: string): string[] {
  const out: string[] = [];
  const s = v.trim().replace(/^[@#]+/, '');
  out.push(s);
  if (/^https?:\/\//i.test(s)) {
    try {
      const u = new URL(s);
      for (const seg of u.pathname.split('/')) if (seg) out.push(decodeURIComponent(seg).replace(/^@/, ''));
      for (const [, qv] of u.searchParams) out.push(qv);
    } catch {}
  } else if (s.includes(':')) {
    // operator-scoped queries: author:foo subreddit:bar, urns
    for (const part of s.split(/[\s:]+/)) if (part) out.push(part.replace(/^[@#"]+/, ''));
  }
  return out;
}

/** The reserved outcome of the identifiers in `params`, if any. */
export function reserved(params: Record<string, string>): 'notFound' | 'empty' | null {
  let empty = false;
  for (const k of ID_KEYS) {
    const v = params[k];
    if (typeof v !== 'string' || v === '') continue;
    for (const p of pieces(v)) {
      if (RESERVED_404.test(p)) return 'notFound';
      if (/^empty_/i.test(p)) empty = true;
    }
  }
  return empty ? 'empty' : null;
}

export function hasMarker(params: Record<string, string>, marker: string): boolean {
  for (const k of ID_KEYS) {
    const v = params[k];
    if (typeof v === 'string' && v.toLowerCase().includes(marker)) return true;
  }
  return false;
}

const PROFILE_PREFIX = new Set(['in', 'company', 'user', 'u', 'profile', 'channel', 'c', 'pg', 'people', 'school', 'showcase']);

/** A handle from a profile URL, or the string itself. */
export function handleFromUrlOrName(v: string): string {
  const s = v.trim();
  if (/^https?:\/\//i.test(s)) {
    try {
      const u = new URL(s);
      const segs = u.pathname
        .split('/')
        .filter(Boolean)
        .map((x) => decodeURIComponent(x));
      if (segs.length === 0) return u.hostname.split('.')[0];
      const at = segs.find((x) => x.startsWith('@'));
      if (at) return at.slice(1);
      if (PROFILE_PREFIX.has(segs[0].toLowerCase()) && segs[1]) return segs[1];
      if (segs[0] === 'r' && segs[1]) return segs[1];
      if (segs[0] === 'groups' && segs[1]) return segs[1];
      if (segs[0] === 'events' && segs[1]) return segs[segs.length - 1];
      return segs[0];
    } catch {
      return s;
    }
  }
  return s.replace(/^@+/, '');
}

/** Normalised form of a post URL, used as a lookup key. */
export function normUrl(v: string): string {
  const s = v.trim();
  if (!/^https?:\/\//i.test(s)) return s;
  try {
    const u = new URL(s);
    const keep = ['v', 'commentUrn'];
    const qs = keep.filter((k) => u.searchParams.has(k)).map((k) => `${k}=${u.searchParams.get(k)}`);
    return `${u.hostname.toLowerCase().replace(/^www\./, '')}${u.pathname.replace(/\/+$/, '')}${qs.length ? '?' + qs.join('&') : ''}`;
  } catch {
    return s;
  }
}

/** Best-effort account handle from a post URL (networks whose URLs carry it). */
export function handleFromPostUrl(v: string): string | null {
  if (!/^https?:\/\//i.test(v)) return null;
  try {
    const u = new URL(v);
    const segs = u.pathname
      .split('/')
      .filter(Boolean)
      .map((x) => decodeURIComponent(x));
    const at = segs.find((x) => x.startsWith('@'));
    if (at) return at.slice(1);
    if (segs[0] === 'profile' && segs[1]) return segs[1];
    if (segs.length >= 3 && (segs[1] === 'status' || segs[1] === 'posts' || segs[1] === 'clip')) return segs[0];
    return null;
  } catch {
    return null;
  }
}

/** Strip search operators; returns the text part and any scoping. */
export function parseQuery(q: string): { text: string; author: string | null; subreddit: string | null } {
  let author: string | null = null;
  let subreddit: string | null = null;
  const text = q
    .replace(/\bauthor:(\S+)/gi, (_m, a: string) => {
      author = a.replace(/^@/, '');
      return '';
    })
    .replace(/\bsubreddit:(\S+)/gi, (_m, s: string) => {
      subreddit = s.replace(/^r\//, '');
      return '';
    })
    .replace(/["“”]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return { text, author, subreddit };
}
