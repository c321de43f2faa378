import type { Migration } from './types';
import { backfillReadings } from '../readings-backfill';

/**
 * Datasets (issue 29): metric history, availability, authorship, imported provenance.
 *
 *  - **Metric history.** `items.counts_at` is when the item's current five counts were first read
 *    (NULL: at `first_seen_at`); `item_readings` keeps every earlier reading whose counts differ
 *    from the next one, `(item_rid, read_at)` → views, likes, comments, shares, saves. The latest
 *    reading is the item's own row, so an item read once costs no extra row at ingest
 *    (../readings.ts). `metric_history` is the whole series as one view, for analysts' tools.
 *  - **Availability.** `items.checked_at` (last re-check through a single-item endpoint) and
 *    `items.missing_since` (when a re-check was first answered not found; NULL = available or
 *    never checked). Items are never deleted for being missing.
 *  - **Who did what.** `author` on `item_tags`, `notes`, `label_overrides`, `result_sets` (the name
 *    in Settings when the annotation was made; NULL for annotations made before this version).
 *  - **Imported provenance.** `imported_calls`: the calls that delivered an imported bundle's
 *    items (endpoint, params, time, request id, credits, cached, replayed, the answer's SHA-256),
 *    kept apart from the ledger: nothing was paid in this archive for them.
 *
 * Existing items read more than once (`seen_count > 1`) get their history from the stored answers
 * that returned them (provenance → responses), read once each; the others need nothing.
 */
const SQL = /* sql */ `
ALTER TABLE items ADD COLUMN counts_at INTEGER;
ALTER TABLE items ADD COLUMN checked_at INTEGER;
ALTER TABLE items ADD COLUMN missing_since INTEGER;
CREATE TABLE item_readings (
  item_rid INTEGER NOT NULL REFERENCES items (rid) ON DELETE CASCADE,
  read_at INTEGER NOT NULL,
  views INTEGER,
  likes INTEGER,
  comments INTEGER,
  shares INTEGER,
  saves INTEGER,
  PRIMARY KEY (item_rid, read_at)
) WITHOUT ROWID;
CREATE INDEX items_missing ON items (missing_since) WHERE missing_since IS NOT NULL;
ALTER TABLE item_tags ADD COLUMN author TEXT;
ALTER TABLE notes ADD COLUMN author TEXT;
ALTER TABLE label_overrides ADD COLUMN author TEXT;
ALTER TABLE result_sets ADD COLUMN author TEXT;
CREATE TABLE imported_calls (
  call_id TEXT PRIMARY KEY,
  bundle TEXT NOT NULL,
  platform TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  params TEXT NOT NULL,
  fetched_at INTEGER,
  request_id TEXT,
  credits_used INTEGER,
  cached INTEGER,
  replayed INTEGER,
  answer_sha256 TEXT,
  imported_at INTEGER NOT NULL
);
CREATE VIEW metric_history AS
  SELECT i.platform, i.kind, i.id, r.read_at, r.views, r.likes, r.comments, r.shares, r.saves
    FROM item_readings r JOIN items i ON i.rid = r.item_rid
  UNION ALL
  SELECT i.platform, i.kind, i.id, COALESCE(i.counts_at, i.first_seen_at) AS read_at, i.views, i.likes, i.comments, i.shares, i.saves
    FROM items i;
`;

export const migration0013: Migration = {
  version: 13,
  name: 'datasets',
  up(db, progress) {
    db.exec(SQL);
    backfillReadings(db, progress);
  },
};
export default migration0013;
