import type { Migration } from './types';

/**
 * A collection run's spending by the ledger, not the clock: `ledger_from` is the ledger's highest
 * row id when the run opened, so "spent this run" (and a resumed run's budget) is the plan's rows
 * after it. Times could not tell: a run opened before the service's clock was known (the built-in
 * sandbox's starts on the minute; a computer's clock may be minutes off) was stamped later than its
 * own calls, and its spending read 0. Additive: a nullable column; older runs are read by time. Idempotent.
 */
const SQL = /* sql */ `
ALTER TABLE collect_runs ADD COLUMN ledger_from INTEGER;
`;

export const migration0025: Migration = {
  version: 25,
  name: 'collect-run-ledger-mark',
  up(db) {
    // a step may run again over its own result (tests take an archive back to an older version)
    const cols = db.pragma('table_info(collect_runs)') as Array<{ name: string }>;
    if (!cols.some((c) => c.name === 'ledger_from')) db.exec(SQL);
  },
};
export default migration0025;
