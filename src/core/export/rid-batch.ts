/**
 * A CSV worker's batch of rows read by rid as one aggregate row (issue 30): the records' stored
 * bytes one after another in one blob, and the other columns (with each record's byte length and
 * its index in the batch) as one JSON array. ridBytesReader (rid-rows.ts) gets the same rows as
 * one row each: better-sqlite3 then makes an array, three strings, two numbers and a Buffer per
 * row, which cost more than the lookups (exports bench, 200k rows in the export's order, batches
 * of 500, old and new alternating batch by batch in one process: 5.1–5.5 µs a row → 3.9–4.0).
 * The rows are the same (rid-batch.test.ts compares them over generated archives).
 */
import { raw, sql, Statements, type RawSql } from '../archive/sql';
import { openRidSource, ridsAscending, type BytesTuple, type RidSource } from './rid-rows';

/**
 * The batch's statement: the inner select names every column (the annotation columns keep their
 * names, `tags_json`, `note`, `ov_json`); `|| ''` gives the annotations' texts without a JSON
 * subtype json_group_array may leave on them, so json_array keeps them as strings.
 */
function columnsOf(extra: string): { outer: RawSql; inner: RawSql } {
  const annotations = extra === '' ? '' : ", tags_json || '', note || '', ov_json || ''";
  return {
    outer: raw(
      `json_group_array(json_array(k, octet_length(r), p, kd, id, f, l, ck, ms${annotations})), CAST(group_concat(r, '') AS BLOB)`,
    ),
    inner: raw(
      `j.key AS k, i.platform AS p, i.kind AS kd, i.id AS id, i.raw AS r, i.first_seen_at AS f, i.last_seen_at AS l, i.checked_at AS ck, i.missing_since AS ms${extra}`,
    ),
  };
}

/** a row's columns in the batch's JSON: [index, record bytes, platform, kind, id, first seen, last seen, checked, missing since, tags?, note?, overrides?] */
type Meta = [number, number, string, string, string, number, number, number | null, number | null, string?, (string | null)?, string?];

/**
 * ridBytesReader's rows (BytesTuple, the record a view of the batch's blob), read in one
 * statement: the rids in ascending order (neighbouring lookups share pages), each row put back in
 * its place. null when one of them is not in the archive any more. The connection opens on first use.
 */
export function ridBatchReader(source: RidSource | undefined): (rids: number[]) => BytesTuple[] | null {
  let reader: { st: Statements; cols: { outer: RawSql; inner: RawSql } } | null = null;
  return (rids) => {
    if (!reader) {
      const { db, extra } = openRidSource(source);
      reader = { st: new Statements(db), cols: columnsOf(extra) };
    }
    const { order, sorted } = ridsAscending(rids);
    const { outer, inner } = reader.cols;
    const [metaJson, blob] = reader.st.rows<[string, Buffer | null]>(
      sql`SELECT ${outer} FROM (SELECT ${inner} FROM json_each(${JSON.stringify(sorted)}) j CROSS JOIN items i ON i.rid = j.value)`,
    )[0];
    const metas = JSON.parse(metaJson) as Meta[];
    if (metas.length !== rids.length) return null;
    const bytes = blob ?? Buffer.alloc(0);
    const rows = new Array<BytesTuple>(rids.length);
    let at = 0;
    for (const m of metas) {
      const next = at + m[1];
      rows[order[m[0]]] =
        m.length > 9
          ? [m[2], m[3], m[4], bytes.subarray(at, next), m[5], m[6], m[7], m[8], m[9], m[10], m[11]]
          : [m[2], m[3], m[4], bytes.subarray(at, next), m[5], m[6], m[7], m[8]];
      at = next;
    }
    if (at !== bytes.length) throw new Error('export worker: a batch of rows did not add up to its bytes');
    return rows;
  };
}
