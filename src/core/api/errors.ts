/**
 * One error class for everything the request core can fail with. `message` is one
 * clear sentence in the spec's terms; it never contains the API key (messages from
 * the server are passed through `redact` before they get here).
 */
import { StorageError } from '../storage-error';

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

export class ApiError extends Error {
  readonly kind: ApiErrorKind;
  /** error.type from the service (or a local type such as REPEATED_CURSOR) */
  readonly type?: string;
  readonly status?: number;
  readonly requestId?: string;
  /** seconds, from Retry-After */
  readonly retryAfter?: number;
  readonly attempts?: number;
  readonly creditsCharged?: number;
  readonly retryAt?: number;

  constructor(init: ApiErrorInit) {
    super(init.message);
    this.name = 'ApiError';
    this.kind = init.kind;
    if (init.type !== undefined) this.type = init.type;
    if (init.status !== undefined) this.status = init.status;
    if (init.requestId !== undefined) this.requestId = init.requestId;
    if (init.retryAfter !== undefined) this.retryAfter = init.retryAfter;
    if (init.attempts !== undefined) this.attempts = init.attempts;
    if (init.creditsCharged !== undefined) this.creditsCharged = init.creditsCharged;
    if (init.retryAt !== undefined) this.retryAt = init.retryAt;
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
 * Process exit code for a result: 0 ok; 2 usage/parameter error; 3 the API refused (4xx);
 * 4 gave up after retries or network failure, or rate limited beyond the wait cap (resumable);
 * 5 over budget, not approved or cancelled; 6 local storage (disk full, read-only, damaged archive).
 * Anything else is an internal failure (1).
 */
export function exitCodeFor(err: unknown): number {
  if (err === undefined || err === null) return 0;
  if (err instanceof StorageError) return 6;
  if (!(err instanceof ApiError)) return 1;
  switch (err.kind) {
    case 'validation':
      return 2;
    case 'api':
      if (err.status !== undefined && err.status >= 500) return 4;
      // 400-class parameter errors are still "the API refused"
      return 3;
    case 'network':
    case 'gave_up':
    case 'rate_wait':
      return 4;
    case 'storage':
      return 6;
    case 'local_budget':
    case 'insufficient_local':
    case 'cancelled':
      return 5;
  }
}

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
  const lead = LEADS[type] ?? (status !== undefined && status >= 400 && status < 500 ? 'The request was refused; fix the request' : 'The service refused the call');
  const msg = serverMessage.trim().replace(/\.$/, '');
  const body = msg && msg.toLowerCase() !== lead.toLowerCase() ? `${lead}: ${msg}` : lead;
  return `${body}${errorSuffix(type, requestId)}`;
}
