/**
 * Comment lists: comments of a post (gen `comments`), replies under one comment (`replies`) and
 * the forum's comment search (`search_comments`).
 */
import type { PostRecord } from '../../shared/api-types';
import type { EndpointDef, FeedResult, NotFound, WorldRow } from '../types';
import { asRec, byLikes, countUpTo, type WorldCore } from './core';
import { BRANDS, NICHES } from './corpus';
import { parseQuery } from './identify';
import { DOMAIN, handleFromHash, slug, snowflake } from './ids';
import { authorOf, buildComment, DAY, HOUR, iso, replyCount } from './records';
import { commentNull } from './platform-traits';
import { hashStr, mix, mix3, Rng, unit } from './rng';
import { forumComment } from './text';

export function comments(w: WorldCore, def: EndpointDef, params: Record<string, string>, now: number): FeedResult | NotFound {
  const p = def.platform;
  const { ref } = w.postByIdent(p, params);
  const sortRaw = (params.sort ?? params.sort_by ?? params.order ?? '').toLowerCase();
  const recent = sortRaw ? /recent|new|latest|chrono|time/.test(sortRaw) : p !== 'photo_net' && p !== 'video_net';
  const key = `${p}|cm|${ref.id}|${recent ? 'r' : 't'}`;
  const n = Math.min(ref.comments, 400);
  const hp = hashStr(ref.id, w.seed);
  const time = (j: number) => ref.publishedAt + Math.floor(Math.pow((j + unit(mix(hp, j)) * 0.9) / Math.max(1, n), 2) * 72 * HOUR) + 60_000;
  const count = n === 0 ? 0 : countUpTo(time, now, n - 1);
  const brandHint = BRANDS[hp % BRANDS.length];
  const built = w.cachedList(key, count, () => {
    const rows: WorldRow[] = [];
    for (let j = 0; j < count; j++) rows.push(buildComment(w.ctx, ref, ref.id, j, time(j), false, brandHint).row);
    if (recent) rows.reverse();
    else rows.sort(byLikes);
    return { rows, unavailable: commentNull(p) };
  });
  const ext: Record<string, unknown> = {};
  if (p === 'social_net') {
    ext.feedback_id = 'ZmVlZGJhY2s6' + Buffer.from(ref.id).toString('base64').replace(/=+$/, '');
    ext.expansion_token = 'MTpleHBhbnNpb246' + (hp >>> 0).toString(16);
  }
  ext.post_id = ref.id;
  ext.total_comments = ref.comments;
  return { rows: built.rows, unavailable: built.unavailable, ext };
}

export function replies(w: WorldCore, def: EndpointDef, params: Record<string, string>, now: number): FeedResult | NotFound {
  const p = def.platform;
  const { ref } = w.postByIdent(p, params);
  const cid = params.comment_id ?? params.commentId ?? params.parent_id ?? params.expansion_token ?? ref.id + '_c';
  const n = replyCount(w.ctx, cid) || (hashStr(cid, w.seed) % 4 === 0 ? 0 : 3 + (hashStr(cid) % 12));
  let base = ref.publishedAt + HOUR;
  if (/^\d{17,19}$/.test(cid)) base = Number((BigInt(cid) >> 22n) + 1288834974657n);
  const hc = hashStr(cid, w.seed);
  const time = (j: number) => base + Math.floor((j + unit(mix(hc, j))) * 3 * HOUR) + 30_000;
  const count = n === 0 ? 0 : countUpTo(time, now, n - 1);
  const built = w.cachedList(`${p}|rp|${ref.id}|${cid}`, count, () => {
    const rows: WorldRow[] = [];
    for (let j = 0; j < count; j++) rows.push(buildComment(w.ctx, ref, cid, j, time(j), true).row);
    return { rows, unavailable: commentNull(p) };
  });
  return { rows: built.rows, unavailable: built.unavailable, ext: { comment_id: cid } };
}

/** Forum comment search: rows carry post_title/subreddit/post_score/post_url, parent_id null. */
export function searchComments(w: WorldCore, def: EndpointDef, params: Record<string, string>, now: number): FeedResult | NotFound {
  const p = def.platform;
  const rawQ = params.query ?? params.q ?? '';
  const pq = parseQuery(rawQ);
  const qtext = pq.text || rawQ;
  const sort = (params.sort ?? '').toLowerCase();
  const hq = hashStr(`${p}|sc|${qtext.toLowerCase()}|${pq.author ?? ''}|${pq.subreddit ?? ''}`, w.seed);
  const count0 = 150 + (hq % 251);
  const pastGap = (180 * DAY) / count0;
  const g = (1 + unit(mix(hq, 1)) * 5) * HOUR;
  const time = (i: number) =>
    i < count0
      ? w.ctx.epoch - (count0 - i) * pastGap + Math.floor(unit(mix(hq, i)) * 0.8 * pastGap)
      : w.ctx.epoch + (i - count0) * g + Math.floor(unit(mix(hq, i)) * 0.8 * g);
  const count = countUpTo(time, now, count0 + Math.max(0, Math.ceil((now - w.ctx.epoch) / g)) + 2);
  const nulls = commentNull(p);
  const built = w.cachedList(`${p}|sc|${hq}|${sort}`, count, () => {
    const rows: WorldRow[] = [];
    const authorAcct = pq.author ? w.account(p, pq.author) : null;
    for (let i = 0; i < count; i++) {
      const h = mix3(hq, i, 0xc033);
      const r = new Rng(h);
      const a = authorAcct ?? w.account(p, handleFromHash(h));
      const niche = r.int(NICHES.length);
      const c = forumComment(r, { niche, q: qtext || 'it' });
      const t = time(i);
      const postFlake = snowflake(t - r.int(30) * DAY - HOUR, mix(h, 1));
      const postId = BigInt(postFlake).toString(36);
      const sub =
        pq.subreddit ??
        r.pick(['BuyItForLife', 'Frugal', 'coffee', 'SkincareAddiction', 'gadgets', 'personalfinance', 'CampingGear', 'AskReddit']);
      const title = r
        .pick([
          'Is {q} worth it in 2026?',
          'Alternatives to {q}?',
          '{q} megathread',
          'Anyone else having issues with {q}?',
          'What do you use instead of {q}?',
          'Best budget pick?',
        ])
        .replace(/\{q\}/g, qtext || 'this');
      const postUrl = `https://${DOMAIN[p]}/r/${sub}/comments/${postId}/${slug(title)}/`;
      const id = BigInt(snowflake(t, mix(h, 2))).toString(36);
      const rec: PostRecord = {
        id,
        url: `${postUrl}${id}/`,
        kind: 'comment',
        parent_id: null,
        content: { text: c.text, media_urls: [], thumbnail_url: null, duration_seconds: null },
        author: authorOf(a),
        engagement: {
          views: null,
          likes: r.chance(0.1) ? 0 : Math.floor(Math.pow(r.next(), 2.5) * 900) - r.int(5),
          comments: r.int(12),
          shares: null,
          saves: null,
        },
        flags: {
          nsfw: null,
          spoiler: null,
          pinned: null,
          likes_hidden: null,
          comments_hidden: null,
          shares_hidden: null,
          views_hidden: null,
          saves_hidden: null,
          deleted: false,
        },
        published_at: iso(t),
        language: c.lang,
        ext: { post_title: title, subreddit: sub, post_score: r.range(0, 25000), post_url: postUrl },
      };
      if (rec.engagement.likes !== null && rec.engagement.likes < 0) rec.engagement.likes = 0;
      rows.push({ id, publishedAt: t, pinned: false, item: { post: asRec(rec) }, text: c.text });
    }
    rows.reverse();
    if (sort === 'top') rows.sort(byLikes);
    else if (sort !== 'new') {
      // relevance: rows mentioning the query first, stable otherwise
      const ql = (qtext || '').toLowerCase();
      rows.sort((x, y) => Number(y.text.toLowerCase().includes(ql)) - Number(x.text.toLowerCase().includes(ql)));
    }
    return { rows, unavailable: nulls };
  });
  return { rows: built.rows, unavailable: built.unavailable };
}
