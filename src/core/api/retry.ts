/**
 * What one attempt's outcome means for money, and how long to wait before the next one
 * (docs/request-core.md "Retry policy"; the key after a lost answer: call/attribution.ts).
 */
import type { Envelope, ErrorEnvelope } from '../../shared/api-types';
import { RETRYABLE_ERROR_TYPES } from '../../shared/api-types';
import type { HttpOutcome } from './http';

export type Outcome =
  /** a success envelope */
  | { kind: 'success'; env: Envelope }
  /** the service answered with an error envelope: definitely not charged (spec Errors) */
  | { kind: 'error'; env: ErrorEnvelope; type: string; retryable: boolean }
  /** a 4xx without an envelope (a proxy, `text/plain`): "fix the request", never retried (429 aside) */
  | { kind: 'refused' }
  /** the request certainly never reached the service: nothing charged, retry freely */
  | { kind: 'unsent' }
  /** the answer was lost (timeout, dropped body, broken JSON, a gateway's 5xx): the service may have charged */
  | { kind: 'lost' };

/** A success envelope as far as the money path reads it: `success: true` and a `data` object. */
function isSuccessEnvelope(j: unknown): j is Envelope {
  if (!j || typeof j !== 'object') return false;
  const o = j as Record<string, unknown>;
  return o.success === true && !!o.data && typeof o.data === 'object';
}

/** An error envelope as far as the money path reads it: `success: false` and an error with a string type. */
function isErrorEnvelope(j: unknown): j is ErrorEnvelope {
  if (!j || typeof j !== 'object') return false;
  const o = j as Record<string, unknown>;
  const err = o.error as Record<string, unknown> | undefined;
  return o.success === false && !!err && typeof err.type === 'string';
}

export function asSuccessEnvelope(j: unknown): Envelope | undefined {
  return isSuccessEnvelope(j) ? j : undefined;
}

export function asErrorEnvelope(j: unknown): ErrorEnvelope | undefined {
  return isErrorEnvelope(j) ? j : undefined;
}

export function classify(out: HttpOutcome): Outcome {
  const ok = asSuccessEnvelope(out.json);
  if (ok) return { kind: 'success', env: ok };
  const err = asErrorEnvelope(out.json);
  if (err) return { kind: 'error', env: err, type: String(err.error.type), retryable: RETRYABLE_ERROR_TYPES.has(String(err.error.type)) };
  if (out.failure?.unsent) return { kind: 'unsent' };
  const s = out.status;
  // A complete 4xx answer without an envelope: the request was refused before it could be charged.
  // 429 from a proxy is still "slow down".
  if (s !== null && s >= 400 && s < 500 && out.failure?.reason === 'bad_json') return s === 429 ? { kind: 'unsent' } : { kind: 'refused' };
  if (s !== null && s >= 400 && s < 500 && out.json !== undefined) return { kind: 'refused' };
  return { kind: 'lost' };
}

/** Retry-After in seconds (integer or HTTP date), or undefined. */
export function retryAfterOf(out: HttpOutcome, nowMs: number = Date.now()): number | undefined {
  const h = out.headers['retry-after'];
  if (!h) return undefined;
  const n = Number(h);
  if (Number.isFinite(n) && n >= 0) return n;
  const d = Date.parse(h);
  if (Number.isFinite(d)) return Math.max(0, (d - nowMs) / 1000);
  return undefined;
}

/**
 * Wait before retry number `retry` (0-based). With Retry-After: at least that, plus a small
 * jitter (up to 10% + 100 ms, at most 1 s) so paused workers do not all return at once.
 * Without: exponential backoff 0.5 s·2^n with ±50% jitter, capped at 30 s.
 */
export function retryDelay(retry: number, retryAfterS: number | undefined, random: () => number): number {
  if (retryAfterS !== undefined) {
    const base = retryAfterS * 1000;
    return Math.round(base + random() * Math.min(1000, 100 + base * 0.1));
  }
  const base = Math.min(30_000, 500 * 2 ** retry);
  return Math.round(base * (0.5 + random()));
}
