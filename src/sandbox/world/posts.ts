/**
 * Other lists of posts (gen `generic_posts`): trending charts, posts at a place, with a sound or
 * an effect, in a playlist, group or board, liked or tagged, ads, reposts; and stories (gens
 * `stories`, `highlight`). Traits: `trending`, `byOwner`, `rowKind`, `fill`, `attach` ('ad',
 * 'reposted_from').
 */
import { traitsOf } from '../registry/traits';
import type { EndpointDef, FeedResult, NotFound, WorldRow } from '../types';
import { byLikes, countUpTo, type WorldCore } from './core';
import { normUrl } from './identify';
import { DOMAIN, handleFromHash } from './ids';
import { fills } from './own-posts';
import { buildPost, DAY, HOUR } from './records';
import { POST_NULL } from './platform-traits';
import { hashStr, mix, mix3, unit } from './rng';
import { rowKindOf } from './search';
import { looseOf } from './loose';

export function genericPosts(w: WorldCore, def: EndpointDef, params: Record<string, string>, now: number): FeedResult | NotFound {
  const p = def.platform;
  const path = def.path;
  const t = traitsOf(def);
  const owner = w.accountFromParams(p, params);
  const ident =
    owner?.handle ??
    params.query ??
    params.audio_id ??
    params.location_id ??
    params.url ??
    params.playlist_id ??
    params.collection_id ??
    params.subreddit ??
    params.board ??
    params.effect_id ??
    params.song_id ??
    params.music_id ??
    params.group_id ??
    params.pageId ??
    params.id ??
    '';
  const hg = hashStr(`${p}|gp|${path}|${normUrl(ident).toLowerCase()}|${params.sort_by ?? ''}`, w.seed);
  const trending = t.trending === true;
  const count0 = trending ? 30 + (hg % 31) : 60 + (hg % 340);
  const pastGap = ((trending ? 3 : 120) * DAY) / count0;
  const g = (0.5 + unit(mix(hg, 1)) * 8) * HOUR;
  const time = (i: number) =>
    i < count0
      ? w.ctx.epoch - (count0 - i) * pastGap + Math.floor(unit(mix(hg, i)) * 0.8 * pastGap)
      : w.ctx.epoch + (i - count0) * g + Math.floor(unit(mix(hg, i)) * 0.8 * g);
  let count = countUpTo(time, now, count0 + Math.max(0, Math.ceil((now - w.ctx.epoch) / g)) + 2);
  if (trending) count = Math.min(count, count0);
  const fill = fills(def, params);
  const nulls = POST_NULL[p].filter((f) => !fill.has(f));
  const byOwner = owner !== null && t.byOwner === true;
  const built = w.cachedList(`${p}|gp|${path}|${hg}|${[...fill].join(',')}`, count, () => {
    const rows: WorldRow[] = [];
    for (let i = 0; i < count; i++) {
      const h = mix3(hg, i, 0x9e9);
      const a = byOwner && owner ? owner : w.account(p, handleFromHash(h));
      const kind = rowKindOf(def, h);
      const b = buildPost(w.ctx, p, a, h, time(i), kind, { nulls, fill }, false);
      if (t.attach === 'ad' && b.rec.ext !== undefined) {
        b.rec.ext = {
          ...(b.rec.ext ?? {}),
          ad: {
            ad_id: b.rec.id,
            advertiser_id: a.id,
            started_at: b.rec.published_at,
            is_active: unit(mix(h, 4)) < 0.6,
            platforms: ['feed', 'stories'],
          },
        };
      }
      if (t.attach === 'reposted_from') b.rec.ext = { ...(b.rec.ext ?? {}), reposted_from: params.url ?? null };
      w.remember(p, b, w.refOf(p, b, a));
      rows.push(b.row);
    }
    rows.reverse();
    if (trending || /TOP_POSTS/.test(params.sort_by ?? '')) rows.sort(byLikes);
    return { rows, unavailable: nulls };
  });
  return { rows: built.rows, unavailable: built.unavailable };
}

/** Live stories of the last 24 h (none live about 40 % of the time), or the stories of one highlight. */
export function stories(w: WorldCore, def: EndpointDef, params: Record<string, string>, now: number, highlight: boolean): FeedResult {
  const p = def.platform;
  const a = w.accountFromParams(p, params) ?? w.account(p, params.id ?? 'highlight');
  const hs = hashStr(`${p}|st|${a.handle}|${params.id ?? ''}`, w.seed);
  const posts = highlight || unit(hs) < 0.6;
  const every = (4 + (hs % 8)) * HOUR;
  const rows: WorldRow[] = [];
  if (posts) {
    const last = Math.floor((now - w.ctx.epoch) / every);
    const n = highlight ? 3 + (hs % 12) : 0;
    for (let k = last; k > last - 40; k--) {
      const t = w.ctx.epoch + k * every + Math.floor(unit(mix(hs, k)) * 0.5 * every);
      if (t > now) continue;
      if (!highlight && t < now - DAY) break;
      if (highlight && rows.length >= n) break;
      const h = mix(hs, k);
      const b = buildPost(w.ctx, p, a, h, t, unit(mix(h, 1)) < 0.5 ? 'photo' : 'video', { nulls: POST_NULL[p] }, false);
      b.rec.kind = b.rec.kind === 'video' ? 'video' : 'photo';
      looseOf(b.rec).url = `https://${DOMAIN[p]}/stories/${a.handle}/${b.rec.id}/`;
      rows.push(b.row);
    }
  }
  return { rows, unavailable: POST_NULL[p] };
}
