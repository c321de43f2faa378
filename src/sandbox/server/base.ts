/**
 * The sandbox server's state and plumbing, shared by the entry (http.ts), the data-request
 * pipeline (data-request.ts) and the special answers (wire.ts): keys, limits, caches,
 * idempotency, recalls, ledger, chaos, variants, faults, holds, counters; request ids, error
 * bodies, JSON answers, Retry-After, cache keys.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { EndpointDef } from '../types';
import { Chaos } from './chaos';
import { SandboxClock } from './clock';
import { CursorCodec, paramsHash } from './cursor';
import { FaultQueue } from './faults';
import { KeyStore, type Account } from './keys';
import { RateLimiter } from './ratelimit';
import { IdempotencyStore, Ledger, RecallStore, ResponseCache, type WindowStart } from './state';
import type { ChaosConfig, ServerDeps } from './types';
import { VariantSet } from './variants';

export interface ServerOptions {
  seed: number;
  balance: number;
  timeScale: number;
  latencyMs: number;
  chaos?: ChaosConfig | number;
  keyPrefix: string;
  freeCalls: number;
  epoch: number;
  /** Spec variants active at start (names from SPEC_VARIANTS). */
  variants?: readonly string[];
  /** Real-time source (tests may inject). */
  realNow?: () => number;
}

/** Price of a shared-cache read for an account that does not own the answer (spec Limits rule 5/7). */
export const SHARED_CACHE_PRICE = 2;
/** Calls whose charge is at most this are covered by an introductory free call. */
export const FREE_CALL_MAX_PRICE = 100;
type Json = Record<string, unknown>;

export class ServerBase {
  readonly clock: SandboxClock;
  readonly keys: KeyStore;
  readonly limiter = new RateLimiter();
  readonly cache = new ResponseCache();
  readonly idem = new IdempotencyStore();
  readonly recalls = new RecallStore();
  readonly ledger = new Ledger();
  readonly chaos: Chaos;
  /** Spec variants (docs/sandbox.md "Spec variants"). */
  readonly variants: VariantSet;
  /** Scripted faults (docs/sandbox.md "Scripted faults"). */
  readonly faults = new FaultQueue();
  readonly labelled = new Set<string>();
  readonly defaultAccount: Account;
  readonly demoKey: string;
  readonly codec = new CursorCodec(randomBytes(32));
  /** Credits held per account by calls in flight. */
  readonly holds = new Map<string, number>();
  protected baseUrl = '';
  private reqSeq = 0;
  /** Rejected cursors so far under variant cursor-error (picks the refusal in turn). */
  cursorRejections = 0;
  readonly counters = {
    requests: 0,
    counted: 0,
    byStatus: {} as Record<string, number>,
    credits: 0,
    freeCalls: 0,
    chaos: {} as Record<string, number>,
  };

  constructor(
    readonly deps: ServerDeps,
    readonly opts: ServerOptions,
  ) {
    this.clock = new SandboxClock(opts.epoch, opts.timeScale, opts.realNow);
    this.keys = new KeyStore(opts.keyPrefix, () => this.clock.now());
    this.chaos = new Chaos(opts.chaos, opts.seed);
    this.variants = new VariantSet(opts.variants ?? []);
    this.defaultAccount = this.keys.createAccount({ balance: opts.balance, freeCalls: opts.freeCalls });
    this.demoKey = this.keys.createKey(this.defaultAccount.id, 'demo');
  }

  newRequestId(): string {
    return `req_${(++this.reqSeq).toString(36).padStart(6, '0')}${randomBytes(6).toString('hex')}`;
  }

  errorBody(requestId: string, type: string, message: string, creditsRemaining: number | null, reason?: string): Json {
    return {
      success: false,
      error: { type, message, ...(reason ? { reason } : {}) },
      request_id: requestId,
      credits_used: 0,
      credits_remaining: creditsRemaining,
    };
  }

  sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(body);
    this.counters.byStatus[status] = (this.counters.byStatus[status] ?? 0) + 1;
    res.writeHead(status, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(text)),
      'X-Sandbox-Time-Scale': String(this.opts.timeScale),
      ...headers,
    });
    res.end(text);
  }

  retryAfter(sandboxSeconds: number): Record<string, string> {
    return { 'Retry-After': String(this.clock.toRealSeconds(sandboxSeconds)) };
  }

  heldFor(account: string): number {
    return this.holds.get(account) ?? 0;
  }

  /**
   * The cache's key of a call: endpoint + normalised params, the cursor replaced by its position (a
   * re-walk under new cursors hits) — or, under `cache-exact-cursor`, kept as sent (another cursor is
   * another call, whatever page it names).
   */
  /** Where an owner's cache window starts under the active variants (docs/sandbox.md). */
  windowStart(): WindowStart {
    if (this.variants.has('cache-window-slides')) return 'slides';
    return this.variants.has('cache-window-purchase') ? 'purchase' : 'fetch';
  }

  cacheKey(def: EndpointDef, params: Record<string, string>, posToken: string | null): string {
    const p: Record<string, string> = {};
    const exact = this.variants.has('cache-exact-cursor');
    const paging = new Set(['cursor', def.paging?.param, def.paging?.alt].filter(Boolean) as string[]);
    for (const [k, v] of Object.entries(params)) if ((exact || !paging.has(k)) && k !== 'dry_run') p[k] = v;
    return `${def.platform}/${def.path}?${paramsHash(p)}#${posToken ?? ''}`;
  }
}

export function headerOf(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let s = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => {
      s += d;
      if (s.length > 1_000_000) req.destroy();
    });
    req.on('end', () => resolve(s));
    req.on('error', reject);
  });
}
