/**
 * Charges the ledger must not miss (docs/request-core.md): when an answer that never arrived turns
 * out to have been charged (a replay, a free owner read, or the balance says so), the charge goes in
 * the ledger as its own row, `inferred:balance` or `inferred:price`, dated to the lost attempt.
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
  how: 'balance' | 'price',
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
        freeCall: false,
        idempotentReplay: false,
      }),
    charged,
  );
  book.recorded += credits;
  d.log(
    `${entry.platform}/${entry.endpoint}: the service charged an answer that never arrived; recorded ${credits} credits (inferred from the ${how === 'balance' ? 'balance' : 'catalogue price'})`,
  );
}
