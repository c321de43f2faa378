import type { Migration } from './types';

/**
 * A lost answer's free-call count survives its process (docs/request-core.md "Charges the ledger
 * must not miss"): the introductory free calls the service last said were left before the entry's
 * Idempotency-Key was first sent (`free_left`), when that answer came (`free_left_at`) and the
 * ledger's highest row id then (`free_left_ledger`); the same for the earlier lost attempt
 * `loss_before_*` keeps (`loss_free_left*`). A process taking over a killed one's entry counts the
 * free answers the ledger holds since: when they are as many as were left, none was left for the
 * lost answer, whatever `free_may_cover` said when it was sent (a run killed with requests in
 * flight: the free calls went to answers that came back while it was on its way).
 * Additive: nullable columns; older rows say null (not known: judged by `free_may_cover`, as before).
 * Idempotent.
 */
const COLUMNS = ['free_left', 'free_left_at', 'free_left_ledger', 'loss_free_left', 'loss_free_left_at', 'loss_free_left_ledger'];

export const migration0026: Migration = {
  version: 26,
  name: 'journal-free-left',
  up(db) {
    // a step may run again over its own result (tests take an archive back to an older version)
    const have = new Set((db.pragma('table_info(journal)') as Array<{ name: string }>).map((c) => c.name));
    for (const c of COLUMNS) if (!have.has(c)) db.exec(`ALTER TABLE journal ADD COLUMN ${c} INTEGER`);
  },
};
export default migration0026;
