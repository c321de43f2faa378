/**
 * The errors a call ends with when it stops before (or instead of) an answer: cancelled or an
 * unexpected failure, a wait longer than the wait cap, no usable key. Shared by the caller and the
 * core's meta calls.
 */
import { isAbortError } from './clock';
import { ApiError, errorSuffix } from './errors';
import type { NoKeys } from './key-pool';

/** An ApiError as it is; an abort as `cancelled`; anything else as an unexpected network failure. */
export function cancelled(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  if (isAbortError(e)) return new ApiError({ kind: 'cancelled', message: 'Cancelled.' });
  return new ApiError({ kind: 'network', message: `Unexpected failure: ${e instanceof Error ? e.message : String(e)}.` });
}

/** "HH:MM", with the date when it is more than 20 hours away */
function untilText(until: number, now: number): string {
  const dt = new Date(until);
  const hhmm = `${String(dt.getHours()).padStart(2, '0')}:${String(dt.getMinutes()).padStart(2, '0')}`;
  return until - now > 20 * 3600_000 ? `${dt.toISOString().slice(0, 10)} ${hhmm}` : hhmm;
}

/** The service asked for a wait longer than the wait cap: stop, say until when, nothing more spent. */
export function rateWait(
  o: { where: string; until: number; now: number; maxWaitMs: number },
  type: string | null,
  requestId: string | null,
  retryAfterS: number | undefined,
): ApiError {
  const mins = Math.max(1, Math.round(o.maxWaitMs / 60_000));
  return new ApiError({
    kind: 'rate_wait',
    type: type ?? 'RATE_LIMITED',
    ...(requestId ? { requestId } : {}),
    ...(retryAfterS !== undefined ? { retryAfter: retryAfterS } : {}),
    retryAt: o.until,
    message: `Rate limited by the service until ${untilText(o.until, o.now)} on ${o.where} (a wait longer than the ${mins}-minute wait cap); nothing more was spent${errorSuffix(type ?? undefined, requestId ?? undefined)}.`,
  });
}

/** No key in the pool (none set, or every one refused by the service). */
export function noKeys(e: NoKeys): ApiError {
  return new ApiError({
    kind: 'validation',
    type: e.refused.length ? e.refused[e.refused.length - 1][1] : 'MISSING_API_KEY',
    message: e.message,
  });
}
