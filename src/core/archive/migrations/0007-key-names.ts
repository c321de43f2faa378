import type { Migration } from './types';

/**
 * The key pool (issue 15): every ledger row records which API key made the attempt — by the name
 * the user gave it (or `LOUPE_API_KEY #n`), never the key — and the idempotency journal records
 * which key sent each Idempotency-Key, so a replay after a restart goes out on the same key (the
 * only way it is free under every reading of whose Idempotency-Keys they are). Additive: two
 * nullable columns; older rows say null (one unnamed key).
 */
const SQL = /* sql */ `
ALTER TABLE calls ADD COLUMN key_name TEXT;
ALTER TABLE journal ADD COLUMN key_name TEXT;
`;

export const migration0007: Migration = {
  version: 7,
  name: 'key-names',
  up(db) {
    db.exec(SQL);
  },
};
export default migration0007;
