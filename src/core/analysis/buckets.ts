/** Time buckets of charts and comparisons: UTC day, week (Monday start) or month of publication. */
import type { ChartBucket } from '../../shared/analysis';
import type { LibraryQuery } from '../../shared/query';

import { DAY_MS } from '../archive';

export { DAY_MS };

/**
 * The dates a time chart draws: 1000-01-01 up to (not including) 9999-12-01, so every bucket's
 * first and next day are four-digit ISO dates a Library query can name. Items dated outside
 * (a post "published" in +275760, a zero timestamp read as year 0) are set aside and counted,
 * never drawn: one absurd value must not break or stretch a chart (issue 27 #18).
 */
export const CHART_MIN_MS = Date.UTC(1000, 0, 1);
export const CHART_MAX_MS = Date.UTC(9999, 11, 1);
export const CHART_MIN_DAY = CHART_MIN_MS / DAY_MS;
export const CHART_MAX_DAY = CHART_MAX_MS / DAY_MS;
/** Whether a UTC day number is one a time chart draws. */
export const chartableDay = (day: number): boolean => day >= CHART_MIN_DAY && day < CHART_MAX_DAY;

const iso = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The first day (day number) of the bucket holding `day`, and the first day of the next bucket. */
export function bucketRange(day: number, bucket: ChartBucket): [number, number] {
  if (bucket === 'day') return [day, day + 1];
  if (bucket === 'week') {
    const start = day - ((((day + 3) % 7) + 7) % 7);
    return [start, start + 7];
  }
  const d = new Date(day * DAY_MS);
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / DAY_MS;
  const next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / DAY_MS;
  return [start, next];
}

/** Bucket label (its first day, YYYY-MM-DD; months YYYY-MM) and the query narrowed to it. */
export function bucketOf(day: number, bucket: ChartBucket, q: LibraryQuery): { label: string; query: LibraryQuery } {
  const [a, b] = bucketRange(day, bucket);
  // a bucket at the edge of the chartable years holds only chartable items: the rest are set aside
  const since = Math.max(a * DAY_MS, CHART_MIN_MS, q.since === undefined ? -Infinity : timeMs(q.since, false));
  const until = Math.min(b * DAY_MS, CHART_MAX_MS, q.until === undefined ? Infinity : timeMs(q.until, true));
  return { label: bucket === 'month' ? iso(a).slice(0, 7) : iso(a), query: { ...q, since: isoTime(since), until: isoTime(until) } };
}

function isoTime(ms: number): string {
  return ms % DAY_MS === 0 ? iso(ms / DAY_MS) + 'T00:00:00Z' : new Date(ms).toISOString();
}

function timeMs(v: string | number, end: boolean): number {
  if (typeof v === 'number') return v;
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return Date.parse(`${v}T00:00:00Z`) + (end ? DAY_MS : 0);
  if (/^-?\d+$/.test(v)) return Number(v);
  return Date.parse(v);
}
