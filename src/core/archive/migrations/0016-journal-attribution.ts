import type { Migration } from './types';

/**
 * What a lost answer's charge is judged by (issue 24 #5 and #11; docs/request-core.md "Attributing
 * a balance drop"): each journal entry records the process that sends its Idempotency-Key (pid,
 * host, start mark, as walks do: a pending entry of a dead process can be taken over by the next
 * run of the same request) and the clean balance reading taken just before that key was first sent
 * (the balance, when it was read, the ledger's last row then), so the balance after a crash still
 * tells whether the lost attempt was charged. `finished_at` is indexed: the calls that overlapped
 * two readings are looked up by it. Additive: nullable columns; older rows say null (unknown).
 */
const SQL = /* sql */ `
ALTER TABLE journal ADD COLUMN owner_pid INTEGER;
ALTER TABLE journal ADD COLUMN owner_host TEXT;
ALTER TABLE journal ADD COLUMN owner_start TEXT;
ALTER TABLE journal ADD COLUMN before_balance INTEGER;
ALTER TABLE journal ADD COLUMN before_at INTEGER;
ALTER TABLE journal ADD COLUMN before_ledger INTEGER;
CREATE INDEX journal_finished ON journal (finished_at);
`;

export const migration0016: Migration = {
  version: 16,
  name: 'journal-attribution',
  up(db) {
    db.exec(SQL);
  },
};
export default migration0016;
