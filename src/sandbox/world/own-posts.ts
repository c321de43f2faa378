/**
 * An account's own posts (gen `user_posts`): pinned first, then newest first; grows with `now`.
 * Traits: `kinds` (which post kinds are listed), `fill`, `attach: 'profile_metrics'`.
 */
import type { PostRecord } from '../../shared/api-types';
import { traitsOf } from '../registry/traits';
import type { EndpointDef, FeedResult, NotFound, WorldRow } from '../types';
import { includeTokens, type WorldCore } from './core';
import { accountPost, accountPostKind, DAY, postCount, profileRecord, type Account } from './records';
import { POST_NULL } from './platform-traits';
import { hashStr, orderKey } from './rng';
import { postOf } from './loose';

/** Fields filled on every row: the endpoint's declared ones, and those `include` asks for. */
export function fills(def: EndpointDef, params: Record<string, string>): Set<string> {
  const inc = includeTokens(params);
  const fill = new Set<string>(traitsOf(def).fill ?? []);
  if (def.platform === 'photo_net') {
    if (inc.has('stats')) ['engagement.shares', 'engagement.saves', 'stats'].forEach((x) => fill.add(x));
    if (inc.has('audio')) fill.add('music');
  }
  if (def.platform === 'social_net' && inc.has('engagement')) ['engagement.shares', 'engagement.views'].forEach((x) => fill.add(x));
  return fill;
}

export function userPosts(w: WorldCore, def: EndpointDef, params: Record<string, string>, now: number): FeedResult | NotFound {
  const p = def.platform;
  const t = traitsOf(def);
  const a = w.accountFromParams(p, params) ?? w.account(p, 'anonymous');
  const fill = fills(def, params);
  const nulls = POST_NULL[p].filter((f) => !fill.has(f));
  const kinds = t.kinds ?? null;
  const key = `${p}|up|${a.handle.toLowerCase()}|${a.id}|${[...fill].sort().join(',')}`;
  let c = w.feeds.get(key);
  if (!c) {
    c = { built: [] };
    w.feeds.set(key, c);
  }
  const count = postCount(w.ctx, a, now);
  const flk = kinds ? kinds.join(',') : '*';
  const cacheKey = `${flk}|${def.dateOrdered}`;
  if (!(c.last && c.last.count === count && c.last.k === cacheKey)) {
    const opts = { nulls, fill };
    for (let i = c.built.length; i < count; i++) {
      const b = accountPost(w.ctx, a, i, opts);
      c.built.push(b);
      w.remember(p, b, w.refOf(p, b, a));
    }
    const want = (i: number) => !kinds || kinds.includes(accountPostKind(a, i));
    const rows: WorldRow[] = [];
    for (const i of a.pinned) if (i < count && want(i)) rows.push(c.built[i].row);
    const rest: WorldRow[] = [];
    for (let i = count - 1; i >= 0; i--) if (!a.pinned.includes(i) && want(i)) rest.push(c.built[i].row);
    if (!def.dateOrdered) rest.sort((x, y) => orderKey(a.h, hashStr(x.id)) - orderKey(a.h, hashStr(y.id)));
    rows.push(...rest);
    c.last = { rows, count, k: cacheKey };
  }
  let rows = c.last.rows;
  if (t.attach !== 'profile_metrics') return { rows, unavailable: nulls, ext: undefined };
  rows = rows.slice();
  const ext = { profile: profileRecord(w.ctx, a, now), metrics: metrics(rows.slice(0, 12), a) };
  return { rows, unavailable: nulls, ext };
}

function metrics(rows: WorldRow[], a: Account): Record<string, unknown> {
  const recs = rows.map((r) => postOf(r.item.post));
  const likes = recs.map((r) => r.engagement.likes ?? 0);
  const views = recs.map((r) => r.engagement.views ?? 0);
  const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
  const top = recs.reduce<PostRecord | null>((m, r) => (!m || (r.engagement.likes ?? 0) > (m.engagement.likes ?? 0) ? r : m), null);
  const mix: Record<string, number> = {};
  for (const r of recs) mix[r.kind ?? 'other'] = (mix[r.kind ?? 'other'] ?? 0) + 1;
  return {
    posts_considered: recs.length,
    engagement_rate_by_followers: a.followers ? Math.round((sum(likes) / recs.length / a.followers) * 1e5) / 1e5 : null,
    engagement_rate_by_views: sum(views) ? Math.round((sum(likes) / sum(views)) * 1e5) / 1e5 : null,
    posts_per_week: Math.round(((7 * DAY) / a.cadenceMs) * 10) / 10,
    top_post_id: top?.id ?? null,
    format_mix: mix,
  };
}
