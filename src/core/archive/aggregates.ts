/**
 * Aggregates over the library (time series, label distributions, top authors) and over the ledger
 * (credits per day / source / endpoint, the usage summary). See docs/archive.md "Aggregates".
 */
import type {
  AuthorCount,
  CreditsPoint,
  EngagementField,
  EngagementPoint,
  LabelShare,
  LibraryQuery,
  TimeBucket,
  UsageCounts,
  VolumePoint,
} from '../../shared/query';
import type { ArchiveCtx, ReadCtx } from './context';
import { buildWhere, parseQuery, QueryError, type Where } from './sql-query';
import { and, part, raw, sql, SqlPart, where } from './sql';
import { fieldIdOf, labelProbe } from './chart-rows';
import { AUTHOR_KEY } from './author-summary';

const DAY_MS = 86_400_000;
/** an item's UTC day number, from its publication time in ms */
const DAY_OF = raw(`(i.published_at - ((i.published_at % ${DAY_MS}) + ${DAY_MS}) % ${DAY_MS}) / ${DAY_MS}`);
const AUTHOR = raw(AUTHOR_KEY);
/** a label field's id (label_fields.ff), as a sub-select SQLite runs once: `l.ff = ${labelField(…)}` is an index constraint */
const labelField = (family: string, field: string): SqlPart =>
  part(sql`(SELECT ff FROM label_fields WHERE family = ${family} AND field = ${field})`);

/** UTC day number (days since 1970-01-01) → 'YYYY-MM-DD' of that day, or of the Monday starting its week. */
function bucketOfDay(day: number, bucket: TimeBucket): string {
  // 1970-01-01 was a Thursday: Monday-based weekday = (day + 3) mod 7
  const d = bucket === 'week' ? day - ((((day + 3) % 7) + 7) % 7) : day;
  return new Date(d * DAY_MS).toISOString().slice(0, 10);
}

function filtered(input: LibraryQuery): Where {
  return buildWhere(parseQuery(input));
}

/**
 * Per-day rows of a time series: grouped on the integer UTC day number (cheap integer
 * arithmetic over the published_at index; SQLite's date() per row costs more than the
 * scan), folded into weeks and formatted in JS.
 */
function dailySeries<T extends { d: number }>(c: ReadCtx, q: LibraryQuery, cols: string): T[] {
  const w = filtered(q);
  return c.sql.all<T>(
    sql`SELECT ${DAY_OF} AS d${raw(cols)} FROM items i WHERE ${where(w, 'i.published_at IS NOT NULL')} GROUP BY d ORDER BY d`,
  );
}

/**
 * Items per day without any filter: one index range count per day over items_published
 * (the range walks are the whole cost, ~25 ms per million items) instead of a GROUP BY,
 * which sorts every dated row (~300 ms at 1M). Null when the span is too wide for it.
 */
function dailyCountsUnfiltered(c: ReadCtx): Array<{ d: number; c: number }> | null {
  const b = c.sql.get<{ lo: number | null; hi: number | null }>(sql`SELECT min(published_at) AS lo, max(published_at) AS hi FROM items`);
  if (!b || b.lo === null || b.hi === null) return [];
  const dayOf = (t: number): number => Math.floor(t / DAY_MS);
  const first = dayOf(b.lo);
  const last = dayOf(b.hi);
  if (last - first > 20_000) return null; // ~55 years: fall back to the grouped scan
  const out: Array<{ d: number; c: number }> = [];
  for (let d = first; d <= last; d++) {
    const n =
      c.sql.value<number>(sql`SELECT count(*) FROM items WHERE published_at >= ${d * DAY_MS} AND published_at < ${(d + 1) * DAY_MS}`) ?? 0;
    if (n > 0) out.push({ d, c: n });
  }
  return out;
}

/**
 * A summary's rows (several per day: one per platform and kind) added up per day, in day order.
 * The analysis index answers plain queries (platforms, kinds, dates on day boundaries) from its
 * daily counts (~1k rows for two years of five platforms) when it is current: at 1M posts the
 * items' per-day range counts walk the whole published_at index (~60–100 ms), the summary ~1 ms.
 */
function summedDays(rows: Array<{ d: number; c: number }> | null): Array<{ d: number; c: number }> | null {
  if (rows === null) return null;
  const byDay = new Map<number, number>();
  for (const r of rows) byDay.set(r.d, (byDay.get(r.d) ?? 0) + r.c);
  return [...byDay]
    .filter(([, n]) => n > 0)
    .sort((x, y) => x[0] - y[0])
    .map(([d, n]) => ({ d, c: n }));
}

/**
 * Aggregate results are cached per (method, arguments) until the archive changes
 * (same version key as the total cache: own writes and other connections' commits):
 * charts re-render and re-query the same series often. Bounded, oldest dropped first.
 */
function cachedAgg<T>(c: ReadCtx, key: string, f: () => T): T {
  const ver = c.dataVersion();
  const hit = c.aggCache.get(key);
  if (hit && hit.ver === ver) return structuredClone(hit.v) as T;
  const v = f();
  if (c.aggCache.size >= 64) c.aggCache.delete(c.aggCache.keys().next().value as string);
  c.aggCache.set(key, { v: structuredClone(v), ver });
  return v;
}

/** Items per UTC day / week (Monday start) of publication; undated items are left out. */
export function volumeOverTime(c: ReadCtx, q: LibraryQuery, bucket: TimeBucket): VolumePoint[] {
  return cachedAgg(c, `volume:${bucket}:${JSON.stringify(parseQuery(q))}`, () => volumeOverTimeUncached(c, q, bucket));
}

function volumeOverTimeUncached(c: ReadCtx, q: LibraryQuery, bucket: TimeBucket): VolumePoint[] {
  const out: VolumePoint[] = [];
  const w = filtered(q);
  const days =
    summedDays(c.dayCountsSource?.(q) ?? null) ??
    (w.clauses.length === 0 ? dailyCountsUnfiltered(c) : null) ??
    dailySeries<{ d: number; c: number }>(c, q, ', count(*) AS c');
  for (const r of days) {
    const key = bucketOfDay(r.d, bucket);
    const last = out[out.length - 1];
    if (last && last.bucket === key) last.value += r.c;
    else out.push({ bucket: key, value: r.c });
  }
  return out;
}

/** Sum / mean of one engagement count per bucket, over items whose count is known. */
export function engagementOverTime(c: ReadCtx, q: LibraryQuery, bucket: TimeBucket, field: EngagementField): EngagementPoint[] {
  const col = ({ views: 'views', likes: 'likes', comments: 'comments', shares: 'shares', saves: 'saves' } as const)[field];
  if (!col) throw new QueryError(`unknown engagement field: ${String(field)}`);
  const out: EngagementPoint[] = [];
  for (const r of dailySeries<{ d: number; s: number | null; k: number }>(c, q, `, sum(i.${col}) AS s, count(i.${col}) AS k`)) {
    const key = bucketOfDay(r.d, bucket);
    const last = out[out.length - 1];
    if (last && last.bucket === key) {
      last.value += r.s ?? 0;
      last.known += r.k;
    } else out.push({ bucket: key, value: r.s ?? 0, known: r.k, avg: null });
  }
  for (const p of out) p.avg = p.known > 0 ? p.value / p.known : null;
  return out;
}

/**
 * Share of each value of one label field among the items that carry it
 * (effective values: overrides count). Text and boolean values: one bucket each;
 * integer fields with at most 20 distinct values: one bucket per value; other
 * numbers: 10 equal-width buckets (0-1 fields: 0.0-0.1 … 0.9-1.0, the top one closed).
 * Items without the field (not judged) are not counted; a null value is bucket `null`.
 *
 * One pass: the (family, field, value) range of the item_labels key grouped by value
 * (a covering index scan; without filters no item is visited), bucketed in JS.
 */
export function labelDistribution(c: ReadCtx, q: LibraryQuery, family: string, field: string): LabelShare[] {
  return cachedAgg(c, `labels:${JSON.stringify([family, field, parseQuery(q)])}`, () => labelDistributionUncached(c, q, family, field));
}

/**
 * A label field's value groups over a selective query (a text search, an author, a tag…) from the
 * query's items, each probed once per value of the field (chart-rows.ts labelProbe), instead of
 * the field's whole key range tested against the materialised items; null when that is not the
 * smaller side.
 */
export function probedGroups(
  c: ReadCtx,
  w: Where,
  family: string,
  field: string,
): Array<{ v: string | number | bigint | Buffer; t: string; c: number }> | null {
  if (w.clauses.length === 0) return null;
  const ff = fieldIdOf(c, family, field);
  if (ff === undefined) return [];
  const p = labelProbe(c, w, and(w.clauses), ff, false);
  if (!p) return null;
  return c.sql.all<{ v: string | number | bigint | Buffer; t: string; c: number }>(
    sql`${raw(p.with)} SELECT l.value AS v, typeof(l.value) AS t, count(*) AS c FROM ${raw(p.from)} WHERE ${new SqlPart(p.where, w.params)} GROUP BY l.value`,
  );
}

function labelDistributionUncached(c: ReadCtx, q: LibraryQuery, family: string, field: string): LabelShare[] {
  const w = filtered(q);
  const filter = w.clauses.length === 0 ? raw('') : part(sql` AND l.item_rid IN (SELECT i.rid FROM items i WHERE ${where(w)})`);
  const groups =
    c.labelGroupsSource?.(q, family, field) ??
    probedGroups(c, w, family, field) ??
    c.sql.all<{ v: string | number | bigint | Buffer; t: string; c: number }>(
      sql`SELECT l.value AS v, typeof(l.value) AS t, count(*) AS c FROM item_labels l
     WHERE l.ff = ${labelField(family, field)}${filter} GROUP BY l.value`,
    );
  let n = 0;
  let reals = 0;
  let lo: number | null = null;
  let hi: number | null = null;
  const texts: Array<{ bucket: string; value: number; blob: boolean; v: string }> = [];
  const nums: Array<{ v: number; c: number; t: string }> = [];
  for (const g of groups) {
    n += g.c;
    if (g.t === 'text' || g.t === 'blob') {
      texts.push(
        typeof g.v === 'string' ? { bucket: g.v, value: g.c, blob: false, v: g.v } : { bucket: 'null', value: g.c, blob: true, v: '' },
      );
    } else {
      const v = Number(g.v);
      if (g.t === 'real') reals += g.c;
      nums.push({ v, c: g.c, t: g.t });
      lo = lo === null ? v : Math.min(lo, v);
      hi = hi === null ? v : Math.max(hi, v);
    }
  }
  if (n === 0) return [];
  // text and null values, most frequent first (ties: SQLite order, text before the null blob)
  texts.sort((x, y) => y.value - x.value || Number(x.blob) - Number(y.blob) || (x.v < y.v ? -1 : x.v > y.v ? 1 : 0));
  const out: Array<{ bucket: string; value: number }> = texts.map((t) => ({ bucket: t.bucket, value: t.value }));
  if (lo !== null && hi !== null) {
    const ints = nums.filter((x) => x.t === 'integer');
    if (reals === 0 && ints.length <= 20) {
      const boolish = lo >= 0 && hi <= 1 && isBooleanLabel(c, family, field);
      for (const r of ints.sort((x, y) => x.v - y.v))
        out.push({ bucket: boolish ? (r.v === 1 ? 'true' : 'false') : String(r.v), value: r.c });
    } else {
      const unit = lo >= 0 && hi <= 1;
      const l0 = unit ? 0 : lo;
      const h0 = unit ? 1 : hi;
      const width = h0 > l0 ? (h0 - l0) / 10 : 1;
      const counts = new Map<number, number>();
      for (const r of nums) {
        const k = Math.min(9, Math.max(0, Math.trunc(Math.round(((r.v - l0) / width) * 1e9) / 1e9)));
        counts.set(k, (counts.get(k) ?? 0) + r.c);
      }
      const fmt = (x: number): string => String(Math.round(x * 1e6) / 1e6);
      for (const k of [...counts.keys()].sort((x, y) => x - y)) {
        out.push({ bucket: `${fmt(l0 + k * width)}-${fmt(l0 + (k + 1) * width)}`, value: counts.get(k) ?? 0 });
      }
    }
  }
  return out.map((p) => ({ ...p, share: p.value / n }));
}

function isBooleanLabel(c: ReadCtx, family: string, field: string): boolean {
  const path = `$.${JSON.stringify(family)}.${field
    .split('.')
    .map((p) => JSON.stringify(p))
    .join('.')}`;
  const t = c.sql.value<string>(
    sql`SELECT json_type(i.labels, ${path}) AS t FROM item_labels l JOIN items i ON i.rid = l.item_rid
     WHERE l.ff = ${labelField(family, field)} AND l.value < x'' AND i.labels IS NOT NULL AND json_type(i.labels, ${path}) IS NOT NULL LIMIT 1`,
  );
  if (t !== undefined) return t === 'true' || t === 'false';
  const o = c.sql.value<string>(sql`SELECT value FROM label_overrides WHERE family = ${family} AND field = ${field} LIMIT 1`);
  return o !== undefined ? typeof JSON.parse(o) === 'boolean' : false;
}

/**
 * Authors with the most items (ties: more likes first, then network and author key). Items without
 * an author are left out. A plain query (networks, kinds, dates on day boundaries) is answered by
 * the analysis index's author summary when it is current (author-summary.ts): the grouped query
 * below reads every matching item's wide row.
 */
export function topAuthors(c: ReadCtx, q: LibraryQuery, n: number): AuthorCount[] {
  const summarised = c.authorCountsSource?.(q, n) ?? null;
  if (summarised) return summarised;
  const w = filtered(q);
  const rows = c.sql.all<{
    platform: string;
    author_id: string | null;
    username: string | null;
    display_name: string | null;
    items: number;
    likes: number;
    views: number;
  }>(
    // max(i.rid) is the query's only min/max: the bare name columns come from the author's latest archived item
    sql`SELECT i.platform AS platform, i.author_id AS author_id, max(i.rid) AS latest, i.author_username AS username,
       i.author_display_name AS display_name, count(*) AS items,
       coalesce(sum(i.likes), 0) AS likes, coalesce(sum(i.views), 0) AS views
     FROM items i WHERE ${where(w, '(i.author_id IS NOT NULL OR i.author_username IS NOT NULL)')}
     GROUP BY i.platform, ${AUTHOR}
     ORDER BY items DESC, likes DESC, platform, ${AUTHOR} LIMIT ${Math.max(1, Math.floor(n))}`,
  );
  return rows.map((r) => ({
    bucket: r.username ?? r.display_name ?? r.author_id ?? '',
    value: r.items,
    platform: r.platform,
    authorId: r.author_id,
    username: r.username,
    displayName: r.display_name,
    likes: r.likes,
    views: r.views,
  }));
}

/** The ledger attempts started in the range (since inclusive, until exclusive, ms), as a condition. */
function ledgerWhere(range: { since?: number; until?: number }): SqlPart {
  const parts = [
    range.since !== undefined ? part(sql`started_at >= ${range.since}`) : null,
    range.until !== undefined ? part(sql`started_at < ${range.until}`) : null,
  ].filter((p) => p !== null);
  return new SqlPart(
    and(parts.map((p) => p.text)),
    parts.flatMap((p) => p.values),
  );
}

/** Credits used per UTC day of the attempt (since inclusive, until exclusive, ms). */
export function creditsPerDay(c: ReadCtx, range: { since?: number; until?: number } = {}): CreditsPoint[] {
  return c.sql.all<CreditsPoint>(
    sql`SELECT date(started_at / 1000, 'unixepoch') AS bucket, sum(credits_used) AS value, count(*) AS calls
     FROM calls WHERE ${ledgerWhere(range)} GROUP BY bucket ORDER BY bucket`,
  );
}

/** Credits per call source ('search', 'watch:<id>', 'cli', ...), most spent first. */
export function creditsPerSource(c: ReadCtx, range: { since?: number; until?: number } = {}): CreditsPoint[] {
  return c.sql.all<CreditsPoint>(
    sql`SELECT source AS bucket, sum(credits_used) AS value, count(*) AS calls FROM calls WHERE ${ledgerWhere(range)}
     GROUP BY source ORDER BY value DESC, bucket`,
  );
}

/** Credits per `<platform>/<endpoint>`, most spent first. */
export function creditsPerEndpoint(c: ReadCtx, range: { since?: number; until?: number } = {}): CreditsPoint[] {
  return c.sql.all<CreditsPoint>(
    sql`SELECT platform || '/' || endpoint AS bucket, sum(credits_used) AS value, count(*) AS calls FROM calls WHERE ${ledgerWhere(range)}
     GROUP BY platform, endpoint ORDER BY value DESC, bucket`,
  );
}

/**
 * Charged vs not charged, over ledger attempts. An attempt with credits_used > 0 is
 * charged; otherwise the first that applies: dry run, error (no status / not 2xx),
 * idempotent replay, free call, shared cache, else empty (a zero-cost success).
 */
/** One answer served from the archive instead of a request (issue 27 #5). */
export function noteServedFromArchive(c: ArchiveCtx, s: { at: number; source: string | null; platform: string; endpoint: string }): void {
  c.sql.insert`archive_serves`({ at: s.at, source: s.source, platform: s.platform, endpoint: s.endpoint });
}

/** Answers served from the archive in the period (every process, every kind of call). */
function servedFromArchive(c: ReadCtx, range: { since?: number; until?: number }): number {
  const since = range.since ?? 0,
    until = range.until ?? Number.MAX_SAFE_INTEGER;
  return c.sql.value<number>(sql`SELECT count(*) AS n FROM archive_serves WHERE at >= ${since} AND at < ${until}`) ?? 0;
}

export function usageSummary(c: ReadCtx, range: { since?: number; until?: number } = {}): UsageCounts {
  const r =
    c.sql.get<Record<string, number | null>>(
      sql`SELECT count(*) AS attempts,
       sum(credits_used > 0) AS charged, coalesce(sum(credits_used), 0) AS credits,
       sum(credits_used <= 0 AND dry_run = 1) AS dry_run,
       sum(credits_used <= 0 AND dry_run = 0 AND (status IS NULL OR status NOT BETWEEN 200 AND 299)) AS error,
       sum(credits_used <= 0 AND dry_run = 0 AND status BETWEEN 200 AND 299 AND idempotent_replay = 1) AS replay,
       sum(credits_used <= 0 AND dry_run = 0 AND status BETWEEN 200 AND 299 AND idempotent_replay = 0 AND free_call = 1) AS free_call,
       sum(credits_used <= 0 AND dry_run = 0 AND status BETWEEN 200 AND 299 AND idempotent_replay = 0 AND free_call = 0 AND cached = 1) AS cached,
       sum(credits_used <= 0 AND dry_run = 0 AND status BETWEEN 200 AND 299 AND idempotent_replay = 0 AND free_call = 0 AND cached = 0) AS empty
     FROM calls WHERE ${ledgerWhere(range)}`,
    ) ?? {};
  const v = (k: string): number => r[k] ?? 0;
  return {
    attempts: v('attempts'),
    charged: { requests: v('charged'), credits: v('credits') },
    notCharged: {
      cached: v('cached'),
      replay: v('replay'),
      freeCall: v('free_call'),
      error: v('error'),
      dryRun: v('dry_run'),
      empty: v('empty'),
      fromArchive: servedFromArchive(c, range),
    },
  };
}
