import type { Migration } from './types';

/**
 * Label rows keyed by a small integer per (family, field), and one b-tree instead of two.
 * docs/archive.md "Labels" and "Performance notes".
 *
 * Every scalar label leaf of every item is a row, about 13 per post, so their b-trees were
 * the largest cost of an ingest (35 % of its time at 200 000 posts). Measured on the label
 * rows of 300 000 synthetic posts: `(family, field)` text in every key, plus the per-item index
 * `item_labels_item`, cost 13-14 s; an integer `ff` in one WITHOUT ROWID tree `(ff, value,
 * item_rid)` costs 9-10 s (smaller keys: more rows per page, cheaper compares; one tree to
 * maintain instead of two).
 *
 * The per-item index served one plan: the per-row probe of a dense numeric label range
 * while a page walks its sort index. That probe now reads the item's effective value from
 * its own row (the `labels` JSON, or the analyst's override), which is what the label rows
 * are derived from (sql-query.ts `labelClause`).
 *
 * This is a data rewrite (the policy: its own step). Ids are assigned in (family, field)
 * order, so reading label_fields in id order and each field's rows through the old key
 * yields the new key order: the new tree is written sequentially, with no sort (1M posts,
 * 13M rows: 6.5 s once, measured).
 */
const SQL = /* sql */ `
CREATE TABLE label_fields (
  ff INTEGER PRIMARY KEY,
  family TEXT NOT NULL,
  field TEXT NOT NULL,
  UNIQUE (family, field)
);
INSERT INTO label_fields (family, field) SELECT DISTINCT family, field FROM item_labels ORDER BY family, field;

CREATE TABLE item_labels_v4 (
  ff INTEGER NOT NULL,
  value NOT NULL,
  item_rid INTEGER NOT NULL,
  PRIMARY KEY (ff, value, item_rid)
) WITHOUT ROWID;
INSERT INTO item_labels_v4 (ff, value, item_rid)
  SELECT f.ff, l.value, l.item_rid FROM item_labels l JOIN label_fields f ON f.family = l.family AND f.field = l.field
  ORDER BY f.ff, l.value, l.item_rid;

DROP TABLE item_labels;
ALTER TABLE item_labels_v4 RENAME TO item_labels;
`;

export const migration0004: Migration = {
  version: 4,
  name: 'label-field-ids',
  up(db) {
    db.exec(SQL);
  },
};
export default migration0004;
