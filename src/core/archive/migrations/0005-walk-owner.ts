import type { Migration } from './types';

/**
 * The process that owns a running walk (docs/archive.md "Walks and their owner"): its pid, host
 * name and a start mark (owner.ts). A walk saved as `running` whose owner process is gone is
 * reported as `interrupted` (and resumable); before this step the columns are null, which
 * readers treat as gone (no Loupe older than this schema can write the file any more).
 * Additive: three nullable columns.
 */
const SQL = /* sql */ `
ALTER TABLE walks ADD COLUMN owner_pid INTEGER;
ALTER TABLE walks ADD COLUMN owner_host TEXT;
ALTER TABLE walks ADD COLUMN owner_start TEXT;
`;

export const migration0005: Migration = {
  version: 5,
  name: 'walk-owner',
  up(db) {
    db.exec(SQL);
  },
};
export default migration0005;
