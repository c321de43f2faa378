/**
 * The daily summary's counts of one batch of items (analysis-index.ts, `an_daily`): items per
 * (label field, UTC day, platform, kind, value) — a label's reals in 0..1 to their hundredth
 * (dailyValue) — and per (day, platform, kind) under field 0.
 *
 * Grouped by the item's (day, platform, kind) once, then by field number and the value itself (a
 * Map key: a number, a bigint, a text and the null blob are told apart as typeof told them apart
 * in the text key this replaced, and equal values meet); a key string of six parts per label leaf
 * cost ~3 µs a leaf, most of the summary's time (issue 30).
 */
import type { IndexItemRow } from '../archive';
import { flattenLabels, UNDATED, type Json, type LabelScalar } from '../archive';
import { DAY_MS } from './buckets';

/** One an_daily row to add: field number, day, platform, kind, value, items. */
export type DailyRow = [number, number, string, string, LabelScalar, number];

/** the one key of every blob value (Buffers differ by identity as Map keys) */
const BLOB = Symbol('blob');

/** A label value as the daily summary groups it: reals in 0..1 to their hundredth (floor), others as stored. */
export function dailyValue(v: LabelScalar): LabelScalar {
  if (typeof v === 'number' && !Number.isInteger(v) && v >= 0 && v <= 1) return Math.trunc(Math.round(v * 100 * 1e8) / 1e8) / 100;
  return v;
}

/**
 * Counts items into daily summary rows, chunk after chunk: a build from scratch keeps one across
 * its slices (daily-acc.ts), so a row its items share is written once, in key order, at the end.
 */
export class DailyCounter {
  private readonly out: DailyRow[] = [];
  /** per (day, platform, kind): per field number, the rows by value */
  private readonly groups = new Map<string, Array<Map<unknown, DailyRow> | undefined>>();

  /** the rows counted so far */
  get size(): number {
    return this.out.length;
  }

  /**
   * Adds `rows` (rid, …, platform, kind, labels JSON: IndexItemRow), their label overrides by rid
   * in `overrides`, `fields` the label fields' numbers by family\0field (read again per chunk: a
   * label field first seen meanwhile gets a number).
   */
  add(
    rows: readonly IndexItemRow[],
    fields: Map<string, number>,
    overrides: Map<number, Array<{ family: string; field: string; value: unknown }>>,
  ): void {
    const { out, groups } = this;
    const ffOf = new Map<string, Map<string, number | undefined>>();
    const ff = (family: string, field: string): number | undefined => {
      let m = ffOf.get(family);
      if (!m) ffOf.set(family, (m = new Map()));
      if (m.has(field)) return m.get(field);
      const n = fields.get(family + '\u0000' + field);
      m.set(field, n);
      return n;
    };
    for (const r of rows) {
      const day = r[3] === null ? UNDATED : Math.floor(r[3] / DAY_MS);
      const gk = `${day}\u0000${r[9]}\u0000${r[10]}`;
      let g = groups.get(gk);
      if (!g) groups.set(gk, (g = []));
      const bump = (no: number, v: LabelScalar): void => {
        const m = g[no] ?? (g[no] = new Map());
        // every blob a label is stored as is the null blob: one key for them, as before
        const key = typeof v === 'object' ? BLOB : v;
        const e = m.get(key);
        if (e) e[5]++;
        else {
          const row: DailyRow = [no, day, r[9], r[10], v, 1];
          m.set(key, row);
          out.push(row);
        }
      };
      bump(0, '');
      const leaves = flattenLabels(r[11] === null ? null : (JSON.parse(r[11]) as Json), overrides.get(r[0]));
      for (const [family, field, v] of leaves) {
        const no = ff(family, field);
        if (no !== undefined) bump(no, dailyValue(v));
      }
    }
  }

  /**
   * The rows in the table's key order (field number, day, platform, kind; the values of one
   * group as counted): the writes walk its pages once instead of one page each. The groups are
   * sorted, not the rows: a comparator over ~250,000 rows cost ~1.5 s of a 50k-post build.
   */
  sorted(): DailyRow[] {
    const gs: Array<[number, string, string, Array<Map<unknown, DailyRow> | undefined>]> = [];
    let fields = 0;
    for (const g of this.groups.values()) {
      const first = g
        .find((m) => m !== undefined)
        ?.values()
        .next().value;
      if (first === undefined) continue;
      gs.push([first[1], first[2], first[3], g]);
      fields = Math.max(fields, g.length);
    }
    gs.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0));
    const out: DailyRow[] = [];
    for (let no = 0; no < fields; no++) for (const g of gs) for (const row of g[3][no]?.values() ?? []) out.push(row);
    return out;
  }
}

/** The rows to add for `rows` (DailyCounter.add), in the table's key order. */
export function dailyCounts(
  rows: readonly IndexItemRow[],
  fields: Map<string, number>,
  overrides: Map<number, Array<{ family: string; field: string; value: unknown }>>,
): DailyRow[] {
  const c = new DailyCounter();
  c.add(rows, fields, overrides);
  return c.sorted();
}
