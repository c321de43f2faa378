/**
 * The request core as an object over its collaborators (docs/request-core.md): the clock, the
 * archive port, the key pool (each key's pacer inside), the HTTP transport — passed in, so a test
 * or another door can give its own. `createApiCore` (../core.ts) builds the default ones.
 */
import type { Clock, CoreStore } from '../../ports';
import { createCaller } from '../call';
import type { Emitter } from '../events';
import type { HttpPort } from '../http';
import type { CoreInternals } from '../internals';
import type { KeyPool } from '../key-pool';
import type { PacerLimits } from '../pacer';
import type { ApiCore, ApiEvents } from '../types';
import { resumeWalk, runWalk } from '../walk/index';
import { createBalance } from './balance';
import { createEndpoints } from './catalogue-api';
import { createEstimates } from './estimates';
import { metaKey } from './keys';
import { createMeta } from './meta';

/** What Settings may change while the core runs. */
export interface Tunables {
  /** the longest single wait slept through; beyond it a call stops with `rate_wait` */
  maxWaitMs: number;
  /** the absolute deadline of one attempt */
  timeoutMs: number;
  /** after a cancel, how long the attempt in flight is still awaited (its answer stored and settled) */
  cancelGraceMs: number;
  setLimits: (l: PacerLimits) => void;
}

export interface CoreCollaborators {
  clock: Clock;
  random: () => number;
  /** the archive port */
  store: CoreStore;
  pool: KeyPool;
  http: HttpPort;
  events: Emitter<ApiEvents>;
  /** log lines (keys scrubbed) and the scrubber for the service's words */
  log: (line: string) => void;
  scrub: (text: string) => string;
  /** the checked base address */
  baseUrl: () => string;
  tunables: Tunables;
  maxRetries: number;
  catalogueFile?: string;
  catalogueMaxAgeMs?: number;
  /** closes what the collaborators hold open (the transport, an owned pace book) */
  close: () => Promise<void>;
}

export function assembleCore(c: CoreCollaborators): ApiCore {
  const { clock, store, pool, events, log, tunables: tun } = c;
  const meta = createMeta({
    http: c.http,
    clock,
    random: c.random,
    baseUrl: c.baseUrl,
    key: () => metaKey(pool),
    scrub: c.scrub,
    timeoutMs: () => tun.timeoutMs,
  });
  const { catalogue, validate, endpointOf } = createEndpoints({
    meta,
    clock,
    file: c.catalogueFile,
    maxAgeMs: c.catalogueMaxAgeMs,
    log,
    events,
  });
  const bal = createBalance({ store, clock, events, meta });
  const est = createEstimates({ call: () => call, endpointOf, pool });
  const call = createCaller({
    ...bal,
    clock,
    random: c.random,
    store,
    http: c.http,
    events,
    log,
    baseUrl: c.baseUrl,
    pool,
    endpointOf,
    windowNow: async (t) => {
      await catalogue.load({ force: true });
      return (await endpointOf(t)).cache_ttl_seconds;
    },
    holdOf: est.holdFor,
    maxRetries: c.maxRetries,
    maxWaitMs: () => tun.maxWaitMs,
    timeoutMs: () => tun.timeoutMs,
    cancelGraceMs: () => Math.min(tun.cancelGraceMs, tun.timeoutMs),
  });
  const internals: CoreInternals = {
    clock,
    store,
    events,
    log,
    call,
    endpoint: endpointOf,
    holdOf: est.holdFor,
    quote: est.quote,
    restarts: new Map(),
    balance: bal.balance,
    eta: (n, p) => pool.eta(n, p),
  };
  return {
    catalogue,
    validate,
    call,
    quote: est.quote,
    estimateWalk: est.estimateWalk,
    hold: async (target) => est.holdFor(await endpointOf(target), target),
    walk: (target, o) => runWalk(internals, target, o ?? {}),
    resumeWalk: (walkId, o) => resumeWalk(internals, walkId, o ?? {}),
    credits: bal.credits,
    balance: bal.balance,
    pacer: { stats: () => pool.stats(), eta: (n, p) => pool.eta(n, p ?? 'interactive') },
    keys: {
      members: async () => (await pool.members()).map((m) => ({ name: m.name, retiring: m.retiring === true, stats: m.pacer.stats() })),
    },
    setLimits: tun.setLimits,
    setWaits(w: { maxWaitMs?: number; timeoutMs?: number }) {
      if (w.maxWaitMs !== undefined) tun.maxWaitMs = w.maxWaitMs;
      if (w.timeoutMs !== undefined) tun.timeoutMs = w.timeoutMs;
    },
    events,
    close: c.close,
  };
}
