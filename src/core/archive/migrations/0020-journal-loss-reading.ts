import type { Migration } from './types';

/**
 * A lost answer's reading survives the call moving on (simulation finding 8, docs/request-core.md
 * "Attributing a balance drop"): when a call whose answer was lost (maybe charged) moves on to a
 * fresh Idempotency-Key, its journal entry keeps the clean reading taken before the lost attempt's
 * key was first sent (the entry's `before_*` is then the fresh key's, taken after the loss), so a
 * later process taking over a dead one's entry can still measure what the lost attempt cost.
 * Additive: nullable columns; older rows say null (unknown).
 */
const SQL = /* sql */ `
ALTER TABLE journal ADD COLUMN loss_before_balance INTEGER;
ALTER TABLE journal ADD COLUMN loss_before_at INTEGER;
ALTER TABLE journal ADD COLUMN loss_before_ledger INTEGER;
`;

export const migration0020: Migration = {
  version: 20,
  name: 'journal-loss-reading',
  up(db) {
    db.exec(SQL);
  },
};
export default migration0020;
