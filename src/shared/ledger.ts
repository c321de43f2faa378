/**
 * The ledger's row, one type from the archive to the screen: the archive reads it (core/archive/
 * ledger.ts), the request core writes it (core/api/call.ts), the contract's `usage.ledger` returns
 * it and the Usage view draws it (renderer components/CallsTable.tsx). Plain TypeScript.
 */

/** One row of the ledger: every HTTP attempt, successful or not. `id` is set on every row read back. */
export interface LedgerEntry {
  id?: number;
  /** the logical call this attempt belongs to (journal id) */
  callId: string;
  attempt: number;
  startedAt: number; // ms
  durationMs: number;
  platform: string;
  endpoint: string; // path after the platform, e.g. profile/posts
  /** canonical JSON of the query params, key never included */
  params: string;
  paramsHash: string;
  idempotencyKey: string | null;
  requestId: string | null;
  status: number | null; // HTTP status; null = network failure
  errorType: string | null;
  creditsUsed: number;
  creditsRemaining: number | null;
  chargeReason: string | null;
  cached: boolean;
  freeCall: boolean;
  idempotentReplay: boolean;
  /** where the call came from: 'search', 'profile', 'comments', 'explorer', 'watch:<id>', 'cli', ... */
  source: string;
  /** the walk it belongs to, if any */
  walkId: string | null;
  dryRun: boolean;
  /** the name of the API key that made the attempt (never the key); null when the key is unnamed */
  keyName?: string | null;
}

// ── `credits.reconcile`: the ledger against the balance's movement (src/core/archive/reconcile.ts) ──

export type GapKind = 'unrecorded_spending' | 'top_up_or_refund' | 'less_than_recorded';

export interface ReconcileGap {
  /** start of the attempt with the earlier reading, and of the one with the later reading (ms) */
  from: number;
  to: number;
  /** ledger row ids of the two readings */
  fromId: number;
  toId: number;
  fromRequestId: string | null;
  toRequestId: string | null;
  /** request ids of the rows after the earlier reading up to the later one (at most 20) */
  requestIds: string[];
  /** ledger rows after the earlier reading up to the later one */
  rows: number;
  /** credits the ledger records in between: the expected drop of the balance */
  expected: number;
  /** of which inferred for lost answers */
  inferred: number;
  /** how much the balance actually dropped (negative: it went up) */
  observed: number;
  /** observed - expected: more than zero when more went than the ledger records */
  difference: number;
  kind: GapKind;
  /**
   * the ledger's first step (no reading before it), read from its highest reading: `expected` is the
   * step's charges but those of the rows that read it, `difference` what went unrecorded — exact
   * without a top-up in the step, the least with one
   */
  atLeast?: true;
}

/** a ledger row that carries a balance */
export interface ReconcileReading {
  id: number;
  at: number;
  requestId: string | null;
  balance: number;
}

export interface ReconcileReport {
  /** ledger rows considered */
  rows: number;
  /** of which carry a balance */
  readings: number;
  /** credits recorded in all (inferred included) */
  recorded: number;
  inferred: number;
  firstAt: number | null;
  lastAt: number | null;
  gaps: ReconcileGap[];
  /** the last row with a balance */
  last: ReconcileReading | null;
  /** credits recorded after the last reading (rows without a balance, e.g. inferred charges) */
  recordedSinceLast: number;
  /** the balance the ledger expects now: last reading minus what was recorded after it */
  expectedBalance: number | null;
}

/** `credits.reconcile`'s answer: the report, the live balance (GET /v1/credits) and whether all agree. */
export type ReconcileAnswer = ReconcileReport & { live: number | null; agree: boolean };
