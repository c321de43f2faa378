import type { Migration } from './types';

/**
 * Watchlists (src/core/watch, docs/watchlists.md).
 * - watchlists: name, schedule (JSON {everyHours?|cron?}), budgets (credits), paused, alert
 *   filter (JSON LabelCondition[]), first-run page count, the "seen" marker for new-item badges;
 * - watches: one endpoint call each, plus its incremental state: the marker (newest non-pinned
 *   item held, advanced ONLY when a walk chain completes) and the unfinished chain to resume
 *   first (walk id, fixed params, kind, newest item that chain has seen);
 * - watch_items: which items each watch holds (ids are TEXT), the chain and run that fetched them;
 * - watch_runs / watch_run_watches: one row per run and per (run, watch): pages, credits, new
 *   items, stop reason and the completeness verdict (exact gap when incomplete).
 */
const SQL = /* sql */ `
CREATE TABLE watchlists (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  schedule TEXT,
  budget_per_run INTEGER,
  budget_per_month INTEGER,
  paused INTEGER NOT NULL DEFAULT 0,
  alert TEXT,
  first_run_pages INTEGER NOT NULL DEFAULT 1,
  seen_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE watches (
  watch_id TEXT PRIMARY KEY,
  watchlist_id TEXT NOT NULL REFERENCES watchlists (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  platform TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  params TEXT NOT NULL,
  label TEXT NOT NULL,
  marker_id TEXT,
  marker_at INTEGER,
  last_complete_at INTEGER,
  pending_walk_id TEXT,
  pending_chain_id TEXT,
  pending_params TEXT,
  pending_kind TEXT,
  pending_newest_id TEXT,
  pending_newest_at INTEGER,
  created_at INTEGER NOT NULL
);
CREATE INDEX watches_list ON watches (watchlist_id, position);

CREATE TABLE watch_items (
  watch_id TEXT NOT NULL REFERENCES watches (watch_id) ON DELETE CASCADE,
  platform TEXT NOT NULL,
  kind TEXT NOT NULL,
  item_id TEXT NOT NULL,
  chain_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  seen_at INTEGER NOT NULL,
  PRIMARY KEY (watch_id, platform, kind, item_id)
) WITHOUT ROWID;
CREATE INDEX watch_items_run ON watch_items (run_id);
CREATE INDEX watch_items_seen ON watch_items (watch_id, seen_at);

CREATE TABLE watch_runs (
  run_id TEXT PRIMARY KEY,
  watchlist_id TEXT NOT NULL REFERENCES watchlists (id) ON DELETE CASCADE,
  trigger TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  finished_at INTEGER,
  status TEXT NOT NULL,
  credits_spent INTEGER NOT NULL DEFAULT 0,
  new_items INTEGER NOT NULL DEFAULT 0,
  alerts INTEGER NOT NULL DEFAULT 0,
  message TEXT,
  estimate TEXT
);
CREATE INDEX watch_runs_list ON watch_runs (watchlist_id, started_at);

CREATE TABLE watch_run_watches (
  run_id TEXT NOT NULL REFERENCES watch_runs (run_id) ON DELETE CASCADE,
  watch_id TEXT NOT NULL,
  pages INTEGER NOT NULL,
  credits INTEGER NOT NULL,
  new_items INTEGER NOT NULL,
  items_seen INTEGER NOT NULL,
  first_run INTEGER NOT NULL DEFAULT 0,
  stop_reason TEXT,
  complete INTEGER NOT NULL,
  gap TEXT,
  walk_ids TEXT NOT NULL DEFAULT '[]',
  PRIMARY KEY (run_id, watch_id)
);
CREATE INDEX watch_run_watches_watch ON watch_run_watches (watch_id);
`;

export const migration0002: Migration = {
  version: 2,
  name: 'watchlists',
  up(db) {
    db.exec(SQL);
  },
};
export default migration0002;
