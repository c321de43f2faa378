/**
 * Accounts, posts, comments and profile records of the synthetic world (what each network's records
 * leave null, its kinds of post: platform-traits.ts).
 * Every value is a pure function of (seed, platform, identity, index).
 */
import type { AuthorRecord, Platform, PostRecord } from '../../shared/api-types';
import type { WorldRow } from '../types';
import { BRANDS, COUNTRIES, NICHES, type Brand } from './corpus';
import { DOMAIN, handleFromHash, postIdFrom, postUrl, profileUrl, snowflake, userId } from './ids';
import { hashStr, mix, mix3, Rng, unit } from './rng';
import { bioText, caption, commentText, personName, type TextCtx } from './text';
import { commentNull, kindFor, LANGS, SUBS, VIDEO_KINDS } from './platform-traits';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** `attrition`: posts removed and accounts made private as the clock moves (aging.ts); default on */
export type WorldCtx = { seed: number; epoch: number; attrition?: boolean };

let isoDay = NaN;
let isoDayStr = '';
/** ISO 8601 UTC with Z; caches the date part (fast path for generators). */
export function iso(ms: number): string {
  const t = Math.floor(ms);
  const day = Math.floor(t / 86_400_000);
  if (day !== isoDay) {
    isoDay = day;
    isoDayStr = new Date(day * 86_400_000).toISOString().slice(0, 11);
  }
  let r = t - day * 86_400_000;
  const hh = Math.floor(r / 3_600_000);
  r -= hh * 3_600_000;
  const mm = Math.floor(r / 60_000);
  r -= mm * 60_000;
  const ss = Math.floor(r / 1000);
  const ms3 = r - ss * 1000;
  return (
    isoDayStr +
    (hh < 10 ? '0' : '') +
    hh +
    ':' +
    (mm < 10 ? '0' : '') +
    mm +
    ':' +
    (ss < 10 ? '0' : '') +
    ss +
    '.' +
    (ms3 < 10 ? '00' : ms3 < 100 ? '0' : '') +
    ms3 +
    'Z'
  );
}

// ---------------------------------------------------------------------------------------------
// Accounts
// ---------------------------------------------------------------------------------------------

export interface Account {
  platform: Platform;
  handle: string;
  h: number;
  id: string;
  displayName: string;
  avatarUrl: string;
  verified: boolean;
  followers: number;
  following: number;
  cadenceMs: number;
  /** Posts that exist before the epoch. */
  before: number;
  joinedAt: number;
  bio: string;
  email: string | null;
  lang: string;
  niche: number;
  pinned: number[];
  empty: boolean;
  externalUrl: string | null;
  urn: string | null;
  country: string;
  brand: Brand | null;
  category: string;
}

export function makeAccount(ctx: WorldCtx, platform: Platform, rawHandle: string): Account {
  const handle = rawHandle.replace(/^@+/, '');
  const key = handle.toLowerCase();
  const h = hashStr(platform + '\u0001' + key, ctx.seed);
  const r = new Rng(h);
  const brand = BRANDS.find((b) => b.handle === key) ?? null;
  const niche = brand ? NICHES.findIndex((n) => n.id === brand.niche) : r.int(NICHES.length);
  const followers = brand ? r.logInt(4.5, 7) : r.logInt(1.5, 7.2, 1.8);
  const verified = brand ? true : followers > 300_000 ? r.chance(0.75) : r.chance(0.02);
  const cadenceMs = Math.round((2 + r.next() * 10) * HOUR);
  const before = r.range(200, 600);
  const joinedAt = ctx.epoch - before * cadenceMs - r.int(3 * 365) * DAY;
  const lang = r.pick(LANGS);
  const displayName = brand ? brand.name : personName(r);
  const email = r.chance(0.35)
    ? `${key.replace(/[^a-z0-9._-]/g, '') || 'contact'}@${r.pick(['gmail.example', 'mail.example', 'brand.example'])}`
    : null;
  const ctxT: TextCtx = { niche, name: displayName, email: email ?? undefined, brand: brand ?? undefined };
  let bio = bioText(r, ctxT).text;
  if (email && !bio.includes(email)) bio += (r.chance(0.5) ? '\n' : ' · ') + email;
  const np = r.next();
  const pinnedCount = np < 0.55 ? 0 : np < 0.85 ? 1 : 2;
  const pinned: number[] = [];
  for (let k = 0; k < pinnedCount; k++) {
    const idx = before - 5 - r.int(Math.min(150, before - 10));
    if (!pinned.includes(idx)) pinned.push(idx);
  }
  const id = userId(platform, h);
  return {
    platform,
    handle,
    h,
    id,
    displayName,
    avatarUrl: `https://cdn.${DOMAIN[platform]}/avatars/${id.replace(/[^A-Za-z0-9_-]/g, '')}.jpg`,
    verified,
    followers,
    following: r.logInt(1, 3.8),
    cadenceMs,
    before,
    joinedAt,
    bio,
    email,
    lang,
    niche,
    pinned,
    empty: /^empty_/i.test(handle),
    externalUrl: r.chance(0.5)
      ? `https://${key.replace(/[^a-z0-9-]/g, '') || 'site'}.example/${r.pick(['', 'shop', 'links', 'blog'])}`
      : null,
    urn: platform === 'work_net' ? `urn:li:fsd_profile:${id}` : null,
    country: r.pick(COUNTRIES),
    brand,
    category: NICHES[niche].id,
  };
}

export function authorOf(a: Account): AuthorRecord {
  return { id: a.id, username: a.handle, display_name: a.displayName, avatar_url: a.avatarUrl, verified: a.verified };
}

/** Full author object (profile records). */
export function fullAuthor(a: Account): AuthorRecord {
  const ext: Record<string, unknown> = {
    public_email: a.email,
    external_url: a.externalUrl,
    country: a.country,
    category: a.category,
  };
  if (a.platform === 'work_net') ext.urn = a.urn;
  return {
    id: a.id,
    username: a.handle,
    display_name: a.displayName,
    avatar_url: a.avatarUrl,
    verified: a.verified,
    followers: a.followers,
    following: a.following,
    bio: a.bio,
    joined_at: iso(a.joinedAt),
    ext,
  };
}

/** Time of the account's post number i (monotonic in i). */
export function postTime(ctx: WorldCtx, a: Account, i: number): number {
  return ctx.epoch + (i - a.before) * a.cadenceMs + Math.floor(unit(mix(a.h, i)) * 0.8 * a.cadenceMs);
}

/** Number of the account's posts published at or before `now`. */
export function postCount(ctx: WorldCtx, a: Account, now: number): number {
  if (a.empty) return 0;
  let k = Math.floor((now - ctx.epoch) / a.cadenceMs) + a.before;
  if (k < -1) return 0;
  while (k >= 0 && postTime(ctx, a, k) > now) k--;
  while (postTime(ctx, a, k + 1) <= now) k++;
  return Math.max(0, k + 1);
}

export function profileRecord(ctx: WorldCtx, a: Account, now: number): { id: string } & Record<string, unknown> {
  const posts = postCount(ctx, a, now);
  return {
    id: a.id,
    url: profileUrl(a.platform, a.handle),
    platform: a.platform,
    author: fullAuthor(a),
    counts: { posts, followers: a.followers, following: a.following },
    external_url: a.externalUrl,
    category: a.category,
    is_private: false,
    is_business: a.brand !== null || a.email !== null,
  };
}

// ---------------------------------------------------------------------------------------------
// Null-field application
// ---------------------------------------------------------------------------------------------

const PARSED = new Map<string, Array<[string, string]>>();
const PARSED_BY_REF = new WeakMap<readonly string[], Array<[string, string]>>();
function parsedNulls(fields: readonly string[]): Array<[string, string]> {
  const hit = PARSED_BY_REF.get(fields);
  if (hit) return hit;
  const k = fields.join('|');
  let v = PARSED.get(k);
  if (!v) {
    v = fields.map((f) => {
      const dot = f.indexOf('.');
      return dot < 0 ? ['', f] : [f.slice(0, dot), f.slice(dot + 1)];
    });
    if (PARSED.size > 1000) PARSED.clear();
    PARSED.set(k, v);
  }
  PARSED_BY_REF.set(fields, v);
  return v;
}

export function applyNull(rec: PostRecord, fields: readonly string[]): void {
  const r = rec as unknown as Record<string, Record<string, unknown> | null>;
  for (const [group, k] of parsedNulls(fields)) {
    if (group === '') {
      if (k === 'language') rec.language = null;
      else if (k === 'url') rec.url = null;
      continue;
    }
    const o = r[group];
    if (o && k in o && !(group === 'flags' && k === 'deleted')) o[k] = null;
  }
}

// ---------------------------------------------------------------------------------------------
// Posts
// ---------------------------------------------------------------------------------------------

export interface PostOpts {
  /** Extra fields filled (include=stats / engagement / full). */
  fill?: Set<string>;
  /** Null fields of this list. */
  nulls: readonly string[];
  q?: string;
  brandHint?: Brand;
  hostileRate?: number;
}

export interface BuiltPost {
  rec: PostRecord;
  row: WorldRow;
}

function media(p: Platform, id: string, kind: string, r: Rng): { urls: string[]; thumb: string | null; dur: number | null } {
  const base = `https://cdn.${DOMAIN[p]}/m/${id}`;
  if (kind === 'text' || kind === 'question') return { urls: [], thumb: null, dur: null };
  if (kind === 'link' || kind === 'article') return { urls: [], thumb: `${base}/preview.jpg`, dur: null };
  if (kind === 'carousel') {
    const n = r.range(2, 10);
    const urls: string[] = [];
    for (let k = 0; k < n; k++) urls.push(`${base}/${k}.jpg`);
    return { urls, thumb: `${base}/0.jpg`, dur: null };
  }
  if (kind === 'document') return { urls: [`${base}/doc.pdf`], thumb: `${base}/cover.jpg`, dur: null };
  if (VIDEO_KINDS.has(kind)) {
    const dur =
      kind === 'video' ? r.range(45, 3600) + Math.round(r.next() * 1000) / 1000 : r.range(6, 90) + Math.round(r.next() * 1000) / 1000;
    return { urls: [`${base}/video.mp4`], thumb: `${base}/cover.jpg`, dur };
  }
  return { urls: [`${base}/0.jpg`], thumb: `${base}/0.jpg`, dur: null };
}

/** Build one post record. `h` is the row hash; `t` its publish time (null allowed). */
export function buildPost(
  ctx: WorldCtx,
  p: Platform,
  a: Account,
  h: number,
  t: number | null,
  kind: string,
  opts: PostOpts,
  pinned: boolean,
): BuiltPost {
  const r = new Rng(h);
  const flake = snowflake(t ?? ctx.epoch - (h % (400 * DAY)), mix(h, 7));
  const id = postIdFrom(p, flake, h);
  const niche = r.chance(0.8) ? a.niche : r.int(NICHES.length);
  const tctx: TextCtx = { niche, q: opts.q, brand: opts.brandHint };
  const cap = caption(r, tctx, a.lang, opts.hostileRate ?? 0.1);
  let text = cap.text;
  if (opts.q && !r.chance(0.15)) {
    // search rows mostly mention the query
    const q = opts.q;
    const x = r.next();
    text = x < 0.4 ? `${q}: ${text}` : x < 0.8 ? `${text} #${q.replace(/\s+/g, '')}` : `Thoughts on ${q}? ${text}`;
  }
  const m = media(p, id, kind, r);
  const isVideo = VIDEO_KINDS.has(kind);
  const reach = Math.max(10, a.followers);
  const likes = r.chance(0.03) ? 0 : Math.floor(reach * (0.002 + 0.06 * Math.pow(r.next(), 2.2)));
  const comments = r.chance(0.06) ? 0 : Math.floor(likes * (0.005 + 0.05 * r.next()));
  const views =
    isVideo || p === 'micro_net' || p === 'qa_net' || p === 'stream_net' ? Math.floor(likes * (8 + 40 * r.next())) + r.int(50) : null;
  let sub: string | undefined;
  const ext: Record<string, unknown> = {};
  if (p === 'forum_net') {
    sub = r.pick(SUBS);
    ext.subreddit = sub;
    ext.post_title = text.split(/\r?\n/)[0].slice(0, 120);
    ext.upvote_ratio = Math.round((0.5 + r.next() * 0.5) * 100) / 100;
  }
  let activity: string | undefined;
  if (p === 'work_net') {
    activity = flake;
    ext.activity_urn = `urn:li:activity:${flake}`;
  }
  const rec: PostRecord = {
    id: p === 'work_net' && r.chance(0.4) ? snowflake((t ?? ctx.epoch) + 17, mix(h, 8)) : id,
    url: postUrl(p, id, a.handle, kind, text, { sub, activity }),
    kind,
    parent_id: null,
    content: { text, media_urls: m.urls, thumbnail_url: m.thumb, duration_seconds: m.dur },
    author: authorOf(a),
    engagement: {
      views,
      likes,
      comments,
      shares: Math.floor(likes * (0.01 + 0.2 * r.next())),
      saves: Math.floor(likes * (0.02 + 0.3 * r.next())),
    },
    flags: {
      nsfw: r.chance(0.01),
      spoiler: r.chance(0.02),
      pinned,
      likes_hidden: r.chance(0.03),
      comments_hidden: r.chance(0.02),
      shares_hidden: false,
      views_hidden: false,
      saves_hidden: false,
      deleted: false,
    },
    published_at: t === null ? null : iso(t),
    language: cap.lang,
    ext,
  };
  if (rec.flags.likes_hidden && p === 'photo_net') rec.engagement.likes = null;
  if (p === 'photo_net' && r.chance(0.1)) {
    const co = makeAccount(ctx, p, `collab_${(h % 997).toString(36)}_${a.handle.slice(0, 8)}`);
    ext.coauthors = [authorOf(a), authorOf(co)].map((x) => ({ id: x.id, username: x.username }));
  }
  if (p === 'photo_net' || p === 'short_video_net') {
    if (isVideo)
      ext.music_id = opts.fill?.has('music') || p === 'short_video_net' ? String(7000000000000000000n + BigInt(mix(h, 9)) * 1000n) : null;
  }
  if (p === 'micro_net' || p === 'open_micro_net') ext.repost_count = rec.engagement.shares;
  if (p === 'qa_net') {
    ext.title = text.split(/[?？]/)[0].slice(0, 150) + '?';
    ext.answer_count = r.range(0, 40);
    ext.follower_count = r.range(0, 900);
  }
  if (p === 'video_net' || p === 'video_net_b' || p === 'stream_net') {
    ext.title = text.split(/\r?\n/)[0].slice(0, 100);
    if (p === 'stream_net') ext.category = NICHES[niche].id;
  }
  let nulls = opts.nulls;
  if (opts.fill && opts.fill.size > 0) nulls = nulls.filter((f) => !opts.fill?.has(f));
  applyNull(rec, nulls);
  if (!isVideo && rec.engagement.views !== null && p !== 'micro_net' && p !== 'qa_net') rec.engagement.views = null;
  if (opts.fill?.has('stats')) {
    ext.repost_count = Math.floor((rec.engagement.shares ?? 0) / 3);
    ext.remix_count = isVideo ? r.int(40) : 0;
    if (isVideo) ext.music_id = String(7000000000000000000n + BigInt(mix(h, 9)) * 1000n);
  }
  if (Object.keys(ext).length === 0) rec.ext = null;
  return {
    rec,
    row: { id: rec.id, publishedAt: t, pinned, item: { post: rec as unknown as { id: string } & Record<string, unknown> }, text },
  };
}

/** The idx-th post of an account's own feed. */
export function accountPost(ctx: WorldCtx, a: Account, i: number, opts: PostOpts): BuiltPost {
  const h = mix3(a.h, i, 0x51ed);
  const kind = kindFor(a.platform, mix(h, 3));
  return buildPost(ctx, a.platform, a, h, postTime(ctx, a, i), kind, opts, a.pinned.includes(i));
}

export function accountPostKind(a: Account, i: number): string {
  return kindFor(a.platform, mix(mix3(a.h, i, 0x51ed), 3));
}

// ---------------------------------------------------------------------------------------------
// Comments
// ---------------------------------------------------------------------------------------------

export interface PostRef {
  platform: Platform;
  id: string;
  url: string;
  publishedAt: number;
  comments: number;
  authorHandle: string;
  niche: number;
  h: number;
}

/** Comment number j of a post (or reply number j of a comment when parentId differs). */
export function buildComment(
  ctx: WorldCtx,
  ref: PostRef,
  parentId: string,
  j: number,
  t: number,
  reply: boolean,
  brandHint?: Brand,
): BuiltPost {
  const p = ref.platform;
  const h = mix3(hashStr(parentId, ctx.seed), j, reply ? 0xbeef : 0xc0de);
  const r = new Rng(h);
  const authorHandle = j % 17 === 5 ? ref.authorHandle : handleFromHash(h);
  const a = makeAccount(ctx, p, authorHandle);
  const c = commentText(r, { niche: ref.niche, brand: brandHint });
  const flake = snowflake(t, mix(h, 5));
  const id = p === 'forum_net' ? BigInt(flake).toString(36) : p === 'video_net' ? 'Ug' + BigInt(flake).toString(36) : flake;
  const likes = r.chance(0.35) ? 0 : Math.floor(Math.pow(r.next(), 3) * Math.max(20, ref.comments * 3));
  const replies = reply ? 0 : replyCount(ctx, id);
  const rec: PostRecord = {
    id,
    url:
      p === 'work_net'
        ? `${ref.url}?commentUrn=urn:li:comment:(activity:${ref.id},${id})`
        : `${ref.url.replace(/\/$/, '')}${p === 'video_net' ? '&lc=' : '/c/'}${id}`,
    kind: reply ? 'reply' : 'comment',
    parent_id: parentId,
    content: { text: c.text, media_urls: [], thumbnail_url: null, duration_seconds: null },
    author: authorOf(a),
    engagement: { views: null, likes, comments: replies, shares: null, saves: null },
    flags: {
      nsfw: null,
      spoiler: null,
      pinned: !reply && j === 0 && r.chance(0.3),
      likes_hidden: null,
      comments_hidden: null,
      shares_hidden: null,
      views_hidden: null,
      saves_hidden: null,
      deleted: false,
    },
    published_at: iso(t),
    language: c.lang,
    ext: null,
  };
  applyNull(rec, commentNull(p));
  return {
    rec,
    row: { id, publishedAt: t, pinned: false, item: { post: rec as unknown as { id: string } & Record<string, unknown> }, text: c.text },
  };
}

/** Reply count of a comment, derived from its id so the comment and its reply list agree. */
export function replyCount(ctx: WorldCtx, commentId: string): number {
  const u = unit(hashStr(commentId, ctx.seed ^ 0x7e57));
  return u < 0.6 ? 0 : Math.floor(Math.pow((u - 0.6) / 0.4, 2) * 25);
}
