/**
 * The world's core: accounts, the index of posts already served (so `post?url=` returns the same
 * record a feed showed; fallback: a deterministic record synthesised from the URL) and the list
 * caches (which never change an answer). The generators (own-posts, search, comments, people,
 * events, objects, posts, singles) read and fill it; world.ts dispatches to them.
 */
import type { Platform, PostRecord } from '../../shared/api-types';
import type { WorldRow } from '../types';
import { handleFromPostUrl, handleFromUrlOrName, normUrl } from './identify';
import { Lru } from './lru';
import { buildPost, DAY, HOUR, makeAccount, type Account, type BuiltPost, type PostRef, type WorldCtx } from './records';
import { handleFromHash } from './ids';
import { kindFor, POST_NULL } from './platform-traits';
import { hashStr, mix } from './rng';
import { postOf } from './loose';

export type Rec = { id: string } & Record<string, unknown>;
export type Built = { rows: WorldRow[]; count: number };
export type CachedList = { rows: WorldRow[]; unavailable: string[]; ext?: Record<string, unknown> };

export function asRec(x: unknown): Rec {
  return x as Rec;
}

export function clone<T>(x: T): T {
  return structuredClone(x);
}

/** Monotone time function → number of indices with time <= now (binary search in [0, hi]). */
export function countUpTo(time: (i: number) => number, now: number, hi: number): number {
  let lo = 0;
  let h = hi;
  if (time(0) > now) return 0;
  while (lo < h) {
    const mid = (lo + h + 1) >>> 1;
    if (time(mid) <= now) lo = mid;
    else h = mid - 1;
  }
  return lo + 1;
}

export function includeTokens(params: Record<string, string>): Set<string> {
  return new Set(
    (params.include ?? '')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
}

export function recOf(r: WorldRow): Rec {
  return Object.values(r.item)[0];
}

export function likesOf(r: WorldRow): number {
  const e = postOf(recOf(r)).engagement;
  return e ? (e.likes ?? e.views ?? 0) : 0;
}

/** Most liked first, ties by id. */
export function byLikes(x: WorldRow, y: WorldRow): number {
  return likesOf(y) - likesOf(x) || (x.id < y.id ? -1 : 1);
}

export class WorldCore {
  readonly seed: number;
  readonly ctx: WorldCtx;
  private accounts = new Lru<string, Account>(20000);
  /** user_posts: an account's posts built so far and the last list made of them. */
  readonly feeds = new Lru<string, { built: BuiltPost[]; last?: Built & { k?: string } }>(400);
  private lists = new Lru<string, CachedList & { count: number }>(400);
  private known = new Lru<string, { rec: PostRecord; ref: PostRef }>(200000);
  private userIds = new Lru<string, string>(100000);

  constructor(seed: number, epoch: number, attrition = true) {
    this.seed = seed;
    this.ctx = { seed, epoch, attrition };
  }

  account(p: Platform, handle: string): Account {
    const k = p + '|' + handle.replace(/^@+/, '').toLowerCase();
    let a = this.accounts.get(k);
    if (!a) {
      a = makeAccount(this.ctx, p, handle);
      this.accounts.set(k, a);
      this.userIds.set(p + '|' + a.id, a.handle);
    }
    return a;
  }

  accountFromParams(p: Platform, params: Record<string, string>): Account | null {
    const h = params.handle ?? params.username ?? params.user ?? params.channel;
    if (h) return this.account(p, handleFromUrlOrName(h));
    const url = params.url ?? params.profile_url;
    if (url) return this.account(p, handleFromUrlOrName(url));
    const id = params.user_id ?? params.userId ?? params.pageId ?? params.page_id ?? params.channel_id ?? params.channelId ?? params.urn;
    if (id) {
      const known = this.userIds.get(p + '|' + id);
      if (known) return this.account(p, known);
      const a = { ...this.account(p, 'user_' + id.replace(/[^A-Za-z0-9_]/g, '').slice(-24)) };
      a.id = id;
      return a;
    }
    return null;
  }

  remember(p: Platform, b: BuiltPost, ref: PostRef): void {
    const v = { rec: b.rec, ref };
    if (b.rec.url) this.known.set(p + '|' + normUrl(b.rec.url), v);
    this.known.set(p + '|' + b.rec.id, v);
    if (ref.id !== b.rec.id) this.known.set(p + '|' + ref.id, v);
  }

  refOf(p: Platform, b: BuiltPost, a: Account, niche?: number): PostRef {
    const act =
      b.rec.ext && typeof b.rec.ext.activity_urn === 'string'
        ? ((b.rec.ext.activity_urn as string).split(':').pop() ?? b.rec.id)
        : b.rec.id;
    return {
      platform: p,
      id: act,
      url: b.rec.url ?? '',
      publishedAt: b.row.publishedAt ?? this.ctx.epoch - 30 * DAY,
      comments: b.rec.engagement.comments ?? 25,
      authorHandle: a.handle,
      niche: niche ?? a.niche,
      h: hashStr(b.rec.id, this.seed),
    };
  }

  /** A post by url / id: the indexed one, or one synthesised from the identifier. */
  postByIdent(p: Platform, params: Record<string, string>): { rec: PostRecord; ref: PostRef } {
    const v =
      params.url ??
      params.post_url ??
      params.video_url ??
      params.id ??
      params.video_id ??
      params.post_id ??
      params.tweet_id ??
      params.feedback_id ??
      params.comment_url ??
      params.clip_id ??
      '';
    const hit = this.known.get(p + '|' + normUrl(v)) ?? this.known.get(p + '|' + v);
    if (hit) return hit;
    const h = hashStr(p + '|' + normUrl(v), this.seed);
    const fromUrl = handleFromPostUrl(v);
    const a = this.account(p, fromUrl ?? handleFromHash(h));
    const t = this.ctx.epoch - (h % (120 * DAY)) - HOUR;
    const b = buildPost(this.ctx, p, a, h, t, kindFor(p, mix(h, 3)), { nulls: POST_NULL[p] }, false);
    if (/^https?:\/\//i.test(v)) {
      b.rec.url = v;
      const u = new URL(v);
      const segs = u.pathname.split('/').filter(Boolean);
      const cand =
        u.searchParams.get('v') ?? [...segs].reverse().find((s) => /^[0-9]{6,}$|^[A-Za-z0-9_-]{6,}$/.test(s) && !s.startsWith('urn'));
      const urn = /activity:(\d+)/.exec(v);
      b.rec.id = urn ? urn[1] : (cand ?? b.rec.id);
    } else if (v) {
      b.rec.id = v;
    }
    b.row.id = b.rec.id;
    const ref = this.refOf(p, b, a);
    ref.id = b.rec.id;
    return { rec: b.rec, ref };
  }

  /** The list under `key` while its row count is `count`; made again when the count changes. */
  cachedList(key: string, count: number, make: () => CachedList): CachedList {
    const c = this.lists.get(key);
    if (c && c.count === count) return c;
    const v = { ...make(), count };
    this.lists.set(key, v);
    return v;
  }
}
