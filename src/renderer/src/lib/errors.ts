/**
 * Every failure names its cause in the spec's terms and offers its way out (issue 14 #7):
 * Usage, Settings, top-up, resume. Pure (tested): the components render what this returns.
 */
import { fmtExact } from './format';

export interface ErrorFacts {
  /** the error model's kind (src/shared/errors.ts): api, network, validation, local_budget, insufficient_local, gave_up, rate_wait, storage, cancelled, internal, … */
  kind?: string | null;
  /** the API's error.type (or the storage type) */
  type?: string | null;
  message: string;
  /** rate_wait: when the service's wait ends (ms since epoch) */
  retryAt?: number | null;
}

export type WayId = 'resume' | 'usage' | 'settings' | 'topup' | 'retry';
export interface Way {
  id: WayId;
  label: string;
  hint: string;
}

export interface WayOut {
  /** the cause, in an analyst's words with the spec's type */
  cause: string;
  ways: Way[];
  /** a resume must wait until then (ms since epoch) */
  waitUntil: number | null;
}

const AUTH = new Set(['MISSING_API_KEY', 'INVALID_API_KEY', 'API_KEY_REVOKED']);
const RETRYABLE = new Set([
  'RATE_LIMITED',
  'CONCURRENCY_LIMIT',
  'IDEMPOTENCY_IN_PROGRESS',
  'SERVICE_UNAVAILABLE',
  'UPSTREAM_ERROR',
  'INTERNAL_ERROR',
]);

function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19) + ' UTC';
}

/** What went wrong and what the user can do about it. `canResume`: the failed work has a saved cursor. */
export function wayOut(f: ErrorFacts, opts: { canResume?: boolean; sandbox?: boolean; now?: number } = {}): WayOut {
  const type = f.type ?? undefined;
  const kind = f.kind ?? 'internal';
  const resume: Way[] = opts.canResume
    ? [{ id: 'resume', label: 'Resume', hint: 'Continue from the saved cursor: nothing read is bought again' }]
    : [];
  const usage: Way = { id: 'usage', label: 'Open Usage', hint: 'Balance, what was spent and what was not charged' };
  const topup: Way = opts.sandbox
    ? { id: 'topup', label: 'Set sandbox balance', hint: 'The sandbox panel (Settings) sets its balance' }
    : { id: 'topup', label: 'How to top up', hint: 'Credits come from your plan or packs in the service’s dashboard; then resume' };
  const settings = (what: string): Way => ({ id: 'settings', label: 'Open Settings', hint: what });

  if (kind === 'insufficient_local' || type === 'INSUFFICIENT_CREDITS')
    return {
      cause:
        kind === 'insufficient_local'
          ? 'Out of credits — held before sending, nothing was sent or charged'
          : 'Out of credits (INSUFFICIENT_CREDITS) — the service holds the ceiling before a call runs; not charged',
      ways: [topup, usage, ...resume],
      waitUntil: null,
    };
  if (kind === 'local_budget')
    return {
      cause: 'Your budget for this work is reached — nothing past it is sent',
      ways: [usage, settings('Budgets and the “ask above” threshold'), ...resume],
      waitUntil: null,
    };
  if (type && AUTH.has(type))
    return {
      cause: `The API key was refused (${type}) — nothing was charged`,
      ways: [settings('Keys: add or choose another key')],
      waitUntil: null,
    };
  if (kind === 'rate_wait') {
    const until = f.retryAt ?? null;
    return {
      cause: `The service asked to wait${until ? ` until ${clock(until)}` : ''} — longer than your wait cap, so Loupe stopped instead of holding the work${type ? ` (${type})` : ''}`,
      ways: [...resume, settings('Raise the longest wait (Settings → pacing)')],
      waitUntil: until,
    };
  }
  if (kind === 'storage')
    return {
      cause: `Loupe could not write its archive${type ? ` (${type})` : ''} — what the service answered is safe to fetch again for free inside the cache window`,
      ways: [{ id: 'retry', label: 'Retry', hint: 'After freeing disk space or fixing the folder named above' }, ...resume],
      waitUntil: null,
    };
  if (kind === 'gave_up' || (type && RETRYABLE.has(type)) || kind === 'network')
    return {
      cause:
        kind === 'network'
          ? 'The service could not be reached'
          : `The service kept failing${type ? ` (${type})` : ''}; Loupe gave up after its retries`,
      ways: [...resume, settings('Attempt timeout and pacing'), usage],
      waitUntil: null,
    };
  if (type === 'RESOURCE_NOT_FOUND')
    return {
      cause:
        'Not found (RESOURCE_NOT_FOUND): nothing public at that handle or link — private and deleted content come back as not found; not charged',
      ways: [],
      waitUntil: null,
    };
  if (kind === 'validation' || (kind === 'api' && type))
    return {
      cause: `The request was refused${type ? ` (${type})` : ''}: change the parameters — sending it again fails the same way; not charged`,
      ways: [],
      waitUntil: null,
    };
  if (kind === 'cancelled') return { cause: 'Cancelled', ways: resume, waitUntil: null };
  return { cause: 'Something failed inside Loupe', ways: [...resume, usage], waitUntil: null };
}

/** "in 12 s" / "now" for a resume that must wait. */
export function waitText(until: number | null, now: number): string | null {
  if (until === null || until <= now) return null;
  const s = Math.ceil((until - now) / 1000);
  return s >= 120 ? `in ${fmtExact(Math.ceil(s / 60))} min` : `in ${s} s`;
}

/** What a running walk shows instead of "~0 s left" once its estimate has passed (retries, waits). */
export function etaText(startedAt: number, etaMs: number | null, now: number, rateRetryUntil: number | null = null): string | null {
  if (rateRetryUntil !== null && rateRetryUntil > now)
    return `rate limited by the service — retrying in ${Math.ceil((rateRetryUntil - now) / 1000)} s`;
  if (etaMs === null) return null;
  const left = startedAt + etaMs - now;
  if (left >= 1000) return `~${left >= 60_000 ? `${Math.round(left / 60_000)} min` : `${Math.round(left / 1000)} s`} left`;
  return 'waiting for the service (slow answer or retries)';
}
