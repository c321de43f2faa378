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
