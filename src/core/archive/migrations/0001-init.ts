import type { Migration } from './types';

/**
 * Initial schema. Column notes:
 * - ids are TEXT always (they exceed 2^53);
 * - times are INTEGER ms since epoch;
 * - engagement counts are nullable INTEGER: null = the network does not expose it (never 0);
 * - items.raw is the latest record as the API returned it, merged so that a later
 *   answer with nulls / without judgments never erases known values (see upsert.ts);
 * - item_labels holds the EFFECTIVE label values (analyst overrides applied) as
 *   scalar leaves, one row per (item, family, field); `value` has no type affinity
 *   so numbers and text keep their type (numbers sort before text, blobs last);
 * - no column ever stores an API key.
 */
const SQL = /* sql */ `
CREATE TABLE items (
  rid INTEGER PRIMARY KEY,
  platform TEXT NOT NULL,
  kind TEXT NOT NULL,
  id TEXT NOT NULL,
  raw TEXT NOT NULL,
  published_at INTEGER,
  author_id TEXT,
  author_username TEXT,
  author_display_name TEXT,
  text TEXT,
  url TEXT,
  lang TEXT,
  views INTEGER,
  likes INTEGER,
  comments INTEGER,
  shares INTEGER,
  saves INTEGER,
  parent_id TEXT,
  post_kind TEXT,
  labels TEXT,
  relevance_p REAL,
  unavailable TEXT,
  first_seen_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  seen_count INTEGER NOT NULL DEFAULT 1,
  UNIQUE (platform, kind, id)
);
CREATE INDEX items_published ON items (published_at);
CREATE INDEX items_likes ON items (likes);
CREATE INDEX items_views ON items (views);
CREATE INDEX items_comments ON items (comments);
CREATE INDEX items_shares ON items (shares);
CREATE INDEX items_relevance ON items (relevance_p);
CREATE INDEX items_first_seen ON items (first_seen_at);
CREATE INDEX items_author_id ON items (author_id);
CREATE INDEX items_author_name ON items (author_username COLLATE NOCASE);

-- One b-tree, keyed for the label conditions (family, field, value range) and the
-- label sort. A null label value is stored as the empty blob x'' (blobs sort after
-- numbers and text, so numeric ranges value >= ? AND value < '' and the non-null
-- range value < x'' stay index ranges). Updates find an item's rows through its
-- labels JSON + overrides, which name every key.
CREATE TABLE item_labels (
  family TEXT NOT NULL,
  field TEXT NOT NULL,
  value NOT NULL,
  item_rid INTEGER NOT NULL,
  PRIMARY KEY (family, field, value, item_rid)
) WITHOUT ROWID;
-- per-item access: probes of dense label conditions while walking a sort index
CREATE INDEX item_labels_item ON item_labels (item_rid, family, field);

CREATE VIRTUAL TABLE items_fts USING fts5 (
  text, author_username, author_display_name,
  content = 'items', content_rowid = 'rid',
  tokenize = "unicode61 remove_diacritics 2",
  columnsize = 0
);
CREATE TRIGGER items_fts_ai AFTER INSERT ON items BEGIN
  INSERT INTO items_fts (rowid, text, author_username, author_display_name)
  VALUES (new.rid, new.text, new.author_username, new.author_display_name);
END;
CREATE TRIGGER items_fts_ad AFTER DELETE ON items BEGIN
  INSERT INTO items_fts (items_fts, rowid, text, author_username, author_display_name)
  VALUES ('delete', old.rid, old.text, old.author_username, old.author_display_name);
END;
CREATE TRIGGER items_fts_au AFTER UPDATE OF text, author_username, author_display_name ON items
WHEN old.text IS NOT new.text OR old.author_username IS NOT new.author_username
  OR old.author_display_name IS NOT new.author_display_name
BEGIN
  INSERT INTO items_fts (items_fts, rowid, text, author_username, author_display_name)
  VALUES ('delete', old.rid, old.text, old.author_username, old.author_display_name);
  INSERT INTO items_fts (rowid, text, author_username, author_display_name)
  VALUES (new.rid, new.text, new.author_username, new.author_display_name);
END;

-- every HTTP attempt (LedgerEntry)
CREATE TABLE calls (
  id INTEGER PRIMARY KEY,
  call_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  started_at INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  platform TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  params TEXT NOT NULL,
  params_hash TEXT NOT NULL,
  idempotency_key TEXT,
  request_id TEXT,
  status INTEGER,
  error_type TEXT,
  credits_used INTEGER NOT NULL DEFAULT 0,
  credits_remaining INTEGER,
  charge_reason TEXT,
  cached INTEGER NOT NULL DEFAULT 0,
  free_call INTEGER NOT NULL DEFAULT 0,
  idempotent_replay INTEGER NOT NULL DEFAULT 0,
  source TEXT NOT NULL,
  walk_id TEXT,
  dry_run INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX calls_call_id ON calls (call_id);
CREATE INDEX calls_started ON calls (started_at);
CREATE INDEX calls_source ON calls (source);

-- idempotency journal: one row per logical call
CREATE TABLE journal (
  call_id TEXT PRIMARY KEY,
  op_key TEXT NOT NULL UNIQUE,
  idempotency_key TEXT NOT NULL,
  platform TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  params TEXT NOT NULL,
  params_hash TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'done', 'failed')),
  created_at INTEGER NOT NULL,
  finished_at INTEGER
);
CREATE INDEX journal_state ON journal (state, created_at);

-- stored answers (archive-first serving); envelope NULL for bulk-ingest pseudo calls
CREATE TABLE responses (
  call_id TEXT PRIMARY KEY,
  platform TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  params_hash TEXT NOT NULL,
  fetched_at INTEGER NOT NULL,
  source TEXT NOT NULL,
  walk_id TEXT,
  unavailable TEXT,
  envelope TEXT
);
CREATE INDEX responses_lookup ON responses (platform, endpoint, params_hash, fetched_at);
CREATE INDEX responses_walk ON responses (walk_id);
CREATE INDEX responses_source ON responses (source);

-- which call returned which item, at which position
CREATE TABLE provenance (
  call_id TEXT NOT NULL,
  item_rid INTEGER NOT NULL REFERENCES items (rid) ON DELETE CASCADE,
  position INTEGER,
  PRIMARY KEY (call_id, item_rid)
) WITHOUT ROWID;
CREATE INDEX provenance_item ON provenance (item_rid);

CREATE TABLE walks (
  walk_id TEXT PRIMARY KEY,
  platform TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  params TEXT NOT NULL,
  cursor_param TEXT NOT NULL,
  cursor TEXT,
  pages_done INTEGER NOT NULL,
  credits_spent INTEGER NOT NULL,
  items_seen INTEGER NOT NULL,
  status TEXT NOT NULL,
  stop_reason TEXT,
  source TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  error TEXT
);
CREATE INDEX walks_status ON walks (status, updated_at);

CREATE TABLE balance (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  credits_remaining INTEGER NOT NULL,
  at INTEGER NOT NULL
);

CREATE TABLE tags (
  tag_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE COLLATE NOCASE,
  created_at INTEGER NOT NULL
);
CREATE TABLE item_tags (
  tag_id INTEGER NOT NULL REFERENCES tags (tag_id) ON DELETE CASCADE,
  item_rid INTEGER NOT NULL REFERENCES items (rid) ON DELETE CASCADE,
  at INTEGER NOT NULL,
  PRIMARY KEY (tag_id, item_rid)
) WITHOUT ROWID;
CREATE INDEX item_tags_item ON item_tags (item_rid);

CREATE TABLE notes (
  item_rid INTEGER PRIMARY KEY REFERENCES items (rid) ON DELETE CASCADE,
  text TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);

-- analyst overrides of AI labels; the original stays in items.raw / items.labels
CREATE TABLE label_overrides (
  item_rid INTEGER NOT NULL REFERENCES items (rid) ON DELETE CASCADE,
  family TEXT NOT NULL,
  field TEXT NOT NULL,
  value TEXT NOT NULL, -- JSON
  at INTEGER NOT NULL,
  PRIMARY KEY (item_rid, family, field)
) WITHOUT ROWID;

-- saved library queries
CREATE TABLE result_sets (
  rs_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  query TEXT NOT NULL, -- JSON LibraryQuery
  tags TEXT NOT NULL DEFAULT '[]', -- JSON string[]
  note TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
`;

export const migration0001: Migration = {
  version: 1,
  name: 'init',
  up(db) {
    db.exec(SQL);
  },
};
export default migration0001;
