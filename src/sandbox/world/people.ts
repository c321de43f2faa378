/**
 * Lists of accounts (gen `accounts`): followers, following, similar accounts, account search,
 * likers and reposters. Traits: `audience` (the list's size), `search` (handles echo the query),
 * `hideFollowers`, `attach: 'like_count'`.
 */
import { traitsOf } from '../registry/traits';
import type { EndpointDef, FeedResult, NotFound, WorldRow } from '../types';
import type { WorldCore } from './core';
import { parseQuery } from './identify';
import { handleFromHash, slug } from './ids';
import { profileRecord } from './records';
import { hashStr, mix, mix3, unit } from './rng';

export function accountsList(w: WorldCore, def: EndpointDef, params: Record<string, string>, now: number): FeedResult | NotFound {
  const p = def.platform;
  const t = traitsOf(def);
  const owner = w.accountFromParams(p, params);
  const rawQ = params.query ?? params.q ?? params.keyword ?? params.url ?? '';
  const seedKey = owner ? owner.handle : rawQ;
  const hk = hashStr(`${p}|acc|${def.path}|${seedKey.toLowerCase()}`, w.seed);
  const audience = t.audience ?? 'followers';
  let n: number;
  if (audience === 'likers') n = 100;
  else if (audience === 'similar') n = 10 + (hk % 21);
  else if (audience === 'sample') n = 50 + (hk % 151);
  else n = Math.min(owner ? (audience === 'following' ? owner.following : owner.followers) : 300, 200 + (hk % 800));
  const noFollowers = t.hideFollowers === true;
  const qslug = slug(parseQuery(rawQ).text).replace(/_/g, '').slice(0, 14);
  const built = w.cachedList(`${p}|acc|${def.path}|${hk}`, n, () => {
    const rows: WorldRow[] = [];
    for (let i = 0; i < n; i++) {
      const h = mix3(hk, i, 0xacc7);
      const handle =
        t.search && qslug && unit(mix(h, 1)) < 0.6
          ? `${qslug}${['', '_', '.'][i % 3]}${handleFromHash(h)
              .slice(0, 8)
              .replace(/[^a-z0-9]/g, '')}`
          : handleFromHash(h);
      const a = w.account(p, handle);
      const prof = profileRecord(w.ctx, a, now);
      if (noFollowers) {
        (prof.author as Record<string, unknown>).followers = null;
        (prof.counts as Record<string, unknown>).followers = null;
      }
      rows.push({ id: a.id, publishedAt: null, pinned: false, item: { profile: prof }, text: `${a.displayName} ${a.bio}` });
    }
    return { rows, unavailable: noFollowers ? ['author.followers'] : [] };
  });
  const ext: Record<string, unknown> = {};
  if (t.attach === 'like_count') {
    const { rec } = w.postByIdent(p, params);
    ext.like_count = rec.engagement.likes;
  }
  return { rows: built.rows, unavailable: built.unavailable, ext: Object.keys(ext).length ? ext : undefined };
}
