import type { Migration } from './types';

/**
 * A walk that started over after the service rejected its saved cursor (docs/request-core.md
 * "Rejected cursor", issue 24 #4): `restarts` counts the restarts (the pages read after one are
 * their own logical operations, `walk:<id>:r<n>:page:<p>`, so a replay never hands back an
 * answer from before the restart), and `rewalk_at` is the position of the saved cursor while
 * the walk re-reads pages it already held (pages rewalk_at+1 .. pages_done), null otherwise —
 * so the count of pages done stays honest across processes. Additive: two columns.
 */
const SQL = /* sql */ `
ALTER TABLE walks ADD COLUMN restarts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE walks ADD COLUMN rewalk_at INTEGER;
`;

export const migration0015: Migration = {
  version: 15,
  name: 'walk-restarts',
  up(db) {
    db.exec(SQL);
  },
};
export default migration0015;
