/**
 * The credit balance on screen (issue 14 #6): exact where money is concerned (never "10k" after
 * spending 40), the newest reading wins, a reset (a service switch: everything null) always
 * applies, and a reading older than STALE_MS — e.g. the last one stored before a restart — is
 * re-read from the service (GET /v1/credits: free, not rate counted).
 */
import type { BalanceInfo } from '../../../shared/contract';
import { fmtExact } from './format';

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
