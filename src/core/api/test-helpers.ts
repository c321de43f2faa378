/**
 * Test doubles for the request core: an in-memory CoreStore, fake clocks, and a scriptable
 * fake API server on 127.0.0.1. Used by src/core/api/*.test.ts; other parts may reuse them.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { NATIVE_PAGING_PARAMS, type Catalogue, type CatalogueEndpoint, type CatalogueParam } from '../../shared/api-types';
import type { Clock, CoreStore, ItemRef, JournalEntry, LedgerEntry, StoredResponse, WalkState, WalkStatus } from '../ports';
import { abortError } from './clock';
import { createApiCore, type ApiCoreOptions } from './core';
import { successEnvelope } from './test-envelope';

// ---- in-memory CoreStore -----------------------------------------------------------------------

export class MemoryStore implements CoreStore {
  journal: JournalEntry[] = [];
  ledger: LedgerEntry[] = [];
  responses: Array<StoredResponse & { source: string; walkId: string | null }> = [];
  items = new Map<string, Record<string, unknown>>();
  walks = new Map<string, WalkState>();
  bal: { creditsRemaining: number; at: number } | undefined;

  findJournal(opKey: string): JournalEntry | undefined {
    for (let i = this.journal.length - 1; i >= 0; i--) if (this.journal[i].opKey === opKey) return { ...this.journal[i] };
    return undefined;
  }
  /** Like the archive: upsert by callId; another callId with the same opKey throws. */
  beginJournal(e: JournalEntry): void {
    if (this.journal.some((j) => j.opKey === e.opKey && j.callId !== e.callId)) throw new Error(`journal: opKey ${e.opKey} already used`);
    const i = this.journal.findIndex((j) => j.callId === e.callId);
    if (i >= 0) this.journal[i] = { ...e };
    else this.journal.push({ ...e });
  }
  finishJournal(callId: string, state: 'done' | 'failed', at: number): void {
    const j = this.journal.find((x) => x.callId === callId);
    if (j) {
      j.state = state;
      j.finishedAt = at;
    }
  }
  pendingJournal(): JournalEntry[] {
    return this.journal.filter((j) => j.state === 'pending').map((j) => ({ ...j }));
  }
  /** every entry was written by this process (a memory store lives in one) */
  journalAround(callId: string, from: number, to: number): JournalEntry[] {
    return this.journal
      .filter((j) => j.callId !== callId && j.createdAt <= to && (j.state === 'pending' || (j.finishedAt !== null && j.finishedAt >= from)))
      .map((j) => ({ ...j, owner: 'this' as const }));
  }
  recordAttempt(e: LedgerEntry): number {
    this.ledger.push({ ...e, id: this.ledger.length + 1 });
    return this.ledger.length;
  }
  ledgerOfRequest(platform: string, endpoint: string, paramsHash: string, from: number, to: number): LedgerEntry[] {
    return this.ledger.filter(
      (l) => l.platform === platform && l.endpoint === endpoint && l.paramsHash === paramsHash && l.startedAt >= from && l.startedAt < to,
    );
  }
  ledgerOfList(platform: string, endpoint: string, params: string, from: number, to: number): LedgerEntry[] {
    const paging = new Set<string>(['cursor', ...NATIVE_PAGING_PARAMS]);
    const list = (p: string) => {
      const o = JSON.parse(p) as Record<string, string>;
      const rest = Object.fromEntries(Object.entries(o).filter(([k]) => !paging.has(k)));
      return { rest: JSON.stringify(rest), paged: Object.keys(o).some((k) => paging.has(k)) };
    };
    const want = list(params).rest;
    return this.ledger.filter((l) => {
      const r = list(l.params);
      return l.platform === platform && l.endpoint === endpoint && r.paged && r.rest === want && l.startedAt >= from && l.startedAt < to;
    });
  }
  ledgerOfCall(callId: string): LedgerEntry[] {
    return this.ledger.filter((l) => l.callId === callId);
  }
  ledgerHighWater(): number {
    return this.ledger.length;
  }
  ledgerBetween(afterId: number, upToId: number, since: number): LedgerEntry[] {
    return this.ledger.filter((l) => (l.id ?? 0) > afterId && (l.id ?? 0) <= upToId && l.startedAt >= since);
  }
  ledgerCreditsSince(afterId: number, since: number): number {
    return this.ledger.filter((l) => (l.id ?? 0) > afterId && l.startedAt >= since).reduce((s, l) => s + l.creditsUsed, 0);
  }
  storeResponse(r: StoredResponse, source: string, walkId: string | null): { items: ItemRef[]; newItems: number } {
    this.responses.push({ ...r, source, walkId });
    const refs: ItemRef[] = [];
    let newItems = 0;
    const list = (r.envelope.data as { items?: unknown }).items;
    if (Array.isArray(list)) {
      for (const it of list as Array<Record<string, { id: string }>>) {
        const kind = Object.keys(it)[0];
        const rec = it[kind];
        const key = `${r.platform}/${kind}/${rec.id}`;
        if (!this.items.has(key)) newItems++;
        this.items.set(key, rec);
        refs.push({ platform: r.platform, kind, id: rec.id });
      }
    }
    return { items: refs, newItems };
  }
  findFreshResponse(platform: string, endpoint: string, paramsHash: string, since: number): StoredResponse | undefined {
    for (let i = this.responses.length - 1; i >= 0; i--) {
      const r = this.responses[i];
      if (r.platform === platform && r.endpoint === endpoint && r.paramsHash === paramsHash && r.fetchedAt >= since) return r;
    }
    return undefined;
  }
  saveWalk(w: WalkState): void {
    this.walks.set(w.walkId, { ...w });
  }
  getWalk(walkId: string): WalkState | undefined {
    const w = this.walks.get(walkId);
    return w ? { ...w } : undefined;
  }
  listWalks(filter?: { status?: WalkStatus[] }): WalkState[] {
    return [...this.walks.values()].filter((w) => !filter?.status || filter.status.includes(w.status));
  }
  setBalance(creditsRemaining: number, at: number): void {
    this.bal = { creditsRemaining, at };
  }
  getBalance(): { creditsRemaining: number; at: number } | undefined {
    return this.bal;
  }
}

// ---- clocks ----------------------------------------------------------------------------------------

/** A manual clock: time moves only through advance(). */
export class ManualClock implements Clock {
  private t: number;
  private timers: Array<{ at: number; seq: number; fire: () => void }> = [];
  private seq = 0;
  constructor(start = 1_700_000_000_000) {
    this.t = start;
  }
  now(): number {
    return this.t;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(abortError());
      const timer = { at: this.t + Math.max(0, ms), seq: this.seq++, fire: () => resolve() };
      this.timers.push(timer);
      signal?.addEventListener(
        'abort',
        () => {
          this.timers = this.timers.filter((x) => x !== timer);
          reject(abortError());
        },
        { once: true },
      );
    });
  }
  /** Moves time forward, firing due timers in order and letting promise chains run between. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      await flush();
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.t = Math.max(this.t, next.at);
      next.fire();
    }
    this.t = end;
    await flush();
  }
  pendingTimers(): number {
    return this.timers.length;
  }
}

/** A clock whose sleep returns at once and moves time forward by the requested amount; records every sleep. */
export class InstantClock implements Clock {
  t = 1_700_000_000_000;
  sleeps: number[] = [];
  now(): number {
    return this.t;
  }
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw abortError();
    this.sleeps.push(ms);
    this.t += Math.max(0, ms);
    await Promise.resolve();
  }
}

export async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
  await new Promise((r) => setImmediate(r));
}

// ---- fake API server ---------------------------------------------------------------------------------

export const TEST_KEY = 'sdr_live_' + 'A'.repeat(43);

export interface FakeRequest {
  method: string;
  path: string; // after /v1/
  query: Record<string, string>;
  rawQuery: string;
  headers: IncomingMessage['headers'];
}

export type FakeReply =
  | { status?: number; body: unknown; headers?: Record<string, string> }
  | { drop: 'mid_body'; body: unknown; status?: number }
  /** headers at once, then the body one byte every `trickle` ms (undici's chunk timeout never fires) */
  | { trickle: number; body: unknown; status?: number }
  | { raw: string; status?: number };

export interface FakeApi {
  url: string;
  requests: FakeRequest[];
  dataRequests(): FakeRequest[];
  close(): Promise<void>;
}

export function startFakeApi(opts: {
  catalogue: Catalogue;
  handle: (req: FakeRequest) => FakeReply | Promise<FakeReply>;
  credits?: () => unknown;
}): Promise<FakeApi> {
  const requests: FakeRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const u = new URL(req.url ?? '/', 'http://127.0.0.1');
      const path = u.pathname.replace(/^\/v1\//, '');
      const query: Record<string, string> = {};
      u.searchParams.forEach((v, k) => (query[k] = v));
      const fr: FakeRequest = { method: req.method ?? 'GET', path, query, rawQuery: u.search.slice(1), headers: req.headers };
      requests.push(fr);
      let reply: FakeReply;
      if (path === 'endpoints') reply = { body: opts.catalogue };
      else if (path === 'credits') reply = { body: opts.credits ? opts.credits() : { success: true, credits_remaining: 100000 } };
      else reply = await opts.handle(fr);
      const status = reply.status ?? 200;
      if ('raw' in reply) {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(reply.raw);
        return;
      }
      const text = JSON.stringify(reply.body);
      if ('trickle' in reply) {
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
        let i = 0;
        const t = setInterval(() => {
          if (res.destroyed || i >= text.length) {
            clearInterval(t);
            if (!res.destroyed) res.end();
            return;
          }
          res.write(text[i++]);
        }, reply.trickle);
        res.on('close', () => clearInterval(t));
        return;
      }
      if ('drop' in reply) {
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
        res.write(text.slice(0, Math.floor(text.length / 2)));
        setTimeout(() => res.destroy(), 5);
        return;
      }
      res.writeHead(status, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
      res.end(text);
    })();
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      resolve({
        url: `http://127.0.0.1:${port}`,
        requests,
        dataRequests: () => requests.filter((r) => r.path !== 'endpoints' && r.path !== 'credits' && r.path !== 'openapi.json'),
        close: () =>
          new Promise<void>((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      });
    });
  });
}

// ---- catalogue and envelope builders -----------------------------------------------------------------

export function p(name: string, extra: Partial<CatalogueParam> = {}): CatalogueParam {
  return {
    name,
    required: false,
    in: 'query',
    type: 'string',
    description: '',
    help: null,
    example: null,
    enum: null,
    minimum: null,
    maximum: null,
    one_of_group: null,
    ...extra,
  };
}

export function endpointDef(platform: string, path: string, extra: Partial<CatalogueEndpoint> = {}): CatalogueEndpoint {
  return {
    path: `/v1/${platform}/${path}`,
    method: 'GET',
    platform,
    group: 'posts',
    label: path,
    description: '',
    credits: 20,
    tier: 'standard',
    paginates: false,
    cache_ttl_seconds: 3600,
    order: 1,
    params: [p('dry_run', { type: 'boolean' })],
    available: true,
    ...extra,
  };
}

export function makeCatalogue(endpoints: CatalogueEndpoint[]): Catalogue {
  return {
    success: true,
    base_url: 'http://127.0.0.1',
    docs: '',
    auth: { header: 'x-api-key', format: '', note: '' },
    headers: {},
    pricing: { note: '', free: [] },
    tools: {},
    summary: {
      endpoints: endpoints.length,
      gettable: endpoints.length,
      metered: 0,
      platforms: 1,
      spec_version: '1.0.0',
      schema_version: '2',
      max_our_credits: 5000,
    },
    meta_endpoints: [],
    endpoints,
  };
}

let reqSeq = 0;
export function okEnvelope(
  platform: string,
  endpoint: string,
  data: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    ...successEnvelope(platform, endpoint, data, { credits_used: 20, credits_remaining: 10000, request_id: `req_${++reqSeq}` }),
    ...extra,
  };
}

export function errEnvelope(type: string, message = 'error', extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { success: false, error: { type, message }, request_id: `req_${++reqSeq}`, credits_used: 0, credits_remaining: null, ...extra };
}

export function postItems(ids: string[]): Array<{ post: { id: string } }> {
  return ids.map((id) => ({ post: { id } }));
}

// ---- a small catalogue used by the request-core tests ------------------------------------------------

export function testCatalogue(): Catalogue {
  return makeCatalogue([
    endpointDef('photo_net', 'profile', {
      cache_ttl_seconds: 86400,
      params: [p('handle', { required: true, description: 'Account handle, without the leading @.' }), p('dry_run', { type: 'boolean' })],
    }),
    endpointDef('photo_net', 'profile/posts', {
      credits: { min: 20, max: 340 },
      paginates: true,
      cache_ttl_seconds: 21600,
      params: [
        p('handle', { required: true }),
        p('cursor'),
        p('next_max_id'),
        p('max_pages', { type: 'integer', minimum: 1, maximum: 5 }),
        p('since'),
        p('until'),
        p('stop_at_id'),
        p('recent_days', { type: 'integer', minimum: 1, maximum: 3650 }),
        p('label'),
        p('dry_run', { type: 'boolean' }),
      ],
    }),
    endpointDef('photo_net', 'profile/reels', {
      credits: { min: 20, max: 360 },
      paginates: true,
      params: [
        p('user_id', { one_of_group: 'user_id|handle' }),
        p('handle', { one_of_group: 'user_id|handle' }),
        p('cursor'),
        p('sort', { enum: ['top', 'recent'] }),
        p('trim', { type: 'boolean' }),
        p('dry_run', { type: 'boolean' }),
      ],
    }),
    endpointDef('photo_net', 'search/reels', {
      paginates: true,
      params: [p('query', { required: true }), p('cursor'), p('page', { type: 'integer', minimum: 1 }), p('dry_run', { type: 'boolean' })],
    }),
    endpointDef('photo_net', 'post/likers', { available: false, credits: 100, params: [p('url', { required: true })] }),
    endpointDef('video_net', 'channel/videos', {
      credits: { min: 20, max: 40 },
      paginates: true,
      params: [
        p('handle', { required: true }),
        p('cursor'),
        p('continuationToken'),
        p('since'),
        p('stop_at_id'),
        p('dry_run', { type: 'boolean' }),
      ],
    }),
    // an entry that lists only its native paging parameter (a catalogue that does not repeat `cursor`)
    endpointDef('video_net', 'search/hashtag', {
      credits: { min: 20, max: 220 },
      paginates: true,
      params: [p('hashtag', { required: true }), p('continuationToken')],
    }),
    // fixed price, no cache window: a lost answer is retried with the same key (see retry.ts)
    endpointDef('forum_net', 'search/comments', {
      credits: 20,
      paginates: true,
      cache_ttl_seconds: 0,
      params: [p('query', { required: true }), p('cursor'), p('sort', { enum: ['relevance', 'top', 'new'] })],
    }),
  ]);
}

/** The most starts inside any window of `windowMs`: what a sliding-window rate limit sees. */
export function maxInAnyWindow(times: number[], windowMs: number): number {
  const t = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < t.length; i++) {
    while (j < t.length && t[j] < t[i] + windowMs) j++;
    best = Math.max(best, j - i);
  }
  return best;
}

// ---- a request core on the fake API (core*.test.ts) ---------------------------------------------

export interface CoreHarness {
  /** The running test's fake API, closed after the test (a test that closes it itself sets this undefined). */
  api: FakeApi | undefined;
  /** A request core (balance 100 000, instant clock, random 0.5, logs kept) on a fake API answering with `handle`. */
  setup: (
    handle: (r: FakeRequest) => FakeReply | Promise<FakeReply>,
    extra?: Partial<ApiCoreOptions>,
    credits?: () => unknown,
  ) => Promise<{ core: ReturnType<typeof createApiCore>; store: MemoryStore; clock: InstantClock; logs: string[]; api: FakeApi }>;
}

/** Call at the top of a test file: registers the afterEach that closes each test's fake API. */
export function coreSetup(): CoreHarness {
  const h: CoreHarness = {
    api: undefined,
    setup: async (handle, extra = {}, credits) => {
      const api = await startFakeApi({ catalogue: testCatalogue(), handle, credits });
      h.api = api;
      const store = new MemoryStore();
      store.setBalance(100_000, 0);
      const clock = new InstantClock();
      const logs: string[] = [];
      const core = createApiCore({
        baseUrl: api.url,
        getKey: () => TEST_KEY,
        store,
        clock,
        random: () => 0.5,
        log: (l) => logs.push(l),
        ...extra,
      });
      return { core, store, clock, logs, api };
    },
  };
  afterEach(async () => {
    await h.api?.close();
    h.api = undefined;
  });
  return h;
}

/** The profile call of the core tests, and a successful answer to it (20 credits, 9 980 left). */
export const profileCall = { platform: 'photo_net', endpoint: 'profile', params: { handle: 'alice' } };
export const okProfile = () => ({
  body: okEnvelope('photo_net', 'profile', { profile: { id: '90071992547409931' } }, { credits_remaining: 9980 }),
});
