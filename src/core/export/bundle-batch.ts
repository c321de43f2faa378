/**
 * A dataset bundle's batch of rows with their facts (issue 29; docs/datasets.md "How a bundle is
 * written") read by rid as one aggregate row, as the Parquet and CSV export workers read theirs
 * (rid-batch.ts): the records' stored bytes one after another in one blob, and every other column
 * — with each row's current counts and its past readings — as one JSON array; the rows' calls as
 * two JSON arrays of a second such statement. archive/bundle-row-facts.ts bundleRowsOf reads the
 * same batch as a row each (and a row per call and per reading): better-sqlite3 then makes an
 * array and a value per column of each, which cost more than the lookups. The rows and facts are
 * the same (bundle-batch.test.ts compares them over generated archives).
 */
import { PUBLISHED_MONTH, type RowFacts } from '../archive/bundle-row-facts';
import { raw, sql, type RawSql, type SqlRead } from '../archive/sql';
import { ridsAscending, type BytesTuple } from './rid-rows';

/**
 * The batch's statement (extra: RidSource.extra, the annotation columns, named `tags_json`,
 * `note`, `ov_json`): `json()` makes the readings an array of the row's array (a subquery's JSON
 * subtype is not kept through the inner select), `|| ''` keeps the annotations' texts strings. A
 * row's past readings only when its counts changed (counts_at set), as bundleRowsOf reads them.
 * The calls are a second statement (bundleBatchOf): as a sub-select per row they cost ~3 µs a row
 * where the join of the batch costs ~1.3 (the exports bench's 200k archive, 40,000 rows).
 */
export function bundleBatchColumns(extra: string): { outer: RawSql; inner: RawSql } {
  const annotations = extra === '' ? '' : ", tags_json || '', note || '', ov_json || ''";
  return {
    outer: raw(
      `json_group_array(json_array(k, octet_length(r), p, kd, id, f, l, a, v, li, c, sh, sa, json(past), ck, ms, mo${annotations})), CAST(group_concat(r, '') AS BLOB)`,
    ),
    inner: raw(`j.key AS k, i.platform AS p, i.kind AS kd, i.id AS id, i.raw AS r, i.first_seen_at AS f, i.last_seen_at AS l,
      COALESCE(i.counts_at, i.first_seen_at) AS a, i.views AS v, i.likes AS li, i.comments AS c, i.shares AS sh, i.saves AS sa,
      CASE WHEN i.counts_at IS NOT NULL THEN (SELECT json_group_array(json_array(ir.read_at, ir.views, ir.likes, ir.comments, ir.shares, ir.saves) ORDER BY ir.read_at)
        FROM item_readings ir WHERE ir.item_rid = i.rid) END AS past, i.checked_at AS ck, i.missing_since AS ms, ${PUBLISHED_MONTH.text} AS mo${extra}`),
  };
}

type N = number | null;
/** a past reading: read at, the five counts */
type Reading = [number, N, N, N, N, N];
/** a row of the batch's JSON: index, record bytes, platform, kind, id, first seen, last seen, counts' time, the five counts, past readings, checked, missing since, publication month, (tags, note, overrides) */
type Meta = [
  number,
  number,
  string,
  string,
  string,
  number,
  number,
  number,
  N,
  N,
  N,
  N,
  N,
  Reading[] | null,
  N,
  N,
  string | null,
  string?,
  (string | null)?,
  string?,
];
const num = (v: N): number => (v === null ? NaN : v);

/**
 * bundleRowsOf's rows (BytesTuple, each record a view of the batch's blob) and facts, in the
 * batch's order, read in two statements (the rows, then the calls: each as one aggregate row);
 * null when a rid is not in the archive (deleted since the export's snapshot: the caller renders
 * that group from its snapshot).
 */
export function bundleBatchOf(
  st: Pick<SqlRead, 'rows'>,
  cols: { outer: RawSql; inner: RawSql },
  rids: readonly number[],
): { rows: BytesTuple[]; facts: RowFacts } | null {
  // ascending rids (neighbouring lookups share pages); j.key maps a row back to its place
  const { order, sorted } = ridsAscending(rids);
  const json = JSON.stringify(sorted);
  const [metaJson, blob] = st.rows<[string, Buffer | null]>(
    sql`SELECT ${cols.outer} FROM (SELECT ${cols.inner} FROM json_each(${json}) j CROSS JOIN items i ON i.rid = j.value)`,
  )[0];
  const metas = JSON.parse(metaJson) as Meta[];
  if (metas.length !== rids.length) return null;
  const bytes = blob ?? Buffer.alloc(0);
  const rows = new Array<BytesTuple>(rids.length);
  const byRow = new Array<Meta>(rids.length);
  let at = 0;
  for (const m of metas) {
    const next = at + m[1];
    const k = order[m[0]];
    byRow[k] = m;
    rows[k] =
      m.length > 17
        ? [m[2], m[3], m[4], bytes.subarray(at, next), m[5], m[6], m[14], m[15], m[17], m[18], m[19]]
        : [m[2], m[3], m[4], bytes.subarray(at, next), m[5], m[6], m[14], m[15]];
    at = next;
  }
  if (at !== bytes.length) throw new Error('export worker: a batch of rows did not add up to its bytes');
  // each call of the batch's rows: the row's index in the sorted rids, and the call
  const [keysJson, callsJson] = st.rows<[string, string]>(
    sql`SELECT json_group_array(j.key), json_group_array(p.call_id) FROM json_each(${json}) j CROSS JOIN provenance p ON p.item_rid = j.value`,
  )[0];
  const keys = JSON.parse(keysJson) as number[];
  const callIds = JSON.parse(callsJson) as string[];
  const calls = new Array<string[]>(rids.length);
  for (let k = 0; k < rids.length; k++) calls[k] = [];
  for (let c = 0; c < keys.length; c++) calls[order[keys[c]]].push(callIds[c]);
  const readings: number[] = [];
  const ends = new Array<number>(rids.length);
  const months = new Array<string | null>(rids.length);
  for (let k = 0; k < rids.length; k++) {
    const m = byRow[k];
    const past = m[13];
    if (past) for (const p of past) readings.push(p[0], num(p[1]), num(p[2]), num(p[3]), num(p[4]), num(p[5]));
    readings.push(m[7], num(m[8]), num(m[9]), num(m[10]), num(m[11]), num(m[12]));
    ends[k] = readings.length;
    months[k] = m[16];
    calls[k].sort();
  }
  return { rows, facts: { calls, readings, ends, months } };
}

/**
 * The long-format metric history (companions.ts HISTORY_COLUMNS) of rows by rid, given in
 * ascending order: each row's past readings (only when its counts changed, oldest first), then its
 * current counts — the facts bundleBatchOf reads with the rows, the same values (its statement's
 * columns), so the same rows as bundle-facts.ts builds from them. null when a rid is not in the
 * archive (deleted since the export's snapshot). A bundle's export worker writes the history
 * files from these while the other workers finish their groups (bundle-tables.ts).
 */
export function historyBatchOf(st: Pick<SqlRead, 'rows'>, ascending: readonly number[]): unknown[][] | null {
  const [json] = st.rows<[string]>(
    sql`SELECT json_group_array(json_array(k, p, kd, id, a, v, li, c, sh, sa, json(past))) FROM (SELECT j.key AS k, i.platform AS p,
      i.kind AS kd, i.id AS id, COALESCE(i.counts_at, i.first_seen_at) AS a, i.views AS v, i.likes AS li, i.comments AS c,
      i.shares AS sh, i.saves AS sa, CASE WHEN i.counts_at IS NOT NULL THEN (SELECT json_group_array(json_array(ir.read_at, ir.views,
      ir.likes, ir.comments, ir.shares, ir.saves) ORDER BY ir.read_at) FROM item_readings ir WHERE ir.item_rid = i.rid) END AS past
      FROM json_each(${JSON.stringify(ascending)}) j CROSS JOIN items i ON i.rid = j.value)`,
  )[0];
  type H = [number, string, string, string, number, N, N, N, N, N, Reading[] | null];
  const metas = JSON.parse(json) as H[];
  if (metas.length !== ascending.length) return null;
  const byRow = new Array<H>(metas.length);
  for (const m of metas) byRow[m[0]] = m;
  const out: unknown[][] = [];
  for (const m of byRow) {
    if (m[10]) for (const r of m[10]) out.push([m[1], m[2], m[3], r[0], r[1], r[2], r[3], r[4], r[5]]);
    out.push([m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9]]);
  }
  return out;
}
