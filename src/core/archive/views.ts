/**
 * SQL views for analysts who read the archive in their own tools (issue 16: DuckDB, pandas, R,
 * Datasette): the tables keep Loupe's storage form (times in ms since 1970, labels as JSON and as
 * keyed rows, annotations in their own tables); the views give the same rows in the form a data
 * tool expects. docs/archive.md "The archive in your own tools".
 *
 *  - `items_view`: one row per item; dates as ISO 8601 text in UTC (`2024-05-01T12:00:00.000Z`),
 *    engagement counts (null = not provided, never 0), tags as a JSON array, the note;
 *  - `labels_wide`: one row per item, one column per label field the spec names
 *    (`sentiment_label`, `sponsored_p`, `intent_urgency`…: family and field joined by `_`), the
 *    effective value (an analyst's override wins over the service's judgment); booleans are 1/0,
 *    null = not judged;
 *  - `labels_long`: one row per (item, label field) for every field the archive holds, the spec's
 *    or not, effective values.
 *
 * Views hold no data and cost nothing until read. A later Loupe that knows more label fields
 * creates them again (`createViews`) in a migration of its own.
 */
import { LABEL_SPECS } from '../../shared/labels';
import type { Db } from './connection';

const iso = (col: string): string =>
  `CASE WHEN ${col} IS NULL THEN NULL ELSE strftime('%Y-%m-%dT%H:%M:%fZ', ${col} / 1000.0, 'unixepoch') END`;
const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;
const text = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** `family_field` column names of labels_wide, in the spec's order (dots of nested fields → `_`). */
export function labelColumns(): Array<{ family: string; field: string; column: string }> {
  const out: Array<{ family: string; field: string; column: string }> = [];
  for (const [family, spec] of Object.entries(LABEL_SPECS))
    for (const field of Object.keys(spec.fields)) out.push({ family, field, column: `${family}_${field}`.replace(/\./g, '_') });
  return out;
}

export const VIEW_NAMES = ['items_view', 'labels_wide', 'labels_long'] as const;

function itemsView(): string {
  return `CREATE VIEW items_view AS
SELECT i.platform, i.kind, i.id,
  ${iso('i.published_at')} AS published_at,
  i.author_id, i.author_username, i.author_display_name,
  i.text, i.url, i.lang AS language,
  i.views, i.likes, i.comments, i.shares, i.saves,
  i.parent_id, i.post_kind AS format, i.relevance_p AS relevance,
  ${iso('i.first_seen_at')} AS first_seen_at, ${iso('i.last_seen_at')} AS last_seen_at, i.seen_count,
  (SELECT json_group_array(t.name) FROM (SELECT t.name FROM item_tags it JOIN tags t ON t.tag_id = it.tag_id WHERE it.item_rid = i.rid ORDER BY t.name COLLATE NOCASE) t) AS tags,
  (SELECT n.text FROM notes n WHERE n.item_rid = i.rid) AS note
FROM items i`;
}

/**
 * One column per spec field. The value is the override's when the item has one for that field
 * (even an override to null), else the service's, read from the item's labels JSON. Overrides
 * are few: they are gathered per item once (`o`), not probed per column.
 */
function labelsWide(): string {
  const cols = labelColumns().map(({ family, field, column }) => {
    const key = text(`$."${family}.${field}"`);
    const path = text(
      `$."${family}".${field
        .split('.')
        .map((p) => `"${p}"`)
        .join('.')}`,
    );
    return `  CASE WHEN o.ov IS NOT NULL AND json_type(o.ov, ${key}) IS NOT NULL THEN json_extract(o.ov, ${key}) ELSE json_extract(i.labels, ${path}) END AS ${ident(column)}`;
  });
  return `CREATE VIEW labels_wide AS
SELECT i.platform, i.kind, i.id,
${cols.join(',\n')}
FROM items i
LEFT JOIN (SELECT item_rid, json_group_object(family || '.' || field, json(value)) AS ov FROM label_overrides GROUP BY item_rid) o ON o.item_rid = i.rid`;
}

/** item_labels holds the effective leaves already (a null value is the empty blob there). */
function labelsLong(): string {
  return `CREATE VIEW labels_long AS
SELECT i.platform, i.kind, i.id, f.family, f.field,
  CASE WHEN typeof(l.value) = 'blob' THEN NULL ELSE l.value END AS value
FROM item_labels l
JOIN label_fields f ON f.ff = l.ff
JOIN items i ON i.rid = l.item_rid`;
}

/** (Re)creates the analyst views; runs inside the caller's transaction (a migration's). */
export function createViews(db: Db): void {
  for (const v of VIEW_NAMES) db.exec(`DROP VIEW IF EXISTS ${v}`);
  db.exec(itemsView());
  db.exec(labelsWide());
  db.exec(labelsLong());
}
