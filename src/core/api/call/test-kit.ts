/**
 * Test kit for the call's stages (call/*.test.ts, not shipped): a caller over an in-memory store, an
 * instant clock, a key pool of one key, and an HTTP port that answers from a script — so each stage
 * runs on its own against scripted answers, no server.
 */
import type { CatalogueEndpoint } from '../../../shared/api-types';
import type { HttpOutcome, HttpPort } from '../http';
import { BalanceBook } from '../balance-book';
import { Emitter } from '../events';
import { KeyPool } from '../key-pool';
import { MemoryPaceBook } from '../pace-book';
import { endpointDef, InstantClock, MemoryStore, okEnvelope, p, TEST_KEY } from '../test-helpers';
import type { ApiEvents, CallOptions } from '../types';
import { callerOf, type Caller, type CallerDeps, type CallPlan, type CallState } from './context';
import { activeHere } from './journal';
import { planCall } from './plan';

export const FIXED = endpointDef('forum_net', 'search/comments', {
  credits: 20,
  cache_ttl_seconds: 0,
  params: [p('query', { required: true })],
});
export const METERED = endpointDef('photo_net', 'profile/posts', {
  credits: { min: 20, max: 340 },
  cache_ttl_seconds: 21600,
  params: [p('handle', { required: true })],
});

/** an answer the scripted port gives: an outcome as HttpClient reports it */
export const answer = {
  ok: (extra: Record<string, unknown> = {}): HttpOutcome => ({
    status: 200,
    headers: {},
    json: okEnvelope('photo_net', 'profile/posts', { items: [] }, extra),
    durationMs: 5,
  }),
  error: (status: number, type: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): HttpOutcome => ({
    status,
    headers,
    json: {
      success: false,
      error: { type, message: `no: ${type}` },
      request_id: `req_${type}`,
      credits_used: 0,
      credits_remaining: null,
      ...extra,
    },
    durationMs: 5,
  }),
  lost: (reason: 'timeout' | 'mid_body' | 'bad_json' = 'mid_body'): HttpOutcome => ({
    status: 200,
    headers: { 'x-request-id': 'req_lost' },
    failure: { reason, message: reason },
    durationMs: 5,
  }),
  unsent: (): HttpOutcome => ({
    status: null,
    headers: {},
    failure: { reason: 'connect', message: 'ECONNREFUSED', unsent: true },
    durationMs: 1,
  }),
  teapot: (): HttpOutcome => ({
    status: 418,
    headers: {},
    text: "I'm a teapot",
    failure: { reason: 'bad_json', message: 'not JSON' },
    durationMs: 1,
  }),
};

export interface Kit {
  c: Caller;
  d: CallerDeps;
  store: MemoryStore;
  clock: InstantClock;
  sent: Array<{ url: string; headers: Record<string, string> }>;
  /** the answers the port gives, in order (the last one repeats) */
  script: HttpOutcome[];
  balance: { value: number | null };
  logs: string[];
  events: Array<{ name: string; e: unknown }>;
}

export function kit(o: { balance?: number | null; maxRetries?: number; maxWaitMs?: number } = {}): Kit {
  const store = new MemoryStore();
  const clock = new InstantClock();
  const sent: Kit['sent'] = [];
  const script: HttpOutcome[] = [];
  const balance = { value: o.balance === undefined ? 100_000 : o.balance };
  const logs: string[] = [];
  const emitter = new Emitter<ApiEvents>();
  const events: Kit['events'] = [];
  for (const name of ['attempt', 'rate-limited', 'key-refused', 'warning'] as const) emitter.on(name, (e) => events.push({ name, e }));
  let i = 0;
  const http: HttpPort = {
    get: async (url, headers) => {
      sent.push({ url, headers });
      const out = script[Math.min(i++, script.length - 1)];
      if (!out) throw new Error('the script has no answer');
      return out;
    },
    close: async () => {},
  };
  const pool = new KeyPool({
    clock,
    baseUrl: 'http://sdr.test',
    getKeys: async () => [{ name: 'main', key: TEST_KEY }],
    limits: () => ({ requests: 60, windowSeconds: 60, maxInFlight: 10 }),
    book: new MemoryPaceBook(),
    leaseMs: () => 120_000,
  });
  let mem: number | null = balance.value;
  const d: CallerDeps = {
    clock,
    random: () => 0.5,
    store,
    http,
    events: emitter,
    log: (l) => logs.push(l),
    baseUrl: () => 'http://sdr.test',
    pool,
    endpointOf: async () => METERED,
    holdOf: async (ep, t) => (typeof ep.credits === 'number' ? ep.credits : ep.credits.max) * Number(t.params.max_pages ?? 1),
    balance: () => mem,
    noteBalance: (v) => {
      if (typeof v === 'number') mem = v;
    },
    // as the real one (core/balance.ts): the figure read is also the balance shown
    readBalance: async () => {
      if (typeof balance.value === 'number') mem = balance.value;
      return balance.value;
    },
    probeBalance: async () => {
      mem = balance.value;
    },
    maxRetries: o.maxRetries ?? 5,
    maxWaitMs: () => o.maxWaitMs ?? 300_000,
    timeoutMs: () => 90_000,
    cancelGraceMs: () => 20_000,
  };
  const c = callerOf(d, new BalanceBook({ clock, store, activeHere, leaseMs: () => 120_000 }));
  return { c, d, store, clock, sent, script, balance, logs, events };
}

/** a planned call of `ep` */
export function planOf(ep: CatalogueEndpoint, params: Record<string, string>, o: CallOptions = {}): CallPlan {
  return planCall({ platform: ep.platform, endpoint: ep.path.split('/').slice(3).join('/'), params }, ep, o);
}

/** a running call's state, journal entry new and unsent */
export function stateOf(plan: CallPlan, hold: number, extra: Partial<CallState> = {}): CallState {
  return {
    plan,
    hold,
    j: {
      callId: 'call-1',
      opKey: 'op-1',
      idempotencyKey: 'idem-1',
      platform: plan.platform,
      endpoint: plan.endpoint,
      params: plan.canonical,
      paramsHash: plan.hash,
      state: 'pending',
      createdAt: 0,
      finishedAt: null,
      keyName: null,
    },
    needJournal: true,
    answered: false,
    loss: null,
    inferredSoFar: 0,
    sentWith: new Map(),
    attempt: 0,
    timeouts: 0,
    keyMoves: 0,
    url: `http://sdr.test/v1/${plan.platform}/${plan.endpoint}`,
    key: '',
    ...extra,
  };
}
