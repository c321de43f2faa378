/**
 * Deterministic, scripted fault injection (`POST /__admin/faults`, `admin.queueFaults()`), for
 * client tests of hangs and lost answers. Unlike chaos (random rates), a scripted fault hits
 * exactly the next matching data requests.
 *
 * Queue semantics: faults are kept in the order queued. A data request that reaches the upstream
 * stage (after auth, limits, routing, params, cursor, dry_run, Idempotency-Key and the hold; fresh
 * calls and cache reads alike; never idempotent replays, dry runs or recall reads) takes the FIRST
 * queued fault whose `match` is a substring of its path (`/v1/<platform>/<path>`; no `match` = any
 * path). Each fault serves `count` requests (default 1), then leaves the queue.
 */

export type FaultKind = 'drop' | 'trickle' | 'stall' | 'stall-charged' | 'status' | 'truncate-charged';

export const FAULT_KINDS: readonly FaultKind[] = ['drop', 'trickle', 'stall', 'stall-charged', 'status', 'truncate-charged'];

export interface FaultSpec {
  kind: FaultKind;
  /** How many matching requests this fault serves (default 1). */
  count?: number;
  /** Substring of the request path (`/v1/<platform>/<path>`); absent = every data path. */
  match?: string;
  /** trickle: real milliseconds between two writes (default 10000). */
  intervalMs?: number;
  /** trickle: bytes per write (default 1). */
  chunkBytes?: number;
  /** status: HTTP status to answer. */
  status?: number;
  /** status: error.type of the error envelope (default INTERNAL_ERROR when no `body`). */
  type?: string;
  /** status: error.message of the error envelope. */
  message?: string;
  /** status: Retry-After header value, REAL seconds, sent as given. */
  retryAfter?: number;
  /** status: Content-Type of a verbatim `body` (default application/json for objects, text/plain for strings). */
  contentType?: string;
  /** status: the body, verbatim (a string is sent as is, anything else as JSON). Replaces the error envelope. */
  body?: unknown;
}

/** A queued fault: a validated FaultSpec with its remaining uses. */
export type QueuedFault = Required<Pick<FaultSpec, 'kind'>> & FaultSpec & { remaining: number };

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function posInt(v: unknown, name: string, min: number): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) throw new Error(`fault ${name} must be an integer >= ${min}`);
  return v;
}

/** Validate one fault (throws a clear Error). */
export function parseFault(raw: unknown): FaultSpec {
  if (!isObj(raw)) throw new Error('each fault must be an object {kind, count?, match?, ...}');
  const kind = raw.kind;
  if (typeof kind !== 'string' || !(FAULT_KINDS as readonly string[]).includes(kind))
    throw new Error(`unknown fault kind ${JSON.stringify(kind)}; use one of ${FAULT_KINDS.join(', ')}`);
  const f: FaultSpec = { kind: kind as FaultKind };
  f.count = posInt(raw.count, 'count', 1) ?? 1;
  if (raw.match !== undefined) {
    if (typeof raw.match !== 'string') throw new Error('fault match must be a string');
    f.match = raw.match;
  }
  if (kind === 'trickle') {
    f.intervalMs = posInt(raw.intervalMs, 'intervalMs', 0) ?? 10_000;
    f.chunkBytes = posInt(raw.chunkBytes, 'chunkBytes', 1) ?? 1;
  }
  if (kind === 'status') {
    const st = posInt(raw.status, 'status', 100);
    if (st === undefined || st > 599) throw new Error('a status fault needs `status` (100..599)');
    f.status = st;
    if (raw.type !== undefined && typeof raw.type !== 'string') throw new Error('fault type must be a string');
    if (raw.message !== undefined && typeof raw.message !== 'string') throw new Error('fault message must be a string');
    if (raw.contentType !== undefined && typeof raw.contentType !== 'string') throw new Error('fault contentType must be a string');
    if (raw.retryAfter !== undefined && (typeof raw.retryAfter !== 'number' || !(raw.retryAfter >= 0)))
      throw new Error('fault retryAfter must be a number of seconds >= 0');
    f.type = raw.type as string | undefined;
    f.message = raw.message as string | undefined;
    f.contentType = raw.contentType as string | undefined;
    f.retryAfter = raw.retryAfter as number | undefined;
    if ('body' in raw) f.body = raw.body;
  }
  return f;
}

export class FaultQueue {
  private queue: QueuedFault[] = [];
  /** Faults applied so far, by kind. */
  readonly applied: Record<string, number> = {};

  /** Append faults (all validated first: nothing is queued if one is invalid). */
  push(list: unknown): QueuedFault[] {
    if (!Array.isArray(list)) throw new Error('faults must be an array of {kind, count?, match?, ...}');
    const parsed = list.map(parseFault);
    for (const f of parsed) this.queue.push({ ...f, remaining: f.count ?? 1 });
    return this.pending();
  }
  clear(): void {
    this.queue = [];
  }
  pending(): QueuedFault[] {
    return this.queue.map((f) => ({ ...f }));
  }
  /** Take one use of the first queued fault matching `path`, or null. */
  take(path: string): FaultSpec | null {
    const i = this.queue.findIndex((f) => f.match === undefined || path.includes(f.match));
    if (i < 0) return null;
    const f = this.queue[i];
    f.remaining--;
    if (f.remaining <= 0) this.queue.splice(i, 1);
    this.applied[f.kind] = (this.applied[f.kind] ?? 0) + 1;
    const { remaining: _r, ...spec } = f;
    return spec;
  }
}
