/**
 * Frequency tables over any library query (docs/analysis.md "Frequency tables"): per term the
 * items containing it, its occurrences, share, first/last publication and engagement sums, and
 * the library query for exactly those items. Counted from the matching items, or, for the whole
 * archive, read from the totals the analysis index keeps (term-index.ts). The rows come from the
 * archive (term-counts.ts: `Archive.termItems`, `authorCounts`).
 */
import type { Archive } from '../archive';
import { parseQuery, QueryError } from '../archive';
import {
  engagementOf,
  frequencyInputSchema,
  type EngagementSums,
  type FrequencyField,
  type FrequencyInput,
  type FrequencyRow,
  type FrequencyTable,
} from '../../shared/analysis';
import type { LibraryQuery } from '../../shared/query';
import type { AuthorCountRow } from '../archive';
import { SUM_COLUMNS } from '../archive';
import { extractTerms, type TermField } from '../text';
import { present } from '../../shared/maps';

/** Running totals of one term. */
export interface TermAcc {
  count: number;
  occ: number;
  first: number | null;
  last: number | null;
  /** views, likes, comments, shares, saves, engagement (SUM_COLUMNS order); null = none known */
  sums: Array<number | null>;
}

export function newAcc(): TermAcc {
  return { count: 0, occ: 0, first: null, last: null, sums: [null, null, null, null, null, null] };
}

/** Adds one item (published `pub`, counts `vals` in SUM_COLUMNS order) holding the term `occ` times. */
export function addItem(a: TermAcc, occ: number, pub: number | null, vals: Array<number | null>): void {
  a.count++;
  a.occ += occ;
  if (pub !== null) {
    if (a.first === null || pub < a.first) a.first = pub;
    if (a.last === null || pub > a.last) a.last = pub;
  }
  for (let k = 0; k < vals.length; k++) {
    const v = vals[k];
    if (v !== null) a.sums[k] = (a.sums[k] ?? 0) + v;
  }
}

/** The query without paging, narrowed to one more term (the click-through of a row). */
export function baseQuery(q: LibraryQuery): LibraryQuery {
  const { sort: _s, limit: _l, after: _a, ...rest } = q;
  return rest;
}

/**
 * Distinct terms one count may hold in memory (~250 bytes each: about 500 MB). Past it the count
 * stops with the user's way out instead of exhausting the process's heap: trigrams over a whole
 * 1M-post archive run to tens of millions of distinct terms (the analysis benchmark found the
 * process killed at its 4 GB heap). Hashtags, mentions, words and bigrams of the whole archive are
 * read from the index's totals, never counted here.
 */
export const MAX_DISTINCT_TERMS = 2_000_000;

/** Counts one text field over the items a query matches. */
export function countTerms(archive: Archive, q: LibraryQuery, field: TermField, maxDistinct = MAX_DISTINCT_TERMS): Map<string, TermAcc> {
  const acc = new Map<string, TermAcc>();
  const perItem = new Map<string, number>();
  for (const r of archive.termItems(parseQuery(q))) {
    const terms = extractTerms(r[0], r[1], [field])[field];
    if (terms.length === 0) continue;
    perItem.clear();
    for (const t of terms) perItem.set(t, (perItem.get(t) ?? 0) + 1);
    const vals = [r[3], r[4], r[5], r[6], r[7], engagementOf({ likes: r[4], comments: r[5], shares: r[6], saves: r[7] })];
    for (const [t, n] of perItem) {
      let a = acc.get(t);
      if (!a) {
        if (acc.size >= maxDistinct)
          throw new QueryError(
            `These items hold more than ${maxDistinct.toLocaleString('en-US')} distinct ${field}, too many to count exactly in memory. Narrow the query (a date range, a network, a tag or a search) and count again.`,
          );
        acc.set(t, (a = newAcc()));
      }
      addItem(a, n, r[2], vals);
    }
  }
  return acc;
}

function sums(a: TermAcc): EngagementSums {
  const [views, likes, comments, shares, saves, engagement] = a.sums;
  return { views, likes, comments, shares, saves, engagement };
}

const SORT_KEY: Record<string, (a: TermAcc) => number | null> = {
  count: (a) => a.count,
  occurrences: (a) => a.occ,
  first: (a) => a.first,
  last: (a) => a.last,
  ...Object.fromEntries(SUM_COLUMNS.map((c, k) => [c, (a: TermAcc) => a.sums[k]])),
};

/** Sorted rows (unknown values last in both directions; ties: more items first, then the term). */
export function rankTerms(
  entries: Iterable<[string, TermAcc]>,
  sort: string,
  dir: 'asc' | 'desc',
  limit: number,
): Array<[string, TermAcc]> {
  const key = SORT_KEY[sort] ?? SORT_KEY.count;
  const sign = dir === 'asc' ? 1 : -1;
  let all = [...entries];
  if (sort === 'count' && dir === 'desc' && all.length > limit * 4) {
    // only terms with at least the limit-th largest count can be in the top: sort numbers, not rows
    const counts = Float64Array.from(all, ([, a]) => a.count).sort();
    const floor = counts[counts.length - limit];
    all = all.filter(([, a]) => a.count >= floor);
  }
  return all
    .sort(([ta, a], [tb, b]) => {
      const x = key(a);
      const y = key(b);
      if (x !== y) {
        if (x === null) return 1;
        if (y === null) return -1;
        return sign * (x - y);
      }
      return b.count - a.count || (ta < tb ? -1 : ta > tb ? 1 : 0);
    })
    .slice(0, limit);
}

/** A frequency row's counts: how many items, occurrences, the share of all items, first/last seen, sums. */
function rowStats(a: TermAcc, items: number): Pick<FrequencyRow, 'count' | 'occurrences' | 'share' | 'firstSeen' | 'lastSeen' | 'sums'> {
  return {
    count: a.count,
    occurrences: a.occ,
    share: items > 0 ? a.count / items : 0,
    firstSeen: a.first,
    lastSeen: a.last,
    sums: sums(a),
  };
}

function termRows(field: TermField, q: LibraryQuery, items: number, ranked: Array<[string, TermAcc]>): FrequencyRow[] {
  const base = baseQuery(q);
  return ranked.map(([term, a]) => ({
    term,
    ...rowStats(a, items),
    query: { ...base, terms: [...(base.terms ?? []), { field, value: term }] },
  }));
}

/** Authors: one row per (platform, author id — or username when the network gives no id); names read for the rows shown. */
function authorTable(
  archive: Archive,
  q: LibraryQuery,
  items: number,
  sort: string,
  dir: 'asc' | 'desc',
  limit: number,
  source?: TotalsSource,
): FrequencyTable {
  const acc = (r: AuthorCountRow): TermAcc => ({
    count: r.n,
    occ: r.n,
    first: r.first,
    last: r.last,
    sums: SUM_COLUMNS.map((c) => r[c] ?? null),
  });
  // the analysis index's author summary ranks a plain query's authors in SQL; else every author's totals are ranked here
  const summarised = source?.authors?.(q, sort, dir, limit) ?? null;
  let shown: AuthorCountRow[];
  let distinct: number;
  if (summarised) {
    shown = summarised.rows;
    distinct = summarised.distinct;
  } else {
    const rows = archive.authorCounts(parseQuery(q));
    const byKey = new Map(rows.map((r) => [`${r.platform}\u0000${r.akey}`, r]));
    shown = rankTerms(
      rows.map((r) => [`${r.platform}\u0000${r.akey}`, acc(r)]),
      sort,
      dir,
      limit,
    ).map(([k]) => present(byKey, k, 'author'));
    distinct = rows.length;
  }
  const names = archive.authorNames(parseQuery(baseQuery(q)), shown);
  const base = baseQuery(q);
  return {
    field: 'authors',
    items,
    distinct,
    basis: summarised ? 'index' : 'items',
    rows: shown.map((r, k) => {
      const authorId = r.byname ? null : r.akey;
      const { username, displayName } = names[k];
      return {
        term: username ?? displayName ?? authorId ?? '',
        ...rowStats(acc(r), items),
        query: { ...base, platforms: [r.platform], author: authorId ?? username ?? '' },
        platform: r.platform,
        authorId,
      };
    }),
  };
}

export interface TotalsSource {
  /** archive-wide totals of a field, ranked, when the analysis index can answer; else null */
  totals(
    field: TermField,
    sort: string,
    dir: 'asc' | 'desc',
    limit: number,
  ): { distinct: number | null; ranked: Array<[string, TermAcc]> } | null;
  /** a query's table from the term ids the analysis index keeps per item, when it can answer; else null */
  counted?(
    q: LibraryQuery,
    field: TermField,
    sort: string,
    dir: 'asc' | 'desc',
    limit: number,
  ): { distinct: number; ranked: Array<[string, TermAcc]> } | null;
  /** a query's top authors in a frequency table's order (without names) and how many there are, from the analysis index's author summary when it can answer; else null */
  authors?(q: LibraryQuery, sort: string, dir: 'asc' | 'desc', limit: number): { distinct: number; rows: AuthorCountRow[] } | null;
}

/** The frequency table of one field over a library query. */
export function frequencyTable(archive: Archive, input: FrequencyInput, source?: TotalsSource): FrequencyTable {
  const i = frequencyInputSchema.parse(input);
  const q = parseQuery(i.query);
  const items = archive.count(baseQuery(q));
  if (i.field === 'authors') return authorTable(archive, q, items, i.sort, i.dir, i.limit, source);
  const field = i.field as Exclude<FrequencyField, 'authors'>;
  const totals = Object.keys(baseQuery(q)).length === 0 ? (source?.totals(field, i.sort, i.dir, i.limit) ?? null) : null;
  if (totals) return { field, items, distinct: totals.distinct, basis: 'totals', rows: termRows(field, q, items, totals.ranked) };
  const ids = source?.counted?.(baseQuery(q), field, i.sort, i.dir, i.limit) ?? null;
  if (ids) return { field, items, distinct: ids.distinct, basis: 'index', rows: termRows(field, q, items, ids.ranked) };
  const acc = countTerms(archive, q, field);
  return { field, items, distinct: acc.size, basis: 'items', rows: termRows(field, q, items, rankTerms(acc, i.sort, i.dir, i.limit)) };
}
