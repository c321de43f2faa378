/**
 * Decide the retry (docs/request-core.md "Retry policy" and "Which Idempotency-Key a retry uses"):
 * pure — what the attempt's outcome, the retry budget, the waits and the loss rule say the call does
 * next, and under which Idempotency-Key.
 */

/** moves to another key after the service refused one (at most the spec's 25 keys) */
export const MAX_KEY_MOVES = 25;

export interface Facts {
  /** the outcome of a failed attempt (retry.ts `classify`) */
  outcome: 'lost' | 'unsent' | 'error' | 'refused';
  errorType: string | null;
  retryable: boolean;
  willRetry: boolean;
  /** the wait before the next attempt (Retry-After or backoff), when one will be made */
  waitMs: number | null;
  maxWaitMs: number;
  /** the service refused the API key (401 INVALID_API_KEY / API_KEY_REVOKED): whether other keys remain; null otherwise */
  keyRefusedOthers: boolean | null;
  keyMoves: number;
  /** a lost attempt that will be retried: the loss rule's key (attribution.ts keyAfterLoss) */
  lossKey: 'same' | 'fresh' | null;
  /** an unresolved lost attempt rides on the current Idempotency-Key (its replay would be free) */
  lossOnKey: boolean;
  /** another API key can start before the wait ends */
  othersUsableBefore: boolean;
}

export type Step =
  /** the key was refused and others remain: a fresh Idempotency-Key on another API key, at once */
  | { next: 'move-key' }
  /** a rate limit on this API key: it rests until the wait ends, the next attempt goes to another at once */
  | { next: 'rest-key'; freshKey: boolean; waitMs: number }
  /** wait, then retry (`pauseKey`: a RATE_LIMITED pauses the key's pacer meanwhile) */
  | { next: 'wait'; freshKey: boolean; waitMs: number; pauseKey: boolean }
  /** the wait is longer than the wait cap: stop (`rate_wait`), nothing more spent */
  | { next: 'stop'; waitMs: number; pauseKey: boolean }
  /** a retryable outcome with no retry left */
  | { next: 'give-up' }
  /** an outcome that is not retried */
  | { next: 'fail' };

/**
 * Which key the retry uses: a lost answer's by the loss rule; after an error answer (not charged) a
 * fresh one — under the strictest reading a same-key retry after any unsuccessful original pays the
 * ceiling — unless a lost answer still rides on the key (its free replay); a 409 (the original still
 * running) and an attempt that never left keep theirs.
 */
export function freshKeyAfter(f: Pick<Facts, 'outcome' | 'errorType' | 'willRetry' | 'lossKey' | 'lossOnKey'>): boolean {
  if (f.outcome === 'lost') return f.lossKey === 'fresh';
  return f.outcome === 'error' && f.errorType !== 'IDEMPOTENCY_IN_PROGRESS' && f.willRetry && !f.lossOnKey;
}

export function decideRetry(f: Facts): Step {
  if (f.keyRefusedOthers === true && f.keyMoves < MAX_KEY_MOVES) return { next: 'move-key' };
  const freshKey = freshKeyAfter(f);
  if (f.waitMs !== null) {
    if ((f.errorType === 'RATE_LIMITED' || f.errorType === 'CONCURRENCY_LIMIT') && f.othersUsableBefore)
      return { next: 'rest-key', freshKey, waitMs: f.waitMs };
    const pauseKey = f.errorType === 'RATE_LIMITED';
    if (f.waitMs > f.maxWaitMs) return { next: 'stop', waitMs: f.waitMs, pauseKey };
    return { next: 'wait', freshKey, waitMs: f.waitMs, pauseKey };
  }
  return f.retryable ? { next: 'give-up' } : { next: 'fail' };
}
