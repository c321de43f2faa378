/**
 * A saved set, or the Library's current query, fanned out (docs/collect.md "From a set"): for each
 * post its comments (or the post again), for each author their posts or profile, for each hashtag
 * its search. The top K by engagement when asked (the rest counted, not planned).
 */
import type { CollectDesignParsed, CollectRank } from '../../shared/contract-collect';
import type { LibraryListRow, LibraryQuery } from '../../shared/query';
import type { Archive } from '../archive';
import { extractTerms } from '../text';
import { addLine, type Candidate, type Resolved, type Resolver } from './inputs';
import { HANDLE_PARAMS } from '../resolve';
import { HASHTAG_PARAMS, paramOf, POST_ID_PARAMS, POST_URL_PARAMS, QUERY_PARAMS, USER_ID_PARAMS } from './targets';
import { ApiError } from '../api';

/** The most items a set may fan out from. */
const MAX_ITEMS = 500_000;

function rankOf(row: LibraryListRow, by: CollectRank): number {
  const e = row.engagement;
  if (by === 'engagement') return (e.likes ?? 0) + (e.comments ?? 0) + (e.shares ?? 0) + (e.saves ?? 0) + (e.views ?? 0) / 100;
  return e[by] ?? 0;
}

function* rowsOf(archive: Archive, query: LibraryQuery): Generator<LibraryListRow> {
  let after: string | undefined;
  let n = 0;
  for (;;) {
    const page = archive.listQuery({ ...query, sort: undefined, limit: 1000, after });
    for (const r of page.rows) {
      if (++n > MAX_ITEMS)
        throw new ApiError({
          kind: 'validation',
          message: `A plan fans out from up to ${MAX_ITEMS.toLocaleString('en-US')} items; narrow the set or the query.`,
        });
      yield r;
    }
    if (!page.next) return;
    after = page.next;
  }
}

interface Group {
  platform: string;
  text: string;
  value: string;
  rank: number;
  extra?: { id: string | null };
}

/** Groups of the set's items, one per input-to-be (a post, an author, a hashtag). */
function groupsOf(r: Resolver, archive: Archive, query: LibraryQuery, by: CollectRank): { groups: Group[]; read: number } {
  const groups = new Map<string, Group>();
  let read = 0;
  for (const row of rowsOf(archive, query)) {
    read++;
    const rank = rankOf(row, by);
    if (r.what === 'comments' || r.what === 'post') {
      if (row.kind !== 'post') continue;
      groups.set(`${row.platform}|${row.id}`, {
        platform: row.platform,
        text: row.url ?? `${row.platform} post ${row.id}`,
        value: row.url ?? '',
        rank,
        extra: { id: row.id },
      });
    } else if (r.what === 'feed' || r.what === 'profile') {
      const name = row.author.username ?? null;
      const id = row.author.id ?? null;
      if (!name && !id) continue;
      const k = `${row.platform}|${(name ?? `id:${id}`).toLowerCase()}`;
      const g = groups.get(k);
      if (g) g.rank += rank;
      else
        groups.set(k, {
          platform: row.platform,
          text: name ? `@${name}` : `${row.platform} account ${id}`,
          value: name ?? '',
          rank,
          extra: { id },
        });
    } else if (r.what === 'hashtag') {
      for (const tag of new Set(extractTerms(row.text, row.lang, ['hashtags']).hashtags)) {
        const k = `${row.platform}|${tag}`;
        const g = groups.get(k);
        const add = by === 'engagement' ? 1 + rank : rank || 1;
        if (g) g.rank += add;
        else groups.set(k, { platform: row.platform, text: tag, value: tag.slice(1), rank: add });
      }
    }
  }
  return { groups: [...groups.values()], read };
}

function callsOf(r: Resolver, g: Group): Candidate[] | { reason: string } {
  const nets = r.what === 'hashtag' && r.design.networks.length ? r.design.networks : [g.platform];
  if (r.what !== 'hashtag' && r.design.networks.length && !r.design.networks.includes(g.platform)) return [];
  const out: Candidate[] = [];
  const why: string[] = [];
  for (const p of nets) {
    const t = r.target(p);
    if (!('ep' in t)) {
      why.push(t.reason);
      continue;
    }
    let params: Record<string, string> | null = null;
    let key = '';
    if (r.what === 'comments' || r.what === 'post') {
      const u = paramOf(t.ep, POST_URL_PARAMS);
      const i = paramOf(t.ep, POST_ID_PARAMS);
      if (u && g.value) params = { [u]: g.value };
      else if (i && g.extra?.id) params = { [i]: g.extra.id };
      key = `post:${g.extra?.id ?? g.value}`;
      if (!params) why.push(`${p}/${t.endpoint} needs the post's address, which the archive does not have`);
    } else if (r.what === 'feed' || r.what === 'profile') {
      const h = paramOf(t.ep, HANDLE_PARAMS);
      const i = paramOf(t.ep, USER_ID_PARAMS);
      if (h && g.value) params = { [h]: g.value };
      else if (i && g.extra?.id) params = { [i]: g.extra.id };
      key = g.value ? `@${g.value.toLowerCase()}` : `id:${g.extra?.id}`;
      if (!params)
        why.push(
          `${p}/${t.endpoint} needs ${h ? "the author's handle" : 'a profile address'}, which the archive does not have for this author`,
        );
    } else {
      const h = t.viaSearch ? null : paramOf(t.ep, HASHTAG_PARAMS);
      const q = paramOf(t.ep, QUERY_PARAMS);
      params = h ? { [h]: g.value } : q ? { [q]: `#${g.value}` } : null;
      key = `#${g.value.toLowerCase()}`;
      if (!params) why.push(`${p}/${t.endpoint} takes no hashtag`);
    }
    if (!params) continue;
    const c = r.candidate({ line: null, text: g.text, label: g.text, platform: p, t, params, key, rank: g.rank });
    if ('reason' in c) why.push(c.reason);
    else out.push(c);
  }
  return out.length ? out : { reason: why.join('; ') || 'nothing to collect' };
}

/** A saved set's or a query's items → inputs (top K of them when asked). */
export function resolveItems(
  r: Resolver,
  archive: Archive,
  design: CollectDesignParsed,
  query: LibraryQuery,
  held: ReadonlyMap<string, number | null>,
): Resolved {
  if (r.what === 'search')
    throw new ApiError({
      kind: 'validation',
      message: 'A search needs queries: paste them or pick a file. From a set, collect comments, posts, profiles or hashtag searches.',
    });
  const by = design.topK?.by ?? 'engagement';
  const { groups, read } = groupsOf(r, archive, query, by);
  // the K best first (ties in the set's order), so top-K keeps the best and the curve reads along
  const ordered = groups.map((g, i) => ({ g, i })).sort((a, b) => b.g.rank - a.g.rank || a.i - b.i);
  // every group is resolved (the top-K curve prices them all); the plan keeps the first K groups
  const out: Resolved = { candidates: [], problems: [], duplicates: [], read, column: null, belowTopK: 0, warnings: [] };
  const seen = new Map<string, number | null>();
  ordered.forEach(({ g }, group) => {
    const got = callsOf(r, g);
    if (Array.isArray(got)) for (const c of got) c.group = group;
    if (Array.isArray(got) && got.length === 0) return;
    addLine(out, seen, held, null, g.text, got);
  });
  return out;
}
