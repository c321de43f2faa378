/**
 * Events of a city or region page, or an event search (gen `events`; trait `search`: hosts from
 * the whole network, past events kept). Event number i is created at created(i); it starts
 * 1-40 days later.
 */
import type { PostRecord } from '../../shared/api-types';
import { traitsOf } from '../registry/traits';
import type { EndpointDef, FeedResult, NotFound, WorldRow } from '../types';
import { asRec, countUpTo, includeTokens, recOf, type WorldCore } from './core';
import { CITIES, NICHES } from './corpus';
import { handleFromUrlOrName, normUrl } from './identify';
import { DOMAIN, handleFromHash, snowflake } from './ids';
import { authorOf, DAY, HOUR, iso } from './records';
import { hashStr, mix, mix3, Rng, unit } from './rng';

export function events(w: WorldCore, def: EndpointDef, params: Record<string, string>, now: number): FeedResult | NotFound {
  const p = def.platform;
  const ident = params.url ?? params.query ?? params.handle ?? params.pageId ?? 'events';
  const he = hashStr(`${p}|ev|${def.path}|${normUrl(ident).toLowerCase()}`, w.seed);
  const details = includeTokens(params).has('details');
  const isSearch = traitsOf(def).search === true;
  const cadence = (3 + (he % 20)) * HOUR;
  const count0 = 60 + (he % 120);
  // event number i is created at created(i); starts 1-40 days later.
  const created = (i: number) => w.ctx.epoch + (i - count0) * cadence + Math.floor(unit(mix(he, i)) * 0.8 * cadence);
  const count = countUpTo(created, now, count0 + Math.max(0, Math.ceil((now - w.ctx.epoch) / cadence)) + 2);
  const timeF = (params.time ?? '').toLowerCase();
  const built = w.cachedList(`${p}|ev|${def.path}|${he}|${details}`, count, () => {
    const rows: WorldRow[] = [];
    for (let i = 0; i < count; i++) {
      const h = mix3(he, i, 0xe7e);
      const r = new Rng(h);
      const host = w.account(p, isSearch ? handleFromHash(h) : handleFromUrlOrName(ident));
      const c = created(i);
      const start = c + (1 + r.int(40)) * DAY + r.int(12) * HOUR;
      const city = r.pick(CITIES);
      const title = `${r.pick(['Pop-up market', 'Meetup', 'Tasting night', 'Workshop', 'Launch party', 'Run club', 'Open mic', 'Conference'])}: ${r.pick(NICHES).words[0]} in ${city}${r.chance(0.05) ? ' <script>alert(1)</script>' : ''}`;
      const id = snowflake(c, mix(h, 3)).slice(0, 16);
      const online = r.chance(0.15);
      const event: Record<string, unknown> = {
        title,
        url: `https://${DOMAIN[p]}/events/${id}/`,
        cover_url: `https://cdn.${DOMAIN[p]}/events/${id}.jpg`,
        start_time: iso(start),
        venue: online ? null : `${r.pick(['The Warehouse', 'Central Park Pavilion', 'Café Lumen', 'Hall B', 'Rooftop 21'])}, ${city}`,
        going_count: r.logInt(0.5, 4),
        interested_count: r.logInt(1, 4.5),
        is_online: online,
        is_past: start < now,
      };
      if (details) {
        Object.assign(event, {
          description: `Join us for ${title}. Free entry, RSVP required.\nBring friends!`,
          address: online ? null : `${r.range(1, 300)} Main St, ${city}`,
          city: online ? null : city,
          latitude: online ? null : Math.round((r.next() * 140 - 70) * 1e5) / 1e5,
          longitude: online ? null : Math.round((r.next() * 340 - 170) * 1e5) / 1e5,
          hosts: [{ id: host.id, name: host.displayName }],
          host_context_text: `Event by ${host.displayName}`,
          category: r.pick(['Food & Drink', 'Music', 'Fitness', 'Business', 'Arts']),
          privacy: 'public',
          is_canceled: r.chance(0.04),
          attendance_count: (event.going_count as number) + r.int(50),
        });
      }
      const rec: PostRecord = {
        id,
        url: event.url as string,
        kind: 'event',
        parent_id: null,
        content: { text: title, media_urls: [event.cover_url as string], thumbnail_url: event.cover_url as string, duration_seconds: null },
        author: { ...authorOf(host), display_name: details ? host.displayName : null },
        engagement: { views: null, likes: null, comments: null, shares: null, saves: null },
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
        published_at: iso(c),
        language: null,
        ext: { event },
      };
      rows.push({ id, publishedAt: c, pinned: false, item: { post: asRec(rec) }, text: title });
    }
    rows.reverse();
    return {
      rows,
      unavailable: ['engagement.views', 'engagement.likes', 'engagement.comments', 'engagement.shares', 'engagement.saves', 'language'],
    };
  });
  let rows = built.rows;
  if (timeF === 'today' || timeF === 'this_week' || timeF === 'next_week') {
    const day0 = Math.floor(now / DAY) * DAY;
    const [lo, hi] =
      timeF === 'today' ? [day0, day0 + DAY] : timeF === 'this_week' ? [now, now + 7 * DAY] : [now + 7 * DAY, now + 14 * DAY];
    rows = rows.filter((r) => {
      const st = Date.parse(((recOf(r).ext as Record<string, unknown>).event as Record<string, unknown>).start_time as string);
      return st >= lo && st < hi;
    });
  } else if (!isSearch) {
    // city pages list upcoming events only; events/search includes past ones
    rows = rows.filter((r) => !(((recOf(r).ext as Record<string, unknown>).event as Record<string, unknown>).is_past as boolean));
  }
  return { rows, unavailable: built.unavailable };
}
