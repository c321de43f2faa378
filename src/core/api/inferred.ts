/**
 * Charges the ledger must not miss (docs/request-core.md): when an answer that never arrived turns
 * out to have been charged (a replay, a free owner read, or the balance says so), the charge goes in
 * the ledger as its own row, `inferred:balance` or `inferred:price`, dated to the lost attempt. One
 * that finished while an introductory free call may have covered it goes in as `inferred:free` (0
 * credits, `free_call`): the free call it is taken to have used is counted (loss.ts `chargeOfLoss`).
 */
import type { CoreStore, LedgerEntry } from '../ports';
import type { BalanceBook, Lost } from './balance-book';

/** what an inferred row takes from the call it belongs to */
export type InferredEntry = Pick<
  LedgerEntry,
  'callId' | 'platform' | 'endpoint' | 'params' | 'paramsHash' | 'source' | 'walkId' | 'dryRun'
>;

export function recordInferredCharge(
  d: { store: CoreStore; log: (line: string) => void; write: <T>(f: () => T, charged?: number) => T },
  book: BalanceBook,
  lost: Lost,
  entry: InferredEntry,
  credits: number,
  how: 'balance' | 'price' | 'free',
  charged: number,
): void {
  d.write(
    () =>
      d.store.recordAttempt({
        ...entry,
        attempt: lost.attempt,
        startedAt: lost.startedAt,
        durationMs: 0,
        idempotencyKey: lost.idempotencyKey,
        requestId: null,
        status: null,
        errorType: null,
        creditsUsed: credits,
        creditsRemaining: null,
        chargeReason: `inferred:${how}`,
        cached: false,
        freeCall: how === 'free',
        idempotentReplay: false,
      }),
    charged,
  );
  book.recorded += credits;
  if (how === 'free') {
    d.log(
      `${entry.platform}/${entry.endpoint}: an answer that never arrived was finished by the service, and an introductory free call may have covered it; recorded as free (0 credits)`,
    );
    return;
  }
  d.log(
    `${entry.platform}/${entry.endpoint}: the service charged an answer that never arrived; recorded ${credits} credits (inferred from the ${how === 'balance' ? 'balance' : 'catalogue price'})`,
  );
}
