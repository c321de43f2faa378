/**
 * Lists of objects that are not posts: groups, advertisers, hashtag boards, places and audio
 * (gen `objects`, by `feed`), and an account's free-form objects or effects by id (gen
 * `object_posts`, trait `item`: highlight, playlist, effect).
 */
import { traitsOf } from '../registry/traits';
import type { EndpointDef, FeedResult, NotFound, WorldRow } from '../types';
import { includeTokens, type Rec, type WorldCore } from './core';
import { BRANDS, CITIES, NICHES } from './corpus';
import { parseQuery } from './identify';
import { DOMAIN, handleFromHash, profileUrl, slug, snowflake } from './ids';
import { DAY, iso } from './records';
import { hashStr, mix, mix3, Rng, unit } from './rng';

const INDUSTRIES = [
  'education',
  'vehicle-and-transportation',
  'baby-kids-and-maternity',
  'beauty-and-personal-care',
  'tech-and-electronics',
  'travel',
  'household-products',
  'pets',
  'home-improvement',
  'apparel-and-accessories',
  'news-and-entertainment',
  'games',
  'food-and-beverage',
  'sports-and-outdoor',
  'health',
];

/** groups, advertisers, hashtags, places, audio. */
export function objects(w: WorldCore, def: EndpointDef, params: Record<string, string>, now: number): FeedResult | NotFound {
  const p = def.platform;
  const feed = def.feed;
  const rawQ = params.query ?? params.q ?? params.keyword ?? params.url ?? '';
  const qtext = parseQuery(rawQ).text || rawQ;
  const hk = hashStr(
    `${p}|${feed}|${def.path}|${qtext.toLowerCase()}|${params.countryCode ?? ''}|${params.period ?? ''}|${params.industry ?? ''}`,
    w.seed,
  );
  const details = includeTokens(params).has('details');
  if (feed === 'hashtags') return hashtagBoards(w, def, params, now, hk);
  const n = feed === 'advertisers' ? 10 + (hk % 30) : feed === 'places' ? 8 + (hk % 20) : 40 + (hk % 160);
  const built = w.cachedList(`${p}|${feed}|${def.path}|${hk}|${details}`, n, () => {
    const rows: WorldRow[] = [];
    for (let i = 0; i < n; i++) {
      const h = mix3(hk, i, 0x0b1);
      const r = new Rng(h);
      const word = qtext || r.pick(NICHES).words[0];
      let key: string;
      let rec: Rec;
      let text: string;
      if (feed === 'groups') {
        const name =
          r.chance(0.05) && !details
            ? null
            : `${word} ${r.pick(['Lovers', 'Community', 'Buy & Sell', 'Support Group', 'Fans', 'Club', 'Tips', 'Moms'])}${r.chance(0.1) ? ' 🌿' : ''}`;
        const gid = String(100000000000000 + (mix(h, 2) % 899999999999999));
        const slugId = slug(name ?? word + i).replace(/_/g, '') + (h % 1000);
        const members = r.logInt(1.5, 6.5);
        rec = {
          id: details ? gid : slugId,
          url: `https://${DOMAIN[p]}/${p === 'forum_net' ? 'r' : 'groups'}/${details ? gid : slugId}/`,
          author: {
            id: details ? gid : null,
            username: p === 'forum_net' ? slugId : null,
            display_name: name ?? (details ? `${word} Group` : null),
            avatar_url: `https://cdn.${DOMAIN[p]}/groups/${slugId}.jpg`,
            verified: null,
            followers: details || p === 'forum_net' ? members : null,
            bio: details || p === 'forum_net' ? `A place to talk about ${word}. Be kind. No spam.\nRules in the featured post.` : null,
            joined_at: details || p === 'forum_net' ? iso(w.ctx.epoch - r.range(30, 4000) * DAY) : null,
            ext: {
              group: {
                privacy_label: details ? r.pick(['Public', 'Public', 'Private']) : null,
                visibility_label: details ? r.pick(['Visible', 'Visible', 'Hidden']) : null,
                activity: details ? `${r.range(1, 200)} posts a day` : null,
              },
            },
          },
        };
        key = 'group';
        text = `${name ?? ''} ${word}`;
      } else if (feed === 'advertisers') {
        const b = i < BRANDS.length && r.chance(0.3) ? BRANDS[(hk + i) % BRANDS.length] : null;
        const handle = b
          ? b.handle
          : `${slug(word).replace(/_/g, '')}${handleFromHash(h)
              .slice(0, 6)
              .replace(/[^a-z]/g, '')}`;
        const a = w.account(p, handle);
        rec = {
          id: a.id,
          page_id: a.id,
          name: a.displayName,
          handle: a.handle,
          verified: a.verified,
          followers: a.followers,
          url: profileUrl(p, a.handle),
          avatar_url: a.avatarUrl,
          active_ads: r.range(0, 300),
        };
        key = 'advertiser';
        text = a.displayName;
      } else if (feed === 'places') {
        const city = r.pick(CITIES);
        const name = `${word} ${r.pick(['Café', 'Market', 'Park', 'Studio', 'Store', 'Beach', 'Museum'])}`;
        rec = {
          id: String(200000000 + (mix(h, 4) % 1799999999)),
          name,
          title: name,
          subtitle: `${r.range(1, 400)} ${r.pick(['Rua Augusta', 'Main St', 'Hauptstraße', 'שדרות רוטשילד'])}, ${city}`,
          city,
          latitude: Math.round((r.next() * 140 - 70) * 1e6) / 1e6,
          longitude: Math.round((r.next() * 340 - 170) * 1e6) / 1e6,
          post_count: r.logInt(1, 6),
          url: `https://${DOMAIN[p]}/explore/locations/${h}/`,
        };
        key = 'place';
        text = name;
      } else {
        const artist = handleFromHash(h).replace(/[0-9]+$/, '');
        const title = `${r.pick(['Summer', 'Midnight', 'Golden', 'Neon', 'Slow', 'Original audio'])} ${r.pick(['Drive', 'Dreams', 'Hour', 'Bloom', 'Loop'])}${qtext ? ' (' + qtext + ')' : ''}`;
        rec = {
          id: String(1000000000000000n + BigInt(mix(h, 5)) * 100000n),
          title,
          artist,
          duration_seconds: r.range(8, 240),
          use_count: r.logInt(1, 7),
          cover_url: `https://cdn.${DOMAIN[p]}/audio/${h}.jpg`,
          url: `https://${DOMAIN[p]}/audio/${h}/`,
          is_original: title.startsWith('Original'),
        };
        key = 'audio';
        text = title;
      }
      rows.push({ id: rec.id, publishedAt: null, pinned: false, item: { [key]: rec }, text });
    }
    return {
      rows,
      unavailable:
        feed === 'groups' && !details && p === 'social_net'
          ? ['author.followers', 'author.bio', 'author.joined_at', 'author.ext.group']
          : [],
    };
  });
  return { rows: built.rows, unavailable: built.unavailable };
}

function hashtagBoards(w: WorldCore, def: EndpointDef, params: Record<string, string>, now: number, hk: number): FeedResult {
  const p = def.platform;
  const country = (params.countryCode ?? 'US').toUpperCase();
  const period = Number(params.period ?? 7) || 7;
  const ind = (params.industry ?? '').toLowerCase();
  const boards = ind === 'all' ? ['overall', ...INDUSTRIES] : ind ? [ind] : ['overall'];
  const dayIdx = Math.floor(now / DAY);
  const rows: WorldRow[] = [];
  for (const board of boards) {
    const hb = mix3(hk, hashStr(board), dayIdx);
    for (let rank = 1; rank <= 3; rank++) {
      const r = new Rng(mix(hb, rank));
      const niche = board === 'overall' ? r.pick(NICHES) : NICHES[hashStr(board) % NICHES.length];
      const name = `${r.pick(niche.words).replace(/\s+/g, '')}${r.pick(['', 'tok', 'challenge', '2026', 'hack', 'check'])}`;
      const curve: Array<{ date: string; value: number }> = [];
      for (let d = period - 1; d >= 0; d--)
        curve.push({ date: iso((dayIdx - d) * DAY).slice(0, 10), value: Math.round(20 + 80 * unit(mix(hb, rank * 100 + d))) });
      const creators = [0, 1, 2].map((k) => {
        const a = w.account(p, handleFromHash(mix3(hb, rank, k)));
        return { id: a.id, username: a.handle, display_name: a.displayName, avatar_url: a.avatarUrl, followers: a.followers };
      });
      const id = String(1600000000000000000n + BigInt(hashStr(name)) * 1000n + BigInt(rank));
      const rec: Rec = {
        id,
        name,
        rank,
        board,
        industry: board === 'overall' ? null : board,
        country_code: country,
        period_days: period,
        post_count: r.logInt(3, 6),
        view_count: r.logInt(6, 10),
        rank_change: r.range(-5, 5),
        is_new: r.chance(0.2),
        popularity: curve,
        top_creators: creators,
        url: `https://${DOMAIN[p]}/tag/${encodeURIComponent(name)}`,
      };
      rows.push({ id, publishedAt: null, pinned: false, item: { hashtag: rec }, text: name });
    }
  }
  return { rows, unavailable: [], ext: { boards, country_code: country, period_days: period } };
}

/** highlights, effects, channel playlists: free-form objects. */
export function objectPosts(w: WorldCore, def: EndpointDef, params: Record<string, string>): FeedResult {
  const p = def.platform;
  const key = traitsOf(def).item ?? 'object';
  const rows: WorldRow[] = [];
  if (key === 'effect') {
    const ids = [
      ...new Set(
        (params.ids ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      ),
    ].slice(0, 50);
    for (const id of ids) {
      if (!/^\d+$/.test(id)) continue; // unknown ids drop
      const h = hashStr(id, w.seed);
      const r = new Rng(h);
      rows.push({
        id,
        publishedAt: null,
        pinned: false,
        item: {
          effect: {
            id,
            name: `${r.pick(['Glow', 'Retro', 'Bubble', 'Anime', 'Green Screen'])} ${r.pick(['Filter', 'Lens', 'FX'])}`,
            video_count: r.logInt(1, 7),
            creator: handleFromHash(h),
            icon_url: `https://cdn.${DOMAIN[p]}/fx/${id}.png`,
          },
        },
        text: '',
      });
    }
    return { rows, unavailable: [] };
  }
  const a = w.accountFromParams(p, params) ?? w.account(p, 'anonymous');
  const n = 2 + (a.h % 14);
  for (let i = 0; i < n; i++) {
    const h = mix3(a.h, i, 0x4d);
    const r = new Rng(h);
    const id =
      key === 'playlist' ? 'PL' + BigInt(snowflake(w.ctx.epoch - i * DAY, h)).toString(36) : String(17800000000000000n + BigInt(h));
    const title = r.pick(['Travel', 'Q&A', 'Reviews', 'Favs ❤️', 'Behind the scenes', 'Recipes', 'Tips']);
    const rec: Rec =
      key === 'playlist'
        ? {
            id,
            title,
            url: `https://${DOMAIN[p]}/playlist?list=${id}`,
            item_count: r.range(1, 120),
            thumbnail_url: `https://cdn.${DOMAIN[p]}/pl/${id}.jpg`,
          }
        : { id, title, cover_url: `https://cdn.${DOMAIN[p]}/hl/${id}.jpg`, item_count: r.range(1, 60) };
    rows.push({ id, publishedAt: null, pinned: false, item: { [key]: rec }, text: title });
  }
  return { rows, unavailable: [] };
}
