/**
 * The ledger against the balance (`loupe credits --reconcile`, docs/cli.md).
 *
 * Every answer carries `credits_remaining` (the balance after it) when the service knows it.
 * Walking the ledger in the order its rows were written, between two consecutive rows that carry
 * a balance ("readings"), the balance must have dropped by exactly the credits the ledger records
 * in between (the later reading's own charge included). Rows whose charge_reason starts with
 * `inferred:` are charges the request core inferred for an answer that never arrived: they count
 * as recorded. Each reading where that does not hold is a gap: the time range, the request ids,
 * the expected and the observed movement, and what it likely is (spending the ledger does not
 * know of — another tool or key on the account; a top-up or refund when the balance went up).
 *
 * Rows are taken in time order. Attempts whose times overlap were in flight together, and the
 * service may have charged them in another order than they were answered: such a group is one
 * step, read at its lowest balance (the balance after all of them, when nothing was added in
 * between). A gap followed at once by its exact opposite (a charge that landed just after a
 * reading rather than before it) is not listed either. A ledger that is never idle (always
 * something in flight) therefore has few, wide steps; the totals stay exact from the first step's
 * lowest reading on. The first step has no reading before it: there the drop from its highest
 * reading to its lowest is checked against every other charge of the step, and what exceeds them
 * is listed as the least that went unrecorded (`atLeast`): charges of the step before its highest
 * reading cannot be told from the ledger.
 */
import type { Db } from './db';
import { part, RawSql, sql, Statements } from './sql';

/** no bound on the time the ledger is read over */
const ALL = new RawSql('');

/** The report's types are the contract's (`credits.reconcile` answers them): src/shared/ledger.ts. */
import type { GapKind, ReconcileGap, ReconcileReport } from '../../shared/ledger';
export type { GapKind, ReconcileGap, ReconcileReading as Reading, ReconcileReport } from '../../shared/ledger';

interface Row {
  id: number;
  started_at: number;
  duration_ms: number;
  request_id: string | null;
  credits_used: number;
  credits_remaining: number | null;
  charge_reason: string | null;
}

const MAX_IDS = 20;

function kindOf(observed: number, difference: number): GapKind {
  if (observed < 0) return 'top_up_or_refund';
  return difference > 0 ? 'unrecorded_spending' : 'less_than_recorded';
}

interface Cluster {
  rows: number;
  expected: number;
  inferred: number;
  ids: string[];
  maxEnd: number;
  /** the lowest balance read in it, and the row that read it */
  low: Row | null;
  /** the highest, and the credits of every row that read it (charged before it, all of them) */
  high: Row | null;
  highUsed: number;
}

interface Step {
  rows: number;
  expected: number;
  inferred: number;
  ids: string[];
}

/** the gap between two readings where the balance dropped `observed` and the ledger says `expected` */
function gapBetween(from: Row, to: Row, step: Step, observed: number, expected: number, atLeast?: true): ReconcileGap {
  const difference = observed - expected;
  return {
    from: from.started_at,
    to: to.started_at,
    fromId: from.id,
    toId: to.id,
    fromRequestId: from.request_id,
    toRequestId: to.request_id,
    requestIds: step.ids,
    rows: step.rows,
    expected,
    inferred: step.inferred,
    observed,
    difference,
    kind: kindOf(observed, difference),
    ...(atLeast ? { atLeast } : {}),
  };
}

/**
 * The ledger's first step has no reading before it: its highest reading is the earliest balance the
 * ledger knows. Every row that read it was charged before it (the balance only falls, top-ups
 * apart), and a row charged before it reads no less: so the step's other rows are what can have
 * gone after it, and a larger drop to the lowest reading is spending the ledger misses — exact
 * without a top-up in the step, at least the excess with one (a ledger never idle — a run killed and
 * resumed with its clock behind — is one step).
 */
function firstStepGap(c: Cluster): ReconcileGap | null {
  const { high, low } = c;
  if (high === null || low === null || high.credits_remaining === null || low.credits_remaining === null) return null;
  const observed = high.credits_remaining - low.credits_remaining;
  const expected = c.expected - c.highUsed;
  if (observed <= expected) return null;
  const ids = c.ids.filter((id) => id !== high.request_id);
  return gapBetween(high, low, { ...c, rows: c.rows - 1, ids }, observed, expected, true);
}

/** a row's balance reading: the step's lowest and highest so far */
function read(c: Cluster, r: Row, used: number): void {
  const b = r.credits_remaining;
  if (typeof b !== 'number') return;
  if (c.low === null || b < (c.low.credits_remaining as number)) c.low = r;
  if (c.high !== null && b < (c.high.credits_remaining as number)) return;
  if (c.high === null || b > (c.high.credits_remaining as number)) [c.high, c.highUsed] = [r, 0];
  c.highUsed += used;
}

/** Walks the ledger (optionally rows started in [since, until)) against the balance readings. */
export function reconcileLedger(db: Db, opts: { since?: number; until?: number } = {}): ReconcileReport {
  const since = opts.since !== undefined ? part(sql`AND started_at >= ${opts.since}`) : ALL;
  const until = opts.until !== undefined ? part(sql`AND started_at < ${opts.until}`) : ALL;
  const rows = new Statements(db).iterate<Row>(
    sql`SELECT id, started_at, duration_ms, request_id, credits_used, credits_remaining, charge_reason FROM calls
        WHERE 1 ${since} ${until} ORDER BY id`,
  );
  const report: ReconcileReport = {
    rows: 0,
    readings: 0,
    recorded: 0,
    inferred: 0,
    firstAt: null,
    lastAt: null,
    gaps: [],
    last: null,
    recordedSinceLast: 0,
    expectedBalance: null,
  };
  let prev: Row | null = null; // the row of the last balance taken
  let pending = { rows: 0, expected: 0, inferred: 0, ids: [] as string[] };
  const raw: ReconcileGap[] = [];
  const close = (c: Cluster): void => {
    pending.rows += c.rows;
    pending.expected += c.expected;
    pending.inferred += c.inferred;
    for (const id of c.ids) if (pending.ids.length < MAX_IDS) pending.ids.push(id);
    const low = c.low;
    if (low === null || low.credits_remaining === null) return;
    if (prev === null) {
      const g = firstStepGap(c);
      if (g) raw.push(g);
    } else if (prev.credits_remaining !== null) {
      const observed = prev.credits_remaining - low.credits_remaining;
      if (observed !== pending.expected) raw.push(gapBetween(prev, low, pending, observed, pending.expected));
    }
    prev = low;
    pending = { rows: 0, expected: 0, inferred: 0, ids: [] };
  };
  // attempts whose times overlap were in flight together: the service may have charged them in
  // another order than they were answered, so they are one step, read at its lowest balance
  let c: Cluster | null = null;
  for (const r of rows) {
    report.rows++;
    report.firstAt ??= r.started_at;
    report.lastAt = r.started_at;
    const used = r.credits_used > 0 ? r.credits_used : 0;
    const inferred = r.charge_reason !== null && r.charge_reason.startsWith('inferred:');
    report.recorded += used;
    if (inferred) report.inferred += used;
    if (typeof r.credits_remaining === 'number') report.readings++;
    if (c === null || r.started_at >= c.maxEnd) {
      if (c) close(c);
      c = { rows: 0, expected: 0, inferred: 0, ids: [], maxEnd: -Infinity, low: null, high: null, highUsed: 0 };
    }
    c.rows++;
    c.expected += used;
    if (inferred) c.inferred += used;
    if (r.request_id && c.ids.length < MAX_IDS) c.ids.push(r.request_id);
    c.maxEnd = Math.max(c.maxEnd, r.started_at + Math.max(1, r.duration_ms));
    read(c, r, used);
  }
  if (c) close(c);
  // a charge that landed just after one reading instead of before it: a gap and its exact opposite
  // at the next reading
  for (let i = 0; i < raw.length; i++) {
    const g = raw[i];
    const h = raw[i + 1];
    if (h && h.fromId === g.toId && h.difference === -g.difference) {
      i++;
      continue;
    }
    report.gaps.push(g);
  }
  const last = prev as Row | null;
  if (last !== null && last.credits_remaining !== null) {
    report.last = { id: last.id, at: last.started_at, requestId: last.request_id, balance: last.credits_remaining };
    report.recordedSinceLast = pending.expected;
    report.expectedBalance = last.credits_remaining - pending.expected;
  }
  return report;
}
