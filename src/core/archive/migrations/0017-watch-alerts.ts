import type { Migration } from './types';

/**
 * The alert inbox (issue 27 #1): one row per alert a watchlist run raised — `labels` (new items
 * matched the list's alert conditions) or `spike` (far more new items than the list's own history
 * expects) — with what matched, in which run of which list, and whether it was read. Additive: one
 * table, gone with its list.
 */
const SQL = /* sql */ `
CREATE TABLE watch_alerts (
  alert_id TEXT PRIMARY KEY,
  watchlist_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('labels', 'spike')),
  at INTEGER NOT NULL,
  items INTEGER NOT NULL,
  expected REAL,
  summary TEXT NOT NULL,
  read_at INTEGER
);
CREATE INDEX watch_alerts_at ON watch_alerts (at DESC);
CREATE INDEX watch_alerts_list ON watch_alerts (watchlist_id);
`;

export const migration0017: Migration = {
  version: 17,
  name: 'watch-alerts',
  up(db) {
    db.exec(SQL);
  },
};
export default migration0017;
