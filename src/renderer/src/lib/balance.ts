/**
 * The credit balance on screen (issue 14 #6): exact where money is concerned (never "10k" after
 * spending 40), the newest reading wins, a reset (a service switch: everything null) always
 * applies, and a reading older than STALE_MS — e.g. the last one stored before a restart — is
 * re-read from the service (GET /v1/credits: free, not rate counted).
 */
import type { BalanceInfo } from '../../../shared/contract';
import { fmtExact } from './format';

/**
 * The confirm dialog's lines about the balance (issue 24 #7), read from a fresh balance: what is
 * left after the spend when it fits; when it may not, the shortfall in words — "Not enough: 50
 * left; this may need up to 1,900." — never a negative "balance after".
 */
export function spendBalanceLines(balance: number | null, creditsMin: number, creditsMax: number): string[] {
  if (balance === null)
    return ['Balance: not known (the service did not say); the service refuses a call it cannot hold, without charging it.'];
  if (creditsMax <= balance) {
    const lo = balance - creditsMax;
    const hi = balance - creditsMin;
    return [`Balance after: ${lo === hi ? fmtExact(lo) : `${fmtExact(lo)}–${fmtExact(hi)}`} of ${fmtExact(balance)} credits.`];
  }
  const need =
    creditsMin > balance && creditsMin < creditsMax
      ? `this needs at least ${fmtExact(creditsMin)} and may need up to ${fmtExact(creditsMax)}`
      : creditsMin > balance
        ? `this needs ${fmtExact(creditsMax)}`
        : `this may need up to ${fmtExact(creditsMax)}`;
  return [
    `Not enough: ${fmtExact(balance)} left; ${need}.`,
    creditsMin > balance
      ? 'The service would refuse it as out of credits (nothing is charged): top up first, or ask for less.'
      : `The service holds the most a call can cost before it runs: with ${fmtExact(balance)} left, a page it cannot hold is refused as out of credits (not charged) and the work stops there. Top up, or ask for fewer pages.`,
  ];
}

export const STALE_MS = 60_000;

/** Exact credits, or "—" when not known. */
export function balanceText(b: BalanceInfo | null | undefined): string {
  return b?.creditsRemaining != null ? fmtExact(b.creditsRemaining) : '—';
}

/** The reading to keep: the newer one; a reset (no balance, no time) replaces anything. */
export function newerBalance(cur: BalanceInfo | null, next: BalanceInfo): BalanceInfo {
  if (!cur) return next;
  if (next.at === null && next.creditsRemaining === null) return next;
  return (next.at ?? 0) >= (cur.at ?? 0) ? next : cur;
}

/** Whether to ask the service again: unknown, or read more than STALE_MS ago (by the core's clock). */
export function balanceStale(b: BalanceInfo | null | undefined, now: number): boolean {
  return !b || b.creditsRemaining === null || b.at === null || now - b.at > STALE_MS;
}
