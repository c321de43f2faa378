/**
 * The names the archive holds: networks, kinds of item, label fields and label values — what a
 * library query may name beyond the catalogue and the label table (src/core/query-names.ts,
 * issue 24 #8). Each list is read by skipping through an index (one probe per distinct value),
 * never by scanning the rows: a few dozen probes at a million items.
 */
import type { ArchiveCtx } from './context';

/** Distinct networks and kinds of the archived items: skipping through the (platform, kind, …) index, two probes a pair (0.1 ms at 200k items). */
export function heldPlatformKinds(c: ArchiveCtx): Array<{ platform: string; kind: string }> {
  const nextPlatform = c.st('SELECT platform FROM items WHERE platform > ? ORDER BY platform LIMIT 1');
  const nextKind = c.st('SELECT kind FROM items WHERE platform = ? AND kind > ? ORDER BY kind LIMIT 1');
  const out: Array<{ platform: string; kind: string }> = [];
  let p = (nextPlatform.get('') as { platform: string } | undefined)?.platform;
  while (p !== undefined) {
    let k = (nextKind.get(p, '') as { kind: string } | undefined)?.kind;
    while (k !== undefined) {
      out.push({ platform: p, kind: k });
      k = (nextKind.get(p, k) as { kind: string } | undefined)?.kind;
    }
    p = (nextPlatform.get(p) as { platform: string } | undefined)?.platform;
  }
  return out;
}

/** Every (family, field) the archive holds labels or overrides for. */
export function heldLabelFields(c: ArchiveCtx): Array<{ family: string; field: string }> {
  return c.st('SELECT family, field FROM label_fields ORDER BY family, field').all() as Array<{ family: string; field: string }>;
}

/** Whether some item carries `value` (as text) for family.field, overrides included. */
export function holdsLabelValue(c: ArchiveCtx, family: string, field: string, value: string): boolean {
  return (
    c.st('SELECT 1 FROM item_labels WHERE ff = (SELECT ff FROM label_fields WHERE family = ? AND field = ?) AND value = ? LIMIT 1').get(family, field, value) !==
    undefined
  );
}

/** The text values of family.field the archive holds (at most `limit`), one index probe each. */
export function heldLabelValues(c: ArchiveCtx, family: string, field: string, limit = 50): string[] {
  const ff = (c.st('SELECT ff FROM label_fields WHERE family = ? AND field = ?').get(family, field) as { ff: number } | undefined)?.ff;
  if (ff === undefined) return [];
  // text sorts above numbers and below blobs (null labels are stored as x'')
  return (
    c
      .st(
        `WITH RECURSIVE vals(v) AS (
           SELECT (SELECT min(value) FROM item_labels WHERE ff = ? AND value >= '' AND value < x'')
           UNION ALL SELECT (SELECT min(value) FROM item_labels WHERE ff = ? AND value > vals.v AND value < x'') FROM vals WHERE vals.v IS NOT NULL LIMIT ?)
         SELECT v FROM vals WHERE v IS NOT NULL`,
      )
      .all(ff, ff, limit) as Array<{ v: string }>
  ).map((r) => r.v);
}
