/**
 * One error class for everything the request core can fail with. `message` is one
 * clear sentence in the spec's terms; it never contains the API key (messages from
 * the server are passed through `redact` before they get here).
 */
import { exitCodeOf, LoupeError } from '../../shared/errors';

export type ApiErrorKind =
  | 'api' // the service refused (error envelope, non-retryable or retries exhausted on a 4xx)
  | 'network' // connection / timeout / bad body that could not be retried
  | 'validation' // the request is wrong before anything was sent (free)
  | 'local_budget' // a Loupe budget (walk maxCredits, watchlist budget) would be exceeded
  | 'insufficient_local' // the hold would exceed the last known balance; nothing sent
  | 'cancelled' // the caller aborted
  | 'gave_up' // retryable failures kept happening; gave up after the retry limit
  | 'rate_wait' // the service asked us to wait longer than the wait cap; resumable later
  | 'storage'; // the archive could not be written or read (disk full, read-only, damaged): local, not network

export interface ApiErrorInit {
  kind: ApiErrorKind;
  message: string;
  type?: string;
  status?: number;
  requestId?: string;
  retryAfter?: number;
  attempts?: number;
  /** credits the service charged for this call although it failed locally (e.g. the answer could not be stored) */
  creditsCharged?: number;
  /** ms since epoch when a `rate_wait` ends (the service's Retry-After) */
  retryAt?: number;
}

export class ApiError extends LoupeError {
  declare readonly kind: ApiErrorKind;
  /** error.type from the service (or a local type such as REPEATED_CURSOR) */
  declare readonly type?: string;
  declare readonly status?: number;
  declare readonly requestId?: string;
  /** seconds, from Retry-After */
  declare readonly retryAfter?: number;
  declare readonly attempts?: number;
  declare readonly creditsCharged?: number;
  declare readonly retryAt?: number;

  constructor(init: ApiErrorInit) {
    // what the way out needs crosses the door as details: when a wait ends, what a failed call was charged
    const details = {
      ...(init.retryAt !== undefined ? { retryAt: init.retryAt } : {}),
      ...(init.creditsCharged !== undefined ? { creditsCharged: init.creditsCharged } : {}),
    };
    super(init.kind, init.message, {
      type: init.type,
      requestId: init.requestId,
      details: Object.keys(details).length ? details : undefined,
    });
    this.name = 'ApiError';
    const self = this as { -readonly [P in keyof ApiErrorInit]: ApiErrorInit[P] };
    if (init.status !== undefined) self.status = init.status;
    if (init.retryAfter !== undefined) self.retryAfter = init.retryAfter;
    if (init.attempts !== undefined) self.attempts = init.attempts;
    if (init.creditsCharged !== undefined) self.creditsCharged = init.creditsCharged;
    if (init.retryAt !== undefined) self.retryAt = init.retryAt;
  }

  /** the table's exit code, except a refusal with a 5xx status: the service failed, not the request (4) */
  override get exitCode(): number {
    return this.kind === 'api' && this.status !== undefined && this.status >= 500 ? 4 : super.exitCode;
  }

  toJSON(): ApiErrorInit {
    return {
      kind: this.kind,
      message: this.message,
      ...(this.type !== undefined ? { type: this.type } : {}),
      ...(this.status !== undefined ? { status: this.status } : {}),
      ...(this.requestId !== undefined ? { requestId: this.requestId } : {}),
      ...(this.retryAfter !== undefined ? { retryAfter: this.retryAfter } : {}),
      ...(this.retryAt !== undefined ? { retryAt: this.retryAt } : {}),
      ...(this.creditsCharged !== undefined ? { creditsCharged: this.creditsCharged } : {}),
    };
  }
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}

/**
 * Process exit code for a result, through the one table in src/shared/errors.ts: 0 ok; 2
 * usage/parameter error; 3 the API refused (4xx); 4 gave up after retries or network failure, or
 * rate limited beyond the wait cap (resumable); 5 over budget, not approved or cancelled; 6 local
 * storage (disk full, read-only, damaged archive). Anything else is an internal failure (1).
 */
export const exitCodeFor = exitCodeOf;

/** "(TYPE, request req_…)" suffix. */
export function errorSuffix(type: string | undefined, requestId: string | undefined): string {
  const parts: string[] = [];
  if (type) parts.push(type);
  if (requestId) parts.push(`request ${requestId}`);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

const LEADS: Record<string, string> = {
  MISSING_API_KEY: 'No API key reached the service',
  INVALID_API_KEY: 'The API key is not valid',
  API_KEY_REVOKED: 'The API key has been revoked; set a new key',
  INSUFFICIENT_CREDITS: 'Out of credits',
  UNKNOWN_PLATFORM: 'Unknown network',
  UNKNOWN_ENDPOINT: 'Unknown endpoint',
  RESOURCE_NOT_FOUND: 'Not found',
  METHOD_NOT_SUPPORTED: 'This endpoint is in the catalogue but cannot be called through the API',
  IDEMPOTENCY_IN_PROGRESS: 'The same call is still running on the service',
  RATE_LIMITED: 'Rate limited by the service',
  CONCURRENCY_LIMIT: 'Too many requests in flight on this key',
  INTERNAL_ERROR: 'The service had an internal error',
  SERVICE_UNAVAILABLE: 'The service is unavailable right now',
  UPSTREAM_ERROR: 'The network did not answer the service',
};

/** One sentence for an error envelope: lead in the spec's terms, the server's sentence, type and request id. */
export function describeApiError(type: string, serverMessage: string, requestId: string | undefined, status?: number): string {
  const lead =
    LEADS[type] ??
    (status !== undefined && status >= 400 && status < 500 ? 'The request was refused; fix the request' : 'The service refused the call');
  const msg = serverMessage.trim().replace(/\.$/, '');
  const body = msg && msg.toLowerCase() !== lead.toLowerCase() ? `${lead}: ${msg}` : lead;
  return `${body}${errorSuffix(type, requestId)}`;
}
