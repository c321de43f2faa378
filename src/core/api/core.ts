/**
 * `createApiCore(options)`: the request core with its default collaborators (docs/request-core.md)
 * — the real clock, an undici transport, the key pool over the shared pace book — handed to
 * `assembleCore` (core/assemble.ts), which takes any others.
 */
import type { Clock, CoreStore } from '../ports';
import { realClock } from './clock';
import { Emitter } from './events';
import { HttpClient, type HttpPort } from './http';
import { DEFAULT_LIMITS, type Pacer, type PacerLimits } from './pacer';
import { KeyPool, type PoolKey } from './key-pool';
import { LEASE_MARGIN_MS, openPaceBook, type PaceBook } from './pace-book';
import type { ApiCore, ApiEvents } from './types';
import { assembleCore, type Tunables } from './core/assemble';
import { keySource, Secrets } from './core/keys';
import { baseUrlOf } from './core/meta';

export interface ApiCoreOptions {
  /** service base address, without /v1 (a trailing /v1 is tolerated) */
  baseUrl: string;
  /** one key (unnamed); or use getKeys */
  getKey?: () => string | null | Promise<string | null>;
  /** the key pool: every key of the account, named (the ledger records the name, never the key) */
  getKeys?: () => PoolKey[] | Promise<PoolKey[]>;
  /** the shared pacing file (<dataDir>/pacing.db): every process using it paces each key together */
  paceFile?: string | null;
  /** or the pace book itself (tests) */
  paceBook?: PaceBook;
  store: CoreStore;
  clock?: Clock;
  random?: () => number;
  limits?: PacerLimits;
  /** absolute deadline of one attempt (headers and body); default 90 s (spec: a minute or more on heavy endpoints) */
  timeoutMs?: number;
  /**
   * after a cancel, how long (real ms) the attempt in flight is still awaited — its answer stored
   * and its charge recorded — before it is abandoned as a lost answer; default 20 s (at most the deadline)
   */
  cancelGraceMs?: number;
  /** the longest single wait (Retry-After or backoff) slept through; beyond it the call stops with `rate_wait`; default 5 min */
  maxWaitMs?: number;
  userAgent?: string;
  log?: (line: string) => void;
  /** retries after the first attempt; default 5 (spec reference loops) */
  maxRetries?: number;
  /** optional on-disk copy of the catalogue (e.g. <dataDir>/catalogue.json) */
  catalogueFile?: string;
  /** a catalogue older than this is refetched on load(); default 24 h */
  catalogueMaxAgeMs?: number;
  /** use this one pacer for every key instead of the process-wide ones (tests, benchmarks) */
  pacer?: Pacer;
  /** the HTTP transport (default: an undici client); tests wrap it to act between requests */
  http?: (defaults: HttpClient) => HttpPort;
}

export function createApiCore(opts: ApiCoreOptions): ApiCore {
  const clock = opts.clock ?? realClock;
  const events = new Emitter<ApiEvents>();
  const secrets = new Secrets();
  const log = (line: string) => opts.log?.(secrets.scrub(line));
  const base = baseUrlOf(opts.baseUrl);
  let limits = { ...(opts.limits ?? DEFAULT_LIMITS) };
  const tunables: Tunables = {
    maxWaitMs: opts.maxWaitMs ?? 5 * 60_000,
    timeoutMs: opts.timeoutMs ?? 90_000,
    cancelGraceMs: opts.cancelGraceMs ?? 20_000,
    setLimits: (l) => {
      limits = { ...l };
      pool.setLimits(l);
    },
  };
  const client = new HttpClient({ timeoutMs: tunables.timeoutMs, userAgent: opts.userAgent ?? 'Loupe/0.1 (+request-core)' });
  const http = opts.http ? opts.http(client) : client;
  const paceBook = opts.paceBook ?? openPaceBook(opts.paceFile, log);
  const pool = new KeyPool({
    clock,
    baseUrl: base.url,
    getKeys: keySource(opts, secrets, log, events),
    limits: () => limits,
    book: paceBook,
    leaseMs: () => tunables.timeoutMs + LEASE_MARGIN_MS,
    pacer: opts.pacer,
  });
  return assembleCore({
    clock,
    random: opts.random ?? Math.random,
    store: opts.store,
    pool,
    http,
    events,
    log,
    scrub: (t) => secrets.scrub(t),
    baseUrl: base.checked,
    tunables,
    maxRetries: opts.maxRetries ?? 5,
    catalogueFile: opts.catalogueFile,
    catalogueMaxAgeMs: opts.catalogueMaxAgeMs,
    close: async () => {
      await http.close();
      if (!opts.paceBook) paceBook.close();
    },
  });
}
