import type { Migration } from './types';

/**
 * Collection plans (issue 28; src/core/collect, docs/collect.md).
 * - collect_plans: a saved plan — its design (without the pasted text), figures when planned,
 *   the free quotes it holds per call shape, its saved set, the current run and the process
 *   running it (pid, host, start mark: a run left `running` by a process that is gone reads
 *   `interrupted` and resumes);
 * - collect_runs: one row per run (a run resumed after a cancel or a crash stays one run: its
 *   budget covers what it already spent, read from the ledger by the plan's source);
 * - collect_inputs: one row per input — the call (platform, endpoint, params, pages), its state
 *   (waiting, running, done, held, failed, skipped) and reason, the walk it is in (resumed with the
 *   same page op keys after a crash, so every page is paid once), what it cost and holds, its
 *   share of the plan's figures, and for feeds the marker (newest item held) of later runs;
 * - collect_items: which items each feed input holds (a later run stops at the first page that
 *   repeats one, whatever the catalogue says of stop_at_id).
 */
const SQL = /* sql */ `
CREATE TABLE IF NOT EXISTS collect_plans (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  do TEXT,
  design TEXT NOT NULL,
  figures TEXT NOT NULL,
  quotes TEXT NOT NULL DEFAULT '{}',
  set_id TEXT,
  budget INTEGER,
  status TEXT NOT NULL,
  run_id TEXT,
  runs INTEGER NOT NULL DEFAULT 0,
  message TEXT,
  owner_pid INTEGER,
  owner_host TEXT,
  owner_start TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS collect_plans_name ON collect_plans (name COLLATE NOCASE);

CREATE TABLE IF NOT EXISTS collect_runs (
  run_id TEXT PRIMARY KEY,
  plan_id TEXT NOT NULL REFERENCES collect_plans (id) ON DELETE CASCADE,
  started_at INTEGER NOT NULL,
  finished_at INTEGER,
  status TEXT NOT NULL,
  budget INTEGER,
  message TEXT
);
CREATE INDEX IF NOT EXISTS collect_runs_plan ON collect_runs (plan_id, started_at);

CREATE TABLE IF NOT EXISTS collect_inputs (
  plan_id TEXT NOT NULL REFERENCES collect_plans (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  line INTEGER,
  label TEXT NOT NULL,
  key TEXT NOT NULL,
  platform TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  params TEXT NOT NULL,
  pages INTEGER NOT NULL,
  feed INTEGER NOT NULL DEFAULT 0,
  rank REAL,
  state TEXT NOT NULL,
  reason TEXT,
  walk_id TEXT,
  walk_params TEXT,
  walk_kind TEXT,
  base_credits INTEGER NOT NULL DEFAULT 0,
  base_pages INTEGER NOT NULL DEFAULT 0,
  base_items INTEGER NOT NULL DEFAULT 0,
  credits INTEGER NOT NULL DEFAULT 0,
  pages_done INTEGER NOT NULL DEFAULT 0,
  items INTEGER NOT NULL DEFAULT 0,
  est_min INTEGER NOT NULL DEFAULT 0,
  est_max INTEGER NOT NULL DEFAULT 0,
  est_likely INTEGER NOT NULL DEFAULT 0,
  est_requests INTEGER NOT NULL DEFAULT 0,
  held_pages INTEGER NOT NULL DEFAULT 0,
  marker_id TEXT,
  marker_at INTEGER,
  newest_id TEXT,
  newest_at INTEGER,
  run_id TEXT,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (plan_id, seq)
);
CREATE UNIQUE INDEX IF NOT EXISTS collect_inputs_key ON collect_inputs (plan_id, key);
CREATE INDEX IF NOT EXISTS collect_inputs_state ON collect_inputs (plan_id, state, seq);

CREATE TABLE IF NOT EXISTS collect_items (
  plan_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  platform TEXT NOT NULL,
  kind TEXT NOT NULL,
  item_id TEXT NOT NULL,
  walk_id TEXT NOT NULL,
  PRIMARY KEY (plan_id, seq, platform, kind, item_id)
) WITHOUT ROWID;
`;

export const migration0014: Migration = {
  version: 14,
  name: 'collect-plans',
  up(db) {
    db.exec(SQL);
  },
};
export default migration0014;
