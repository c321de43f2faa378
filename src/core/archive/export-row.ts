/**
 * An export row from its stored columns (export-rows.ts reads them on the exporting thread; the
 * CSV export's workers read them by rid, src/core/export/csv-worker.ts): the record is parsed on
 * first use only, so a row handed on as JSON text is never parsed where it is read.
 */
import type { ExportRow } from '../ports';
import type { Json } from './extract';
import { overridesObject } from './labels';

class StoredExportRow implements ExportRow {
  private parsed: Json | undefined;
  constructor(
    readonly platform: string,
    readonly kind: string,
    readonly id: string,
    readonly recordJson: string,
    readonly firstSeenAt: number,
    readonly lastSeenAt: number,
    readonly checkedAt: number | null,
    readonly missingSince: number | null,
    readonly tags: string[],
    readonly note: string | null,
    readonly overrides: Record<string, Record<string, unknown>>,
  ) {}
  get record(): Json {
    return (this.parsed ??= JSON.parse(this.recordJson) as Json);
  }
}

/** Only what an ExportRow carries (the record is `raw`): fewer strings copied out per row. */
export const EXPORT_COLS = 'i.platform, i.kind, i.id, i.raw, i.first_seen_at, i.last_seen_at, i.checked_at, i.missing_since';
/** EXPORT_COLS with the record as its stored UTF-8 bytes (the CSV workers, src/core/export/csv-spans.ts) */
export const EXPORT_BYTES_COLS =
  'i.platform, i.kind, i.id, CAST(i.raw AS BLOB), i.first_seen_at, i.last_seen_at, i.checked_at, i.missing_since';
const EXPORT_TAGS = `(SELECT json_group_array(name) FROM (SELECT t.name FROM item_tags it JOIN tags t ON t.tag_id = it.tag_id
         WHERE it.item_rid = i.rid ORDER BY t.name COLLATE NOCASE))`;
const EXPORT_NOTE = '(SELECT text FROM notes n WHERE n.item_rid = i.rid)';
const EXPORT_OV =
  '(SELECT json_group_array(json_array(o.family, o.field, json(o.value), o.at)) FROM label_overrides o WHERE o.item_rid = i.rid)';

/**
 * The annotation columns of an export row (tags, note, overrides: columns 8, 9, 10), given which
 * of their tables have rows. A table without rows gets a constant instead of a per-row subquery,
 * and when all three are empty (most bulk archives) the columns are left out: better-sqlite3 pays
 * per column and row (-30 % SQLite time for the subqueries, a further -25 % reading time).
 */
export function exportExtraSql(has: { tags: boolean; notes: boolean; overrides: boolean }): string {
  if (!has.tags && !has.notes && !has.overrides) return '';
  return `,
      ${has.tags ? EXPORT_TAGS : "'[]'"} AS tags_json,
      ${has.notes ? EXPORT_NOTE : 'NULL'} AS note,
      ${has.overrides ? EXPORT_OV : "'[]'"} AS ov_json`;
}

/** A row of EXPORT_COLS (then exportExtraSql's columns) as an array, its record as `R` (text, or bytes: rid-rows.ts BytesTuple). */
export type RowTuple<R> = [
  platform: string,
  kind: string,
  id: string,
  raw: R,
  firstSeen: number,
  lastSeen: number,
  checked: number | null,
  missing: number | null,
  tags?: string,
  note?: string | null,
  overrides?: string,
];

/** A row of EXPORT_COLS with the record as its JSON text. */
export type ExportTuple = RowTuple<string>;

export function exportRowOf(r: ExportTuple): ExportRow {
  const [platform, kind, id, raw, firstSeen, lastSeen, checked, missing, tagsJson = '[]', note = null, ovJson = '[]'] = r;
  // most items carry no tags / overrides: skip parsing the empty arrays
  const ov =
    ovJson === '[]'
      ? []
      : (JSON.parse(ovJson) as Array<[string, string, unknown, number]>).map(([family, field, value, at]) => ({
          family,
          field,
          value,
          at,
        }));
  return new StoredExportRow(
    platform,
    kind,
    id,
    raw,
    firstSeen,
    lastSeen,
    checked,
    missing,
    tagsJson === '[]' ? [] : (JSON.parse(tagsJson) as string[]),
    note,
    overridesObject(ov),
  );
}
