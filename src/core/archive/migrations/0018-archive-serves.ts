import type { Migration } from './types';

/**
 * Answers Loupe served from its own archive, inside the endpoint's cache window, instead of
 * sending the call (issue 27 #5): one row each, with when, for which source and endpoint, so Usage's
 * "held in Loupe (archive)" counts every one — a watchlist run's, a walk's, a call's, in any process,
 * over any period — not only single calls of the running app. Additive: one table.
 */
const SQL = /* sql */ `
CREATE TABLE archive_serves (
  at INTEGER NOT NULL,
  source TEXT,
  platform TEXT NOT NULL,
  endpoint TEXT NOT NULL
);
CREATE INDEX archive_serves_at ON archive_serves (at);
`;

export const migration0018: Migration = {
  version: 18,
  name: 'archive-serves',
  up(db) {
    db.exec(SQL);
  },
};
export default migration0018;
