/**
 * What every door does with a call, in one place: validate the input with the contract's zod
 * schema, run the core's implementation, and turn any failure into a BridgeError (kind, type,
 * message, requestId — never a stack, never a key). The Electron IPC binding and the web host
 * both go through `dispatch`, so the two doors behave identically.
 */
import {
  isMethodName,
  parseInput,
  type BridgeError,
  type LoupeEvent,
  type LoupeImpl,
  type MethodName,
  type Unsubscribe,
} from '../shared/contract';
import { StorageError } from './storage-error';

/** What a door needs from the composed app (createApp returns this). */
export interface AppHandle {
  impl: LoupeImpl;
  events: { on(listener: (e: LoupeEvent) => void): Unsubscribe };
  /** every key value this process knows, for redaction at the doors (never sent anywhere) */
  secrets(): string[];
  close(): Promise<void>;
}

export type DispatchResult = { ok: true; result: unknown } | { ok: false; error: BridgeError };

/** Thrown inside the core for failures that are not ApiErrors but have a clear kind. */
export class AppError extends Error {
  readonly kind: string;
  readonly type?: string;
  constructor(kind: string, message: string, type?: string) {
    super(message);
    this.name = 'AppError';
    this.kind = kind;
    if (type !== undefined) this.type = type;
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

/** Any thrown value → BridgeError. Messages are one line, redacted, at most 1000 characters. */
export function toBridgeError(e: unknown, secrets: readonly string[] = []): BridgeError {
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
  if (e instanceof StorageError) return { kind: 'storage', type: e.kind.toUpperCase(), message: clean(e.message) };
  if (typeof e === 'object' && e !== null && typeof (e as { kind?: unknown }).kind === 'string' && typeof (e as { message?: unknown }).message === 'string') {
    const x = e as { kind: string; message: string; type?: unknown; requestId?: unknown };
    const out: BridgeError = { kind: x.kind, message: clean(x.message) };
    if (typeof x.type === 'string') out.type = x.type;
    if (typeof x.requestId === 'string') out.requestId = x.requestId;
    return out;
  }
  const msg = e instanceof Error ? e.message : String(e);
  return { kind: 'internal', message: clean(msg || 'Unexpected failure.') };
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
    if (error.kind === 'internal') {
      // the full failure goes to the process's own stderr (redacted), never across the door
      const detail = e instanceof Error ? (e.stack ?? e.message) : String(e);
      console.error(`[loupe] ${method} failed: ${redactAll(detail, app.secrets())}`);
    }
    return { ok: false, error };
  }
}

export type { MethodName };
