/**
 * Library charts (docs/analysis.md "Library charts"): volume over time by platform, label value
 * or tag; label share over time; engagement distribution. Every mark carries the library query
 * for exactly the items it counts. Plain-filter queries (platforms, kinds, dates on day
 * boundaries) are answered from the daily summary (daily-summary.ts) when it is current.
 */
import type { Archive } from '../archive';
import { parseQuery } from '../archive';
import {
  engagementDistributionInputSchema,
  labelShareInputSchema,
  volumeByInputSchema,
  type ChartBucket,
  type ChartMark,
  type ChartSeries,
} from '../../shared/analysis';
import { labelFieldSpec } from '../../shared/labels';
import type { LabelCondition, LibraryQuery } from '../../shared/query';
import { bucketOf, bucketRange, chartableDay, DAY_MS } from './buckets';
import { baseQuery } from './frequency';
import type { DayRow } from '../archive';
import { present } from '../../shared/maps';

/** Rows of (day, key, count): what every time chart is folded from (read by the archive, chart-rows.ts). */
export type { DayRow };

/** How label value groups become chart keys and the condition selecting exactly them. */
export function labelKeyer(
  family: string,
  field: string,
  values: Array<string | number>,
): (v: string | number) => { key: string; conds: LabelCondition[] } {
  const boolean = labelFieldSpec(family, field)?.type === 'bool';
  const nums = values.filter((v): v is number => typeof v === 'number');
  const reals = nums.some((v) => !Number.isInteger(v));
  const ints = new Set(nums.filter((v) => Number.isInteger(v)));
  const ranged = reals || ints.size > 20;
  const lo = Math.min(...nums);
  const hi = Math.max(...nums);
  const unit = lo >= 0 && hi <= 1;
  const l0 = unit ? 0 : lo;
  const width = unit ? 0.1 : hi > lo ? (hi - lo) / 10 : 1;
  const fmt = (x: number): string => String(Math.round(x * 1e6) / 1e6);
  return (v) => {
    if (typeof v === 'string') return { key: v, conds: [{ family, field, op: 'eq', value: v }] };
    if (boolean && (v === 0 || v === 1)) return { key: v === 1 ? 'true' : 'false', conds: [{ family, field, op: 'eq', value: v === 1 }] };
    if (!ranged) return { key: String(v), conds: [{ family, field, op: 'eq', value: v }] };
    const k = Math.min(9, Math.max(0, Math.floor((v - l0) / width + 1e-9)));
    const a = l0 + k * width;
    const b = l0 + (k + 1) * width;
    return {
      key: `${fmt(a)}–${fmt(b)}`,
      conds: [
        { family, field, op: 'gte', value: Number(fmt(a)) },
        k === 9 ? { family, field, op: 'lte', value: Number(fmt(b)) } : { family, field, op: 'lt', value: Number(fmt(b)) },
      ],
    };
  };
}

/**
 * Folds (day, key, count) rows into buckets, keeping the `limit` keys with the most items.
 * Each distinct raw key and day is resolved once (its chart key, its bucket); the rows then add
 * into arrays by those numbers — no object or string per row (a year of a 0–1 label field by day
 * is ~37k rows at 1M posts).
 */
export function fold(
  rows: DayRow[],
  bucket: ChartBucket,
  q: LibraryQuery,
  keyOf: (k: string | number) => { key: string; narrow: (q: LibraryQuery) => LibraryQuery },
  limit: number,
  shares: boolean,
): ChartSeries {
  const keyNo = new Map<string, number>();
  const keyNames: string[] = [];
  const narrows: Array<(q: LibraryQuery) => LibraryQuery> = [];
  const rawKey = new Map<string | number, number>();
  const bucketNo = new Map<string, number>();
  const bucketList: Array<{ label: string; query: LibraryQuery }> = [];
  const dayBucket = new Map<number, number>();
  let setAside = 0;
  rows = rows.filter((r) => chartableDay(r.d) || ((setAside += r.c), false));
  const rk = new Int32Array(rows.length);
  const rb = new Int32Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    let k = rawKey.get(r.k);
    if (k === undefined) {
      const o = keyOf(r.k);
      k = keyNo.get(o.key);
      if (k === undefined) {
        k = keyNames.length;
        keyNo.set(o.key, k);
        keyNames.push(o.key);
        narrows.push(o.narrow);
      }
      rawKey.set(r.k, k);
    }
    let b = dayBucket.get(r.d);
    if (b === undefined) {
      const o = bucketOf(r.d, bucket, q);
      b = bucketNo.get(o.label);
      if (b === undefined) {
        b = bucketList.length;
        bucketNo.set(o.label, b);
        bucketList.push(o);
      }
      dayBucket.set(r.d, b);
    }
    rk[i] = k;
    rb[i] = b;
  }
  const totals = new Float64Array(keyNames.length);
  const bucketTotal = new Float64Array(bucketList.length);
  for (let i = 0; i < rows.length; i++) {
    totals[rk[i]] += rows[i].c;
    bucketTotal[rb[i]] += rows[i].c;
  }
  const kept = keyNames
    .map((name, k) => ({ name, k, total: totals[k] }))
    .sort((a, b) => b.total - a.total || (a.name < b.name ? -1 : 1))
    .slice(0, limit);
  const keys = kept.map((x) => x.name);
  const rank = new Int32Array(keyNames.length).fill(-1);
  kept.forEach((x, n) => (rank[x.k] = n));
  const nk = keyNames.length;
  const marks = new Map<number, ChartMark>();
  for (let i = 0; i < rows.length; i++) {
    const k = rk[i];
    if (rank[k] < 0) continue;
    const id = rb[i] * nk + k;
    const m = marks.get(id);
    if (m) m.value += rows[i].c;
    else {
      const b = bucketList[rb[i]];
      marks.set(id, { bucket: b.label, key: keyNames[k], value: rows[i].c, query: narrows[k](b.query) });
    }
  }
  const order = new Map(keys.map((k, n) => [k, n]));
  const out = [...marks.values()].sort((a, b) =>
    a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : present(order, a.key, 'key') - present(order, b.key, 'key'),
  );
  if (shares) for (const m of out) m.share = m.value / bucketTotal[present(bucketNo, m.bucket, 'bucket')];
  return setAside > 0 ? { keys, marks: out, setAside } : { keys, marks: out };
}

export interface ChartRowsSource {
  /** (day, key, count) rows from the daily summary, or null when it cannot answer this query */
  dayRows(q: LibraryQuery, by: 'platform' | 'label', family?: string, field?: string): DayRow[] | null;
  /** a label field's value groups (value, its SQLite type, items) from the daily summary, or null when it cannot answer */
  labelGroups?(
    q: LibraryQuery,
    family: string,
    field: string,
  ): Array<{ v: string | number | bigint | Buffer; t: string; c: number }> | null;
}

/** Most buckets a chart reads one by one from the summary (bucketLabelRows); past it, rows per day. */
const MAX_BUCKET_READS = 150;

/**
 * A week or month chart of a label field over the daily summary: each bucket's value groups, one
 * summary read per bucket holding items of the query (rows dated the bucket's first day, which
 * fold puts in the same bucket as any of its days), instead of a row per day and value — a year
 * of a 0–1 field by month is ~1.2k rows instead of ~37k, whose reading was most of the chart's
 * time at 1M posts. The same counts: each read covers the bucket's days from its first to its
 * last day holding items, and "unsure" (null, stored as a blob) values are left out as the day
 * rows leave them. Null when the summary cannot answer (then rows per day, or the items).
 */
function bucketLabelRows(q: LibraryQuery, bucket: ChartBucket, family: string, field: string, source?: ChartRowsSource): DayRow[] | null {
  if (bucket === 'day' || !source?.labelGroups) return null;
  const days = source.dayRows(q, 'platform');
  if (days === null) return null;
  // a day outside the chartable years: rows per day, which fold counts as set aside
  if (days.some((r) => !chartableDay(r.d))) return null;
  const spans = new Map<number, [number, number]>();
  for (const { d } of days) {
    const a = bucketRange(d, bucket)[0];
    const span = spans.get(a);
    if (!span) spans.set(a, [d, d]);
    else {
      span[0] = Math.min(span[0], d);
      span[1] = Math.max(span[1], d);
    }
  }
  if (spans.size > MAX_BUCKET_READS) return null;
  const iso = (day: number): string | null => {
    const s = new Date(day * DAY_MS).toISOString();
    return /^\d{4}-/.test(s) ? s.slice(0, 10) : null;
  };
  const out: DayRow[] = [];
  for (const [a, [first, last]] of [...spans].sort((x, y) => x[0] - y[0])) {
    const since = iso(first);
    const until = iso(last);
    if (since === null || until === null) return null;
    const groups = source.labelGroups({ ...q, since, until }, family, field);
    if (groups === null) return null;
    for (const g of groups)
      if (g.t !== 'blob') out.push({ d: a, k: typeof g.v === 'bigint' ? Number(g.v) : (g.v as string | number), c: g.c });
  }
  return out;
}

function labelRows(
  archive: Archive,
  q: LibraryQuery,
  bucket: ChartBucket,
  family: string,
  field: string,
  source?: ChartRowsSource,
): DayRow[] {
  const fromSummary = bucketLabelRows(q, bucket, family, field, source) ?? source?.dayRows(q, 'label', family, field);
  if (fromSummary) return fromSummary;
  return archive.dayRows(q, 'label', family, field);
}

function labelSeries(
  archive: Archive,
  q: LibraryQuery,
  bucket: ChartBucket,
  family: string,
  field: string,
  limit: number,
  shares: boolean,
  source?: ChartRowsSource,
): ChartSeries {
  const rows = labelRows(archive, q, bucket, family, field, source);
  const keyer = labelKeyer(family, field, [...new Set(rows.map((r) => r.k))]);
  return fold(
    rows,
    bucket,
    q,
    (k) => {
      const { key, conds } = keyer(k);
      return { key, narrow: (qq) => ({ ...qq, labels: [...(qq.labels ?? []), ...conds] }) };
    },
    limit,
    shares,
  );
}

export function volumeBy(archive: Archive, input: unknown, source?: ChartRowsSource): ChartSeries {
  const i = volumeByInputSchema.parse(input);
  const q = baseQuery(parseQuery(i.query));
  if (i.by === 'label') {
    if (!i.family || !i.field) throw new Error('Volume by label needs the label field, e.g. family "intent" and field "label".');
    return labelSeries(archive, q, i.bucket, i.family, i.field, i.limit, false, source);
  }
  if (i.by === 'platform') {
    const rows = source?.dayRows(q, 'platform') ?? archive.dayRows(q, 'platform');
    return fold(rows, i.bucket, q, (k) => ({ key: String(k), narrow: (qq) => ({ ...qq, platforms: [String(k)] }) }), i.limit, false);
  }
  const rows = archive.dayRows(q, 'tag');
  return fold(
    rows,
    i.bucket,
    q,
    (k) => ({ key: String(k), narrow: (qq) => ({ ...qq, tags: [...(qq.tags ?? []), String(k)] }) }),
    i.limit,
    false,
  );
}

/** Each label value's share of the items judged for that field (a definite value), per bucket. */
export function labelShareOverTime(archive: Archive, input: unknown, source?: ChartRowsSource): ChartSeries {
  const i = labelShareInputSchema.parse(input);
  return labelSeries(archive, baseQuery(parseQuery(i.query)), i.bucket, i.family, i.field, 50, true, source);
}

/**
 * Items per decade of one count (0, 1–9, 10–99, …): the shape of a long-tailed distribution.
 * Items whose count is unknown are left out.
 */
export function engagementDistribution(archive: Archive, input: unknown): ChartSeries {
  const i = engagementDistributionInputSchema.parse(input);
  const q = baseQuery(parseQuery(i.query));
  const rows = archive.engagementDecades(q, i.field);
  const marks: ChartMark[] = rows.map((r) => {
    const min = r.b < 0 ? Number.NEGATIVE_INFINITY : 10 ** r.b;
    const max = r.b < 0 ? 0 : 10 ** (r.b + 1) - 1;
    const label =
      r.b < 0 ? '0' : r.b === 0 ? '1–9' : `${(10 ** r.b).toLocaleString('en-US')}–${(10 ** (r.b + 1) - 1).toLocaleString('en-US')}`;
    const cond = r.b < 0 ? { field: i.field, max: 0 } : { field: i.field, min, max };
    return { bucket: label, key: i.field, value: r.c, query: { ...q, engagement: [...(q.engagement ?? []), cond] } };
  });
  return { keys: [i.field], marks };
}
