/**
 * One error model for every door (docs/architecture.md "Errors").
 *
 * Every failure Loupe expects is a `LoupeError` with a `kind`; ONE table (`ERRORS`) says what each
 * kind becomes at each door: the HTTP status of the web host, the exit code of the CLI, and
 * whether it is a bug. Only `internal` (anything that is not a LoupeError: a bug) logs a stack —
 * on the process's own stderr, never across a door. Across a process boundary (IPC, HTTP) an
 * error travels as a `SerializedError`: `{ kind, message, type?, requestId?, details? }`, and a
 * call answers `{ ok: true, result } | { ok: false, error }` — nothing is thrown across a door.
 *
 * Plain TypeScript (no node:, no electron): the core, the doors and the renderer all use it.
 */
import type { LoupeEvent, MethodInput, MethodName, MethodOutput, Unsubscribe } from './contract';

/** What the doors need to know about an error: how to answer it, and whether it is a bug. */
export interface ErrorKindInfo {
  /** the web host's status for a failed call */
  httpStatus: number;
  /** the CLI's exit code (docs/cli.md) */
  cliExit: number;
  /** false only for bugs: their stack is logged (redacted), expected errors never log one */
  expected: boolean;
  /** the kind it crosses a door as, when not itself (the storage causes all cross as `storage`) */
  wire?: 'storage';
}

const STORAGE: ErrorKindInfo = { httpStatus: 507, cliExit: 6, expected: true, wire: 'storage' };

/**
 * Kind → door. Exit codes: 0 done; 2 usage or parameter error; 3 the API refused (4xx); 4 gave up
 * after retries, the network failed, or rate limited beyond the wait cap (resumable); 5 over budget,
 * not approved or cancelled; 6 local storage; 7 the ledger and the balance differ; 1 anything else.
 */
const TABLE = {
  /** the input is wrong (a user mistake): bad parameters, a malformed query, a bad cursor */
  validation: { httpStatus: 400, cliExit: 2, expected: true },
  /** no such method / walk / key / item */
  not_found: { httpStatus: 404, cliExit: 2, expected: true },
  /** a feature this build or this service does not offer */
  not_available: { httpStatus: 501, cliExit: 1, expected: true },
  /** the web host's token is missing or wrong */
  unauthorized: { httpStatus: 401, cliExit: 1, expected: true },
  /** a caller that may not call (foreign window, foreign Origin) */
  forbidden: { httpStatus: 403, cliExit: 1, expected: true },
  /** the call stopped because the user (or a shutdown) cancelled it */
  cancelled: { httpStatus: 409, cliExit: 5, expected: true },
  /** the user did not approve (no --yes, declined at the prompt) */
  not_approved: { httpStatus: 409, cliExit: 5, expected: true },
  /** a Loupe budget (walk maxCredits, --max-credits, watchlist budget) would be exceeded */
  local_budget: { httpStatus: 402, cliExit: 5, expected: true },
  /** the hold would exceed the last known balance; nothing sent */
  insufficient_local: { httpStatus: 402, cliExit: 5, expected: true },
  /** the service refused (its error envelope); a 5xx refusal exits 4 (ApiError.exitCode) */
  api: { httpStatus: 502, cliExit: 3, expected: true },
  /** the service could not be reached */
  network: { httpStatus: 502, cliExit: 4, expected: true },
  /** retryable failures kept happening; gave up after the retry limit */
  gave_up: { httpStatus: 503, cliExit: 4, expected: true },
  /** the service asked to wait longer than the wait cap; resumable later */
  rate_wait: { httpStatus: 429, cliExit: 4, expected: true },
  /** the archive / data folder could not be written or read (as a walk's stop reason) */
  storage: { httpStatus: 507, cliExit: 6, expected: true },
  /** StorageError causes (storage-error.ts); they cross doors as `storage` with type FULL, READONLY, … */
  full: STORAGE,
  readonly: STORAGE,
  damaged: STORAGE,
  locked: STORAGE,
  io: STORAGE,
  /** the archive was written by a newer Loupe */
  archive_version: { httpStatus: 409, cliExit: 1, expected: true },
  /** no secure key store on this machine */
  secrets_unavailable: { httpStatus: 503, cliExit: 1, expected: true },
  /** `credits --reconcile`: the ledger and the balance differ */
  ledger_mismatch: { httpStatus: 409, cliExit: 7, expected: true },
  /** a bug: anything thrown that is not a LoupeError */
  internal: { httpStatus: 500, cliExit: 1, expected: false },
} as const satisfies Record<string, ErrorKindInfo>;

export type ErrorKind = keyof typeof TABLE;

export const ERRORS: Readonly<Record<ErrorKind, ErrorKindInfo>> = TABLE;

export function isErrorKind(s: unknown): s is ErrorKind {
  return typeof s === 'string' && Object.prototype.hasOwnProperty.call(ERRORS, s);
}

/** The table's row for a kind (unknown kinds are bugs: `internal`). */
export function errorInfo(kind: string): ErrorKindInfo {
  return isErrorKind(kind) ? ERRORS[kind] : ERRORS.internal;
}

/** An error as it crosses a process boundary: never a stack, never a key. */
export interface SerializedError {
  kind: ErrorKind;
  /** one sentence in the spec's terms */
  message: string;
  /** the API's error.type (or a local type: FULL, READONLY, … for storage) */
  type?: string;
  requestId?: string;
  /** machine-readable facts for the way out (only when there are some) */
  details?: Record<string, unknown>;
}

/** A call's answer at every door: nothing is thrown across a process boundary. */
export type DoorAnswer<T = unknown> = { ok: true; result: T } | { ok: false; error: SerializedError };

/** What the Electron preload exposes as `window.loupe`: the contract, answering DoorAnswers. */
export interface ResultBridge {
  call<K extends MethodName>(method: K, input?: MethodInput<K>): Promise<DoorAnswer<MethodOutput<K>>>;
  onEvent(listener: (e: LoupeEvent) => void): Unsubscribe;
}

export interface LoupeErrorOptions {
  type?: string;
  requestId?: string;
  details?: Record<string, unknown>;
  /** what the user can do about it, in one clause (shown after the message where a door wants it) */
  wayOut?: string;
}

/** The base of every error Loupe expects. `kind` picks the door's answer from ERRORS. */
export class LoupeError extends Error {
  readonly kind: ErrorKind;
  declare readonly type?: string;
  declare readonly requestId?: string;
  declare readonly details?: Record<string, unknown>;
  declare readonly wayOut?: string;

  constructor(kind: ErrorKind, message: string, opts: LoupeErrorOptions = {}) {
    super(message);
    this.name = 'LoupeError';
    this.kind = kind;
    const self = this as { -readonly [P in keyof LoupeErrorOptions]: LoupeErrorOptions[P] };
    if (opts.type !== undefined) self.type = opts.type;
    if (opts.requestId !== undefined) self.requestId = opts.requestId;
    if (opts.details !== undefined) self.details = opts.details;
    if (opts.wayOut !== undefined) self.wayOut = opts.wayOut;
  }

  /** The CLI's exit code: the table's unless a subclass knows better (a 5xx refusal). */
  get exitCode(): number {
    return ERRORS[this.kind].cliExit;
  }
}

export function isLoupeError(e: unknown): e is LoupeError {
  return e instanceof LoupeError;
}

/** The CLI's exit code for anything thrown: through the table; not a LoupeError = a bug (1). */
export function exitCodeOf(e: unknown): number {
  if (e === undefined || e === null) return 0;
  return e instanceof LoupeError ? e.exitCode : ERRORS.internal.cliExit;
}

/** The web host's status for a serialised error. */
export function httpStatusOf(e: Pick<SerializedError, 'kind'>): number {
  return errorInfo(e.kind).httpStatus;
}
