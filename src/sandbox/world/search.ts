/**
 * Search results that are posts (gen `search_posts`): a query-dependent finite set that grows
 * with time. Traits: `rowKind` (reels, mostly photos, questions), `untilWindow` (open-protocol
 * search: no cursor, since..until windows).
 */
import type { Platform } from '../../shared/api-types';
import { traitsOf } from '../registry/traits';
import type { EndpointDef, FeedResult, NotFound, WorldRow } from '../types';
import { byLikes, countUpTo, recOf, type WorldCore } from './core';
import { parseQuery } from './identify';
import { buildPost, DAY, HOUR } from './records';
import { handleFromHash } from './ids';
import { kindFor, POST_NULL } from './platform-traits';
import { hashStr, mix, mix3, orderKey, unit } from './rng';
import { postOf } from './loose';

export function searchPosts(w: WorldCore, def: EndpointDef, params: Record<string, string>, now: number): FeedResult | NotFound {
  const p = def.platform;
  const t = traitsOf(def);
  const rawQ = params.query ?? params.q ?? params.keyword ?? params.keywords ?? params.hashtag ?? params.tag ?? '';
  const pq = parseQuery(rawQ.replace(/^#/, ''));
  const qtext = pq.text || rawQ;
  const author = params.author ?? pq.author;
  const sort = (params.sort ?? params.sort_by ?? '').toLowerCase();
  const hq = hashStr(`${p}|${def.path}|${qtext.toLowerCase()}|${author ?? ''}|${pq.subreddit ?? ''}`, w.seed);
  const count0 = 150 + (hq % 251);
  const pastGap = (90 * DAY) / count0;
  const g = (0.5 + unit(mix(hq, 1)) * 5.5) * HOUR;
  const time0 = (i: number) =>
    i < count0
      ? w.ctx.epoch - (count0 - i) * pastGap + Math.floor(unit(mix(hq, i)) * 0.8 * pastGap)
      : w.ctx.epoch + (i - count0) * g + Math.floor(unit(mix(hq, i)) * 0.8 * g);
  // Open-protocol search: whole-second times, and about a third of the rows share the second
  // of the row before them (the spec's "a row at the same second can repeat" under `until`).
  const openSearch = t.untilWindow === true;
  const sec = (x: number) => Math.floor(x / 1000) * 1000;
  const time = openSearch ? (i: number) => sec(i > 0 && unit(mix(hq ^ 0x5ec0, i)) < 0.35 ? time0(i - 1) : time0(i)) : time0;
  const hi = count0 + Math.max(0, Math.ceil((now - w.ctx.epoch) / g)) + 2;
  const count = countUpTo(time, now, hi);
  const isQa = t.rowKind === 'question';
  const nulls = POST_NULL[p];
  const key = `${p}|sp|${def.path}|${hq}|${sort}`;
  const built = w.cachedList(key, count, () => {
    const rows: WorldRow[] = [];
    const authorAcct = author ? w.account(p, author) : null;
    for (let i = 0; i < count; i++) {
      const h = mix3(hq, i, 0x5ea);
      const a = authorAcct ?? w.account(p, handleFromHash(h));
      const kind = isQa ? 'question' : rowKindOf(def, h);
      const noDate = !def.dateOrdered && p === 'cn_video_net' && unit(mix(h, 77)) < 0.05;
      const b = buildPost(w.ctx, p, a, h, noDate ? null : time(i), kind, { nulls, q: qtext || undefined }, false);
      if (isQa) {
        const title = `${qtext ? qtext + ': ' : ''}${(b.rec.content.text ?? '').split(/[.!?\n]/)[0]}?`;
        (b.rec.ext as Record<string, unknown>).title = title;
      }
      if (p === 'forum_net' && pq.subreddit && b.rec.ext) b.rec.ext.subreddit = pq.subreddit;
      w.remember(p, b, w.refOf(p, b, a));
      rows.push(b.row);
    }
    rows.reverse(); // newest first
    if (!def.dateOrdered) rows.sort((x, y) => orderKey(hq, hashStr(x.id)) - orderKey(hq, hashStr(y.id)));
    else if (/top|most_liked|popular|relevance/.test(sort) && sort !== 'relevance') rows.sort(byLikes);
    return { rows, unavailable: nulls };
  });
  let rows = built.rows;
  rows = applyRowFilters(rows, params, now);
  if (openSearch) rows = openSearchPage(rows, params);
  return { rows, unavailable: built.unavailable };
}

const SHORT_FIRST: ReadonlySet<Platform> = new Set(['short_video_net', 'short_video_net_b', 'cn_video_net']);

/** The kind of a generated post row: the endpoint's `rowKind`, else the network's mix. */
export function rowKindOf(def: EndpointDef, h: number): string {
  const p = def.platform;
  const rk = traitsOf(def).rowKind;
  if (rk === 'reel') return 'reel';
  if (SHORT_FIRST.has(p)) return unit(h) < 0.9 ? 'short' : 'video';
  if (rk === 'photo_mostly') return unit(h) < 0.7 ? 'photo' : 'video';
  return kindFor(p, mix(h, 3));
}

/** Bound of a `since`/`until` value (YYYY-MM-DD or ISO datetime), ms; null when absent or unreadable. */
function dateBound(v: string | undefined, endOfDay: boolean): number | null {
  if (!v) return null;
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(v);
  const t = Date.parse(dateOnly ? `${v}T00:00:00Z` : v);
  if (Number.isNaN(t)) return null;
  return dateOnly && endOfDay ? t + DAY - 1 : t;
}

/** Rows per call of open-protocol microblog search (spec: "up to 100 per page"). */
export const OPEN_SEARCH_PAGE = 100;

/**
 * Open-protocol microblog search has no cursor: one call answers up to 100 rows (in the order of
 * `sort`) published within since..until, compared at whole-second precision (the network's
 * timestamps are whole seconds), so `until` = the oldest published_at of the last call answers
 * that second's rows again followed by older ones.
 */
function openSearchPage(rows: WorldRow[], params: Record<string, string>): WorldRow[] {
  const since = dateBound(params.since, false);
  const until = dateBound(params.until, true);
  const lo = since === null ? null : Math.floor(since / 1000) * 1000;
  const hi = until === null ? null : Math.floor(until / 1000) * 1000 + 999;
  let out = rows;
  if (lo !== null || hi !== null)
    out = out.filter((r) => r.publishedAt === null || ((lo === null || r.publishedAt >= lo) && (hi === null || r.publishedAt <= hi)));
  return out.slice(0, OPEN_SEARCH_PAGE);
}

function applyRowFilters(rows: WorldRow[], params: Record<string, string>, now: number): WorldRow[] {
  const win: Record<string, number> = { hour: HOUR, day: DAY, week: 7 * DAY, month: 30 * DAY, year: 365 * DAY, half_year: 182 * DAY };
  const t = (params.time ?? params.published ?? '').toLowerCase();
  let out = rows;
  if (win[t]) out = out.filter((r) => r.publishedAt === null || r.publishedAt >= now - win[t]);
  const dur = (params.duration ?? '').toLowerCase();
  if (dur && dur !== 'all') {
    out = out.filter((r) => {
      const d = postOf(recOf(r)).content?.duration_seconds;
      if (d === null || d === undefined) return true;
      return dur === 'under_1m' ? d < 60 : dur === 'one_to_five_m' ? d >= 60 && d <= 300 : dur === 'over_5m' ? d > 300 : true;
    });
  }
  const lang = (params.lang ?? '').toLowerCase();
  if (lang) out = out.filter((r) => (postOf(recOf(r)).language ?? '').toLowerCase().startsWith(lang));
  return out;
}
