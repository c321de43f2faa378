import type { Migration } from './types';

/**
 * Rehydrating a dehydrated bundle (issue 29, docs/datasets.md "Rehydrate"): `rehydrations` ties a
 * bundle (its root hash and where it was read from) to the collection plan that re-collects it;
 * `rehydrated_items` lists every item key the bundle names with what became of it — `pending`,
 * `recollected` (the archive holds it from this rehydration's calls), `held` (already held inside
 * its cache window: free), `unavailable` (the service answered not found), `missing` (the call
 * answered and the item was not in it), `failed` (the call failed or was not made) — so the
 * re-collected items link back to their bundle, and the report survives a crash. Additive.
 */
const SQL = /* sql */ `
CREATE TABLE IF NOT EXISTS rehydrations (
  plan_id TEXT PRIMARY KEY,
  bundle_root TEXT NOT NULL,
  bundle_path TEXT NOT NULL,
  quote TEXT,
  created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS rehydrations_root ON rehydrations (bundle_root, created_at);
CREATE TABLE IF NOT EXISTS rehydrated_items (
  plan_id TEXT NOT NULL REFERENCES rehydrations (plan_id) ON DELETE CASCADE,
  platform TEXT NOT NULL,
  kind TEXT NOT NULL,
  id TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'recollected', 'held', 'unavailable', 'missing', 'failed')),
  reason TEXT,
  at INTEGER NOT NULL,
  PRIMARY KEY (plan_id, platform, kind, id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS rehydrated_items_item ON rehydrated_items (platform, kind, id);
`;

export const migration0024: Migration = {
  version: 24,
  name: 'rehydrations',
  up(db) {
    db.exec(SQL);
  },
};
export default migration0024;
