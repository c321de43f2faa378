/**
 * Who did what (issue 29): an item's tags, note and label overrides with the name in Settings when
 * each was made and its time (migration 0013 added the `author` columns; older annotations have none).
 */
import type { AnnotationEntry } from '../../shared/query';
import type { ArchiveCtx } from './context';
import { sql } from './sql';

export function annotationLog(c: ArchiveCtx, rid: number): AnnotationEntry[] {
  const rows = c.sql.all<{ kind: AnnotationEntry['kind']; name: string; value: string | null; author: string | null; at: number }>(
    sql`SELECT 'tag' AS kind, t.name AS name, NULL AS value, it.author, it.at FROM item_tags it JOIN tags t ON t.tag_id = it.tag_id WHERE it.item_rid = ${rid}
        UNION ALL SELECT 'note', 'note', json_quote(n.text), n.author, n.updated_at FROM notes n WHERE n.item_rid = ${rid}
        UNION ALL SELECT 'override', o.family || '.' || o.field, o.value, o.author, o.at FROM label_overrides o WHERE o.item_rid = ${rid}
        ORDER BY 5, 1, 2`,
  );
  return rows.map((r) => ({
    kind: r.kind,
    name: r.name,
    value: r.value === null ? null : (JSON.parse(r.value) as unknown),
    author: r.author,
    at: r.at,
  }));
}
