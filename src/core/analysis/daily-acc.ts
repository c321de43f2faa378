/**
 * The daily summary (`an_daily`) of a build from scratch, kept in memory across its slices
 * (issue 30, docs/analysis.md "A build from scratch"). Each slice's items are spread over the
 * archive's days, so writing each slice's counts (~5 rows an item) touched pages all over the
 * table, each slice again: at 50k posts ~3.4 s of the build's ~14 s. Held here, a row the slices
 * share is counted once and every row written once, in key order, when the items are all in
 * (or when MAX_ROWS are held).
 *
 * The summary's watermark (`an_state` `watermark`) stays where it was until then; the terms' own
 * (`terms_upto`) goes on. The change trigger logs an item up to either (analysis-schema.ts), and
 * a change to a day makes the counts held here be written first (their items as they were read),
 * then the day recounted from the items: exact either way. A process that stops loses only what
 * is held here: the next build reads those items again for their daily counts (their terms are in).
 */
import type { AnalysisTables, IndexItemRow } from '../archive';
import { DailyCounter, dailyCounts } from './daily-counts';

/** the rows held before they are written (~110 bytes each) */
export const DAILY_MAX_ROWS = 400_000;

/** The label overrides of `rows`, by rid (a day's items come in no rid order: those of every one of them). */
function overridesOf(
  t: AnalysisTables,
  rows: readonly IndexItemRow[],
): Map<number, Array<{ family: string; field: string; value: unknown }>> {
  let lo = Infinity;
  let hi = -Infinity;
  for (const r of rows) {
    if (r[0] < lo) lo = r[0];
    if (r[0] > hi) hi = r[0];
  }
  const ov = new Map<number, Array<{ family: string; field: string; value: unknown }>>();
  if (rows.length === 0) return ov;
  for (const o of t.overridesBetween(lo, hi)) {
    let list = ov.get(o.rid);
    if (!list) ov.set(o.rid, (list = []));
    list.push({ family: o.family, field: o.field, value: JSON.parse(o.value) as unknown });
  }
  return ov;
}

/** Adds the daily summary's counts of `rows` (with their label overrides) to the table. Call inside a transaction. */
export function writeDaily(t: AnalysisTables, rows: readonly IndexItemRow[], fields: Map<string, number>): void {
  if (rows.length === 0) return;
  const up = t.dailyWriter();
  for (const r of dailyCounts(rows, fields, overridesOf(t, rows))) up(...r);
}

/** The daily counts of the items after `from` (the watermark when it began) up to `upto`, held in memory. */
export class DailyAcc {
  private readonly counter = new DailyCounter();

  constructor(
    readonly from: number,
    public upto: number,
    private readonly maxRows = DAILY_MAX_ROWS,
  ) {}

  /** Counts `rows` (the items after `upto` up to `to`, read in the transaction under way). */
  add(t: AnalysisTables, rows: readonly IndexItemRow[], fields: Map<string, number>, to: number): void {
    this.counter.add(rows, fields, overridesOf(t, rows));
    this.upto = to;
  }

  /** Whether it holds as many rows as it may. */
  get full(): boolean {
    return this.counter.size >= this.maxRows;
  }

  /**
   * Writes the counts and moves the watermark to the items they cover; false, writing nothing,
   * when another connection moved the watermark meanwhile (it counted those items itself). Call
   * inside a transaction.
   */
  write(t: AnalysisTables): boolean {
    if (t.state('watermark') !== this.from) return false;
    const up = t.dailyWriter();
    for (const r of this.counter.sorted()) up(...r);
    t.setState('watermark', this.upto);
    return true;
  }
}
