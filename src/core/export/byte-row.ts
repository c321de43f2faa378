/**
 * What the byte paths (csv-spans.ts, xlsx-spans.ts, parquet-spans.ts) share about a row read as bytes
 * (rid-rows.ts BytesTuple): the columns that are the row's own fields rather than its record's
 * (negative operations beside record-scan.ts's slots), and whether a row's cells may come from its
 * record's bytes.
 */
import { scanRecord, SLOTS } from './record-scan';
import type { BytesTuple } from './rid-rows';

export const PLATFORM = -1;
export const KIND = -2;
export const ID = -3;
export const TAGS = -4;
export const NOTE = -5;
export const OVERRIDES = -6;
export const FIRST_SEEN = -7;
export const LAST_SEEN = -8;
export const EXTRA = -9;
export const CHECKED = -10;
export const MISSING = -11;
export const OTHER_COLUMNS: Readonly<Record<string, number>> = {
  platform: PLATFORM,
  kind: KIND,
  id: ID,
  tags: TAGS,
  note: NOTE,
  overrides: OVERRIDES,
  first_seen_at: FIRST_SEEN,
  last_seen_at: LAST_SEEN,
  extra: EXTRA,
  checked_at: CHECKED,
  missing_since: MISSING,
};

/**
 * Each column's operation for a byte renderer (csv-spans.ts, xlsx-spans.ts), in the order given:
 * its record-scan.ts slot (0 or more) when its value is in the record, else its own-field
 * operation above (negative); a column with neither is refused.
 */
export function columnOps(names: readonly string[]): Int32Array {
  return Int32Array.from(names, (name) => {
    const slot = SLOTS.get(name);
    if (slot !== undefined) return slot;
    const other = OTHER_COLUMNS[name];
    if (other === undefined) throw new Error(`export: no byte rendering for column '${name}'`);
    return other;
  });
}

/**
 * Whether row `t` is written from its record's bytes: it has no label overrides (its label cells
 * are the analyst's values) and the scan vouches for the record. `scanned`: the caller scanned the
 * record just before (a dataset bundle's Parquet columns and CSV read one scan, bundle-render.ts):
 * true, a row without overrides the scan vouched for; false, not.
 */
export function fromBytes(t: BytesTuple, scanned: boolean | undefined): boolean {
  return scanned === undefined ? (t[10] === undefined || t[10] === '[]') && scanRecord(t[3]) : scanned;
}
