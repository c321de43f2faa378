/**
 * What every door does with a call, in one place: validate the input with the contract's zod
 * schema, run the core's implementation, and turn any failure into a SerializedError (the error
 * model, src/shared/errors.ts: kind, message, type, requestId — never a stack, never a key). The
 * Electron IPC binding and the web host both go through `dispatch`, so the two doors behave
 * identically; only a bug (kind `internal`) logs its stack, on this process's stderr.
 */
import { isMethodName, parseInput, type LoupeEvent, type LoupeImpl, type MethodName, type Unsubscribe } from '../shared/contract';
import { ERRORS, isErrorKind, LoupeError, type DoorAnswer, type ErrorKind, type SerializedError } from '../shared/errors';

/** What a door needs from the composed app (createApp returns this). */
export interface AppHandle {
  impl: LoupeImpl;
  events: { on(listener: (e: LoupeEvent) => void): Unsubscribe };
  /** every key value this process knows, for redaction at the doors (never sent anywhere) */
  secrets(): string[];
  close(): Promise<void>;
}

export type DispatchResult = DoorAnswer;

/** Thrown inside the core for failures that are not ApiErrors but have a clear kind. */
export class AppError extends LoupeError {
  constructor(kind: ErrorKind, message: string, type?: string) {
    super(kind, message, { type });
    this.name = 'AppError';
  }
}

function redactAll(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('[redacted-key]');
  // anything shaped like a service key that slipped through (e.g. echoed by a server)
  return out.replace(/\b[a-z][a-z0-9]*_(live|test)_[A-Za-z0-9_-]{43}\b/g, '[redacted-key]');
}

interface ZodLikeIssue {
  path: ReadonlyArray<PropertyKey>;
  message: string;
}
function isZodError(e: unknown): e is { issues: ZodLikeIssue[] } {
  return typeof e === 'object' && e !== null && Array.isArray((e as { issues?: unknown }).issues) && (e as Error).name === 'ZodError';
}

function serialized(kind: ErrorKind, message: string, from: { type?: unknown; requestId?: unknown; details?: unknown }): SerializedError {
  const out: SerializedError = { kind: ERRORS[kind].wire ?? kind, message };
  if (typeof from.type === 'string') out.type = from.type;
  if (typeof from.requestId === 'string') out.requestId = from.requestId;
  if (typeof from.details === 'object' && from.details !== null) out.details = from.details as Record<string, unknown>;
  return out;
}

/**
 * Any thrown value → SerializedError. Messages are one line, redacted, at most 1000 characters.
 * A LoupeError (or anything carrying a known kind) keeps its kind; a schema failure is
 * `validation`, an abort `cancelled`; anything else is a bug: `internal`.
 */
export function toBridgeError(e: unknown, secrets: readonly string[] = []): SerializedError {
  const clean = (s: string) => {
    const line = redactAll(s, secrets).split('\n')[0].trim();
    return line.length > 1000 ? line.slice(0, 1000) + '…' : line;
  };
  if (isZodError(e)) {
    const parts = e.issues.slice(0, 5).map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message));
    return { kind: 'validation', message: clean(`Invalid input — ${parts.join('; ')}`) };
  }
  if (e instanceof Error && (e.name === 'AbortError' || (e as { code?: string }).code === 'ABORT_ERR')) {
    return { kind: 'cancelled', message: 'Cancelled.' };
  }
  if (e instanceof LoupeError) return serialized(e.kind, clean(e.message), e);
  // an error from elsewhere that carries a kind of the model (e.g. built with Object.assign)
  if (
    typeof e === 'object' &&
    e !== null &&
    isErrorKind((e as { kind?: unknown }).kind) &&
    typeof (e as { message?: unknown }).message === 'string'
  ) {
    const x = e as { kind: ErrorKind; message: string; type?: unknown; requestId?: unknown; details?: unknown };
    return serialized(x.kind, clean(x.message), x);
  }
  const msg = e instanceof Error ? e.message : String(e);
  return { kind: 'internal', message: clean(msg || 'Unexpected failure.') };
}

/** The serialised form of any thrown value (toBridgeError under the error model's name). */
export const toSerializedError = toBridgeError;

/**
 * Logs a bug's stack (redacted) on this process's stderr; expected errors log nothing. Every
 * door calls this for what it failed to answer.
 */
export function logIfBug(where: string, e: unknown, error: SerializedError, secrets: readonly string[]): void {
  if (ERRORS[error.kind].expected) return;
  const detail = e instanceof Error ? (e.stack ?? e.message) : String(e);
  console.error(`[loupe] ${where} failed: ${redactAll(detail, secrets)}`);
}

/** Validate, run, wrap. `method` comes from the outside world: unknown names are refused. */
export async function dispatch(app: Pick<AppHandle, 'impl' | 'secrets'>, method: string, input: unknown): Promise<DispatchResult> {
  if (!isMethodName(method)) return { ok: false, error: { kind: 'not_found', message: `Unknown method "${method.slice(0, 80)}".` } };
  let parsed: unknown;
  try {
    parsed = parseInput(method, input);
  } catch (e) {
    return { ok: false, error: toBridgeError(e, app.secrets()) };
  }
  try {
    const fn = app.impl[method] as (i: unknown) => Promise<unknown>;
    const result = await fn(parsed);
    return { ok: true, result: result === undefined ? null : result };
  } catch (e) {
    const error = toBridgeError(e, app.secrets());
    // a bug's full failure goes to the process's own stderr (redacted), never across the door
    logIfBug(method, e, error, app.secrets());
    return { ok: false, error };
  }
}

export type { MethodName };
