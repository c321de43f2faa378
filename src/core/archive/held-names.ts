/**
 * The names the archive holds: networks, kinds of item, label fields and label values — what a
 * library query may name beyond the catalogue and the label table (src/core/query-names.ts,
 * issue 24 #8). Each list is read by skipping through an index (one probe per distinct value),
 * never by scanning the rows: a few dozen probes at a million items.
 */
import type { ReadCtx } from './context';
import { sql } from './sql';

/** Distinct networks and kinds of the archived items: skipping through the (platform, kind, …) index, two probes a pair (0.1 ms at 200k items). */
export function heldPlatformKinds(c: ReadCtx): Array<{ platform: string; kind: string }> {
  const nextPlatform = (after: string) =>
    c.sql.value<string>(sql`SELECT platform FROM items WHERE platform > ${after} ORDER BY platform LIMIT 1`);
  const nextKind = (p: string, after: string) =>
    c.sql.value<string>(sql`SELECT kind FROM items WHERE platform = ${p} AND kind > ${after} ORDER BY kind LIMIT 1`);
  const out: Array<{ platform: string; kind: string }> = [];
  let p = nextPlatform('');
  while (p !== undefined) {
    let k = nextKind(p, '');
    while (k !== undefined) {
      out.push({ platform: p, kind: k });
      k = nextKind(p, k);
    }
    p = nextPlatform(p);
  }
  return out;
}

/** Every (family, field) the archive holds labels or overrides for. */
export function heldLabelFields(c: ReadCtx): Array<{ family: string; field: string }> {
  return c.sql.all<{ family: string; field: string }>(sql`SELECT family, field FROM label_fields ORDER BY family, field`);
}

/** Whether some item carries `value` (as text) for family.field, overrides included. */
export function holdsLabelValue(c: ReadCtx, family: string, field: string, value: string): boolean {
  return (
    c.sql.get(
      sql`SELECT 1 FROM item_labels WHERE ff = (SELECT ff FROM label_fields WHERE family = ${family} AND field = ${field}) AND value = ${value} LIMIT 1`,
    ) !== undefined
  );
}

/** The text values of family.field the archive holds (at most `limit`), one index probe each. */
export function heldLabelValues(c: ReadCtx, family: string, field: string, limit = 50): string[] {
  const ff = c.sql.value<number>(sql`SELECT ff FROM label_fields WHERE family = ${family} AND field = ${field}`);
  if (ff === undefined) return [];
  // text sorts above numbers and below blobs (null labels are stored as x'')
  return c.sql.values<string>(
    sql`WITH RECURSIVE vals(v) AS (
           SELECT (SELECT min(value) FROM item_labels WHERE ff = ${ff} AND value >= '' AND value < x'')
           UNION ALL SELECT (SELECT min(value) FROM item_labels WHERE ff = ${ff} AND value > vals.v AND value < x'') FROM vals WHERE vals.v IS NOT NULL LIMIT ${limit})
         SELECT v FROM vals WHERE v IS NOT NULL`,
  );
}
