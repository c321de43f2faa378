import type { Migration } from './types';

/**
 * A lost answer's free-call state survives its process (simulation finding 10, docs/request-core.md
 * "Charges the ledger must not miss"): whether an introductory free call could cover the entry's
 * Idempotency-Key when it was first sent (`free_may_cover`), and the same for the earlier lost
 * attempt whose reading `loss_before_*` keeps (`loss_free_may_cover`), so a later process taking over
 * a dead one's entry judges the lost answer as things stood when it was sent, not now.
 * Additive: nullable columns (1 / 0); older rows say null (unknown: judged now, as before).
 */
const SQL = /* sql */ `
ALTER TABLE journal ADD COLUMN free_may_cover INTEGER;
ALTER TABLE journal ADD COLUMN loss_free_may_cover INTEGER;
`;

export const migration0023: Migration = {
  version: 23,
  name: 'journal-free-call',
  up(db) {
    db.exec(SQL);
  },
};
export default migration0023;
