/**
 * A dataset bundle's facts of its rows, read by rid with the rows in the export workers (issue 29;
 * docs/datasets.md "How a bundle is written"; src/core/export/bundle-render.ts). Imports only
 * what the workers' row reader does (export-row.ts, sql.ts): a worker never loads the archive's index.
 */
import type { ExportTuple } from './export-row';
import { raw, sql, type RawSql, type SqlRead } from './sql';

/**
 * An item's publication month as the attrition report counts it (attrition.ts; docs/datasets.md
 * "Re-check and attrition"): `YYYY-MM` in UTC, NULL when unknown or outside the years 0000–9999.
 * One text, so a bundle's counts from its pass (RowFacts `months`) and the report's agree.
 */
export const PUBLISHED_MONTH = raw(
  `CASE WHEN i.published_at IS NULL OR i.published_at < -62167219200000 OR i.published_at > 253402300799999 THEN NULL
        ELSE strftime('%Y-%m', i.published_at / 1000, 'unixepoch') END`,
);

/**
 * What a bundle needs of a batch of rows besides their export rows (issue 29): each row's calls
 * (sorted, as bundleItems lists them) and its metric history as historyRows gives it (its past
 * readings oldest first, then its current counts). Read by rid in the export workers' pass over
 * the rows (src/core/export/bundle-render.ts), with the rows, instead of two more scans of the
 * items table on the exporting thread. `readings`: 6 numbers a reading (read_at, views, likes,
 * comments, shares, saves; NaN for null), every row's in the batch's order; `ends[k]`: the index
 * in `readings` where row k's end; `months[k]`: row k's publication month (PUBLISHED_MONTH).
 */
export interface RowFacts {
  calls: string[][];
  readings: number[];
  ends: number[];
  /** each row's publication month (PUBLISHED_MONTH): the manifest's attrition counts come from these */
  months: Array<string | null>;
}

type Counts = [number | null, number | null, number | null, number | null, number | null];
const num = (v: number | null): number => (v === null ? NaN : v);

/**
 * The export workers read a batch in one aggregate row instead (src/core/export/bundle-batch.ts,
 * the same rows and facts: bundle-batch.test.ts compares the two over generated archives).
 *
 * The rows of a batch of rids as tuples of `cols` (in the batch's order: ExportTuple for
 * EXPORT_COLS, exportRowOf makes the row) and their facts, or null when a rid
 * is not in the archive (deleted since the export's snapshot). One statement reads each row and
 * its current counts (the counts sit after the record in the row: a second read would walk the
 * record's overflow pages again); the readings and calls are two index lookups. `cols`: the
 * export row's columns (EXPORT_COLS and the annotation columns, RidWalk.extra).
 */
export function bundleRowsOf<T extends unknown[] = ExportTuple>(
  st: SqlRead,
  cols: RawSql,
  rids: readonly number[],
): { tuples: T[]; facts: RowFacts } | null {
  // ascending rids (neighbouring lookups share pages); j.key maps a row back to its place
  const order = rids.map((_, k) => k).sort((x, y) => rids[x] - rids[y]);
  const sorted = JSON.stringify(order.map((k) => rids[k]));
  const found = st.rows<[number, number, ...Counts, number, string | null, ...T]>(
    sql`SELECT j.key, COALESCE(i.counts_at, i.first_seen_at), i.views, i.likes, i.comments, i.shares, i.saves, i.counts_at IS NOT NULL, ${PUBLISHED_MONTH}, ${cols}
          FROM json_each(${sorted}) j CROSS JOIN items i ON i.rid = j.value`,
  );
  if (found.length !== rids.length) return null;
  const tuples: T[] = new Array(rids.length);
  const now: Array<[number, ...Counts]> = new Array(rids.length);
  const months = new Array<string | null>(rids.length);
  const withPast: number[] = [];
  for (const r of found) {
    const k = order[r[0]];
    tuples[k] = r.slice(9) as T;
    months[k] = r[8];
    now[k] = [r[1], r[2], r[3], r[4], r[5], r[6]];
    if (r[7] === 1) withPast.push(rids[k]);
  }
  const past: Array<number[] | undefined> = new Array(rids.length);
  if (withPast.length > 0) {
    const at = new Map(rids.map((rid, k) => [rid, k]));
    for (const r of st.rows<[number, number, ...Counts]>(
      sql`SELECT r.item_rid, r.read_at, r.views, r.likes, r.comments, r.shares, r.saves
            FROM json_each(${JSON.stringify(withPast)}) j CROSS JOIN item_readings r ON r.item_rid = j.value ORDER BY r.item_rid, r.read_at`,
    )) {
      const k = at.get(r[0]) as number;
      (past[k] ??= []).push(r[1], num(r[2]), num(r[3]), num(r[4]), num(r[5]), num(r[6]));
    }
  }
  const calls: string[][] = rids.map(() => []);
  for (const [key, callId] of st.rows<[number, string]>(
    sql`SELECT j.key, p.call_id FROM json_each(${sorted}) j CROSS JOIN provenance p ON p.item_rid = j.value`,
  ))
    calls[order[key]].push(callId);
  const readings: number[] = [];
  const ends: number[] = new Array(rids.length);
  for (let k = 0; k < rids.length; k++) {
    const p = past[k];
    if (p) for (const v of p) readings.push(v);
    const c = now[k];
    readings.push(c[0], num(c[1]), num(c[2]), num(c[3]), num(c[4]), num(c[5]));
    ends[k] = readings.length;
    calls[k].sort();
  }
  return { tuples, facts: { calls, readings, ends, months } };
}
