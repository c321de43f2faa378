import { afterEach, describe, expect, it } from 'vitest';
import { createApiCore, type ApiCoreOptions } from './core';
import { ApiError, exitCodeFor } from './errors';
import {
  InstantClock,
  MemoryStore,
  TEST_KEY,
  errEnvelope,
  okEnvelope,
  postItems,
  startFakeApi,
  testCatalogue,
  type FakeApi,
  type FakeReply,
  type FakeRequest,
} from './test-helpers';

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

async function setup(handle: (r: FakeRequest) => FakeReply | Promise<FakeReply>, extra: Partial<ApiCoreOptions> = {}, credits?: () => unknown) {
  api = await startFakeApi({ catalogue: testCatalogue(), handle, credits });
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
}

const profile = { platform: 'photo_net', endpoint: 'profile', params: { handle: 'alice' } };
const okProfile = () => ({ body: okEnvelope('photo_net', 'profile', { profile: { id: '90071992547409931' } }, { credits_remaining: 9980 }) });

describe('client', () => {
  it('sends the key only in x-api-key, with an Idempotency-Key, and records the attempt', async () => {
    const { core, store, api } = await setup(() => okProfile());
    const r = await core.call(profile, { source: 'profile' });
    const req = api.dataRequests()[0];
    expect(req.path).toBe('photo_net/profile');
    expect(req.query).toEqual({ handle: 'alice' });
    expect(req.headers['x-api-key']).toBe(TEST_KEY);
    expect(req.headers['authorization']).toBeUndefined();
    expect(req.rawQuery).not.toContain(TEST_KEY);
    expect(req.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(req.headers['cache-control']).toBeUndefined();
    expect(r.fromArchive).toBe(false);
    expect(r.creditsUsed).toBe(20);
    expect(store.ledger).toHaveLength(1);
    expect(store.ledger[0]).toMatchObject({ status: 200, creditsUsed: 20, creditsRemaining: 9980, source: 'profile', idempotencyKey: req.headers['idempotency-key'], params: '{"handle":"alice"}' });
    expect(store.journal[0].state).toBe('done');
    expect(core.balance()).toBe(9980);
    expect(store.getBalance()?.creditsRemaining).toBe(9980);
  });

  it('accepts endpoint paths with /v1/ and platform prefixes', async () => {
    const { core, api } = await setup(() => okProfile());
    await core.call({ platform: 'photo_net', endpoint: '/v1/photo_net/profile', params: { handle: 'bob' } });
    expect(api.dataRequests()[0].path).toBe('photo_net/profile');
    await core.catalogue.load();
    expect(core.catalogue.find('photo_net', 'photo_net/profile/posts')?.credits).toEqual({ min: 20, max: 340 });
    expect(core.catalogue.find('', '/v1/video_net/channel/videos')?.platform).toBe('video_net');
    expect(core.catalogue.list('video_net')).toHaveLength(2);
  });

  it('warns once when the key does not look like a service key, and never logs it', async () => {
    const badKey = 'not-a-real-key-1234567';
    const { core, logs } = await setup(() => okProfile(), { getKey: () => badKey });
    const warnings: string[] = [];
    core.events.on('warning', (w) => warnings.push(w.code));
    await core.call(profile);
    await core.call({ ...profile, params: { handle: 'x2' } });
    expect(warnings).toEqual(['key_format']);
    expect(logs.join('\n')).not.toContain(badKey);
  });

  it('fails locally without a key', async () => {
    const { core, api } = await setup(() => okProfile(), { getKey: () => null });
    const e = await core.call(profile).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).type).toBe('MISSING_API_KEY');
    expect(exitCodeFor(e)).toBe(2);
    expect(api.dataRequests()).toHaveLength(0);
  });
});

describe('retry policy', () => {
  const retryable: Array<[string, number]> = [
    ['RATE_LIMITED', 429],
    ['CONCURRENCY_LIMIT', 429],
    ['IDEMPOTENCY_IN_PROGRESS', 409],
    ['SERVICE_UNAVAILABLE', 503],
    ['UPSTREAM_ERROR', 503],
    ['INTERNAL_ERROR', 500],
  ];
  for (const [type, status] of retryable) {
    const keepsKey = type === 'IDEMPOTENCY_IN_PROGRESS';
    it(`retries ${type} after at least Retry-After with ${keepsKey ? 'the same' : 'a fresh'} Idempotency-Key`, async () => {
      let n = 0;
      const { core, api, clock, store } = await setup(() =>
        ++n === 1 ? { status, body: errEnvelope(type), headers: { 'retry-after': '7' } } : okProfile(),
      );
      const r = await core.call(profile);
      const reqs = api.dataRequests();
      expect(reqs).toHaveLength(2);
      // an error answer means the call was not charged: a fresh key can never pay the ceiling,
      // while the original still running (409) must be waited for under its own key
      if (keepsKey) expect(reqs[1].headers['idempotency-key']).toBe(reqs[0].headers['idempotency-key']);
      else expect(reqs[1].headers['idempotency-key']).not.toBe(reqs[0].headers['idempotency-key']);
      expect(Math.max(...clock.sleeps)).toBeGreaterThanOrEqual(7000);
      expect(r.attempts).toBe(2);
      expect(store.ledger.map((l) => l.errorType)).toEqual([type, null]);
      expect(store.ledger.map((l) => l.callId)).toEqual([r.callId, r.callId]);
    });
  }

  it('backs off exponentially without Retry-After and gives up after 5 retries', async () => {
    const { core, api, clock, store } = await setup(() => ({ status: 500, body: errEnvelope('INTERNAL_ERROR', 'boom') }));
    const e = (await core.call(profile).catch((x: unknown) => x)) as ApiError;
    expect(e.kind).toBe('gave_up');
    expect(e.type).toBe('INTERNAL_ERROR');
    expect(exitCodeFor(e)).toBe(4);
    expect(api.dataRequests()).toHaveLength(6);
    expect(new Set(api.dataRequests().map((r) => r.headers['idempotency-key'])).size).toBe(6);
    expect(clock.sleeps).toEqual([500, 1000, 2000, 4000, 8000]); // random() = 0.5 → no jitter offset
    expect(store.ledger).toHaveLength(6);
    expect(e.message).toMatch(/Gave up after 5 retries/);
    expect(e.message).toContain(e.requestId as string);
  });

  it('pauses the whole key on RATE_LIMITED and says so', async () => {
    let n = 0;
    const { core } = await setup(() => (++n === 1 ? { status: 429, body: errEnvelope('RATE_LIMITED'), headers: { 'retry-after': '12' } } : okProfile()));
    const seen: number[] = [];
    core.events.on('rate-limited', (e) => seen.push(e.retryAfterMs));
    await core.call(profile);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeGreaterThanOrEqual(12_000);
  });

  const refused: Array<[string, number]> = [
    ['INVALID_API_KEY', 401],
    ['API_KEY_REVOKED', 401],
    ['INSUFFICIENT_CREDITS', 402],
    ['RESOURCE_NOT_FOUND', 404],
    ['UNKNOWN_ENDPOINT', 404],
    ['METHOD_NOT_SUPPORTED', 405],
    ['INVALID_REQUEST', 400],
    ['SOME_NEW_PARAM_ERROR', 422],
    ['CLIENT_CLOSED_REQUEST', 499],
  ];
  for (const [type, status] of refused) {
    it(`fails at once on ${type} keeping type and request id`, async () => {
      const body = errEnvelope(type, `the server says no to ${TEST_KEY}`, { credits_remaining: 120 });
      const { core, api, store } = await setup(() => ({ status, body }));
      const e = (await core.call(profile).catch((x: unknown) => x)) as ApiError;
      expect(e).toBeInstanceOf(ApiError);
      expect(e.kind).toBe('api');
      expect(e.type).toBe(type);
      expect(e.status).toBe(status);
      expect(e.requestId).toBe(body.request_id);
      expect(e.message).toContain(type);
      expect(e.message).toContain(String(body.request_id));
      expect(e.message).not.toContain(TEST_KEY);
      expect(exitCodeFor(e)).toBe(3);
      expect(api.dataRequests()).toHaveLength(1);
      expect(store.journal[0].state).toBe('failed');
    });
  }

  it('names both numbers on INSUFFICIENT_CREDITS', async () => {
    const { core } = await setup(() => ({ status: 402, body: errEnvelope('INSUFFICIENT_CREDITS', 'x', { credits_remaining: 120 }) }));
    const e = (await core.call({ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'a' } }).catch((x: unknown) => x)) as ApiError;
    expect(e.message).toMatch(/^Out of credits: this call holds 340, balance is 120 \(INSUFFICIENT_CREDITS, request req_\d+\)$/);
  });

  it('after a lost answer inside the cache window, retries with a fresh key (normal charge, or a free owner read)', async () => {
    let n = 0;
    const { core, api, store } = await setup(() => {
      n++;
      if (n === 1) return { drop: 'mid_body', body: okEnvelope('photo_net', 'profile', { profile: { id: '1' } }) };
      if (n === 2) return { raw: '{"success":tru' };
      return okProfile();
    });
    const r = await core.call(profile);
    expect(r.attempts).toBe(3);
    const keys = api.dataRequests().map((q) => q.headers['idempotency-key']);
    expect(new Set(keys).size).toBe(3);
    expect(store.ledger.map((l) => l.errorType)).toEqual(['NETWORK_MID_BODY', 'NETWORK_BAD_JSON', null]);
    expect(store.journal[0]).toMatchObject({ state: 'done', idempotencyKey: keys[2] });
  });

  it('after a lost answer on a fixed-price call without a cache window, keeps the key (ceiling = price; a replay is free)', async () => {
    let n = 0;
    const comments = { platform: 'forum_net', endpoint: 'search/comments', params: { query: 'kettle' } };
    const body = okEnvelope('forum_net', 'search/comments', { items: postItems(['1']) });
    // the balance cannot be read here: the rule alone decides
    const { core, api, store } = await setup(
      () => (++n === 1 ? { drop: 'mid_body', body } : { body: { ...body, idempotent_replay: true, charge_reason: 'replay', credits_used: 0, credits_remaining: 9980 } }),
      {},
      () => ({ success: true }),
    );
    const r = await core.call(comments);
    const keys = api.dataRequests().map((q) => q.headers['idempotency-key']);
    expect(keys[1]).toBe(keys[0]);
    // the replay says the service billed the lost answer: the ledger carries that charge
    expect(r.creditsUsed).toBe(20);
    expect(r.creditsInferred).toBe(20);
    expect(store.ledger.filter((l) => l.chargeReason?.startsWith('inferred:')).map((l) => l.creditsUsed)).toEqual([20]);
  });

  it('reads the balance after a lost answer: charged → the same key (a free replay) and the charge recorded once', async () => {
    let n = 0;
    let balance = 100_000;
    const comments = { platform: 'forum_net', endpoint: 'search/comments', params: { query: 'kettle' } };
    const body = okEnvelope('forum_net', 'search/comments', { items: postItems(['1']) }, { credits_used: 20 });
    const { core, api, store } = await setup(
      () => {
        if (++n === 1) {
          balance -= 20; // the service finished and billed it; the body never arrived
          return { drop: 'mid_body', body };
        }
        return { body: { ...body, idempotent_replay: true, charge_reason: 'replay', credits_used: 0, credits_remaining: balance } };
      },
      {},
      () => ({ success: true, credits_remaining: balance }),
    );
    const r = await core.call(comments);
    const keys = api.dataRequests().map((q) => q.headers['idempotency-key']);
    expect(keys[1]).toBe(keys[0]);
    expect(r.creditsInferred).toBe(20);
    expect(r.creditsUsed).toBe(20);
    expect(store.ledger.filter((l) => l.chargeReason?.startsWith('inferred:')).map((l) => l.chargeReason)).toEqual(['inferred:balance']);
  });

  it('reads the balance after a lost answer: not charged → a fresh key (a same-key retry would pay the ceiling)', async () => {
    let n = 0;
    const comments = { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'a' } };
    const body = okEnvelope('photo_net', 'profile/posts', { items: postItems(['1']) }, { credits_used: 20, credits_remaining: 99_980 });
    const { core, api, store } = await setup(
      () => (++n === 1 ? { drop: 'mid_body', body } : { body }),
      {},
      () => ({ success: true, credits_remaining: 100_000 }),
    );
    const r = await core.call(comments, { fresh: true }); // no-cache: the cache window cannot help
    const keys = api.dataRequests().map((q) => q.headers['idempotency-key']);
    expect(keys[1]).not.toBe(keys[0]);
    expect(r.creditsInferred).toBe(0);
    expect(store.ledger.some((l) => l.chargeReason?.startsWith('inferred:'))).toBe(false);
  });

  it('records no inferred charge when the retry is charged normally (the lost answer was never billed)', async () => {
    let n = 0;
    const { core, store } = await setup(() => (++n === 1 ? { drop: 'mid_body', body: {} } : okProfile()));
    const r = await core.call(profile);
    expect(r.creditsInferred).toBe(0);
    expect(store.ledger.some((l) => l.chargeReason?.startsWith('inferred:'))).toBe(false);
  });

  it('fails at once on a 4xx without an envelope (418 text/plain): fix the request, nothing retried', async () => {
    const { core, api, store } = await setup(() => ({ status: 418, raw: "I'm a teapot" }));
    const e = (await core.call(profile).catch((x: unknown) => x)) as ApiError;
    expect(e.kind).toBe('api');
    expect(e.status).toBe(418);
    expect(e.message).toMatch(/HTTP 418 and no error envelope: "I'm a teapot"; fix the request/);
    expect(exitCodeFor(e)).toBe(3);
    expect(api.dataRequests()).toHaveLength(1);
    expect(store.journal[0].state).toBe('failed');
  });

  it('stops instead of sleeping through a Retry-After beyond the wait cap, saying until when', async () => {
    const { core, api, clock } = await setup(() => ({ status: 429, body: errEnvelope('RATE_LIMITED'), headers: { 'retry-after': '86400' } }), { maxWaitMs: 300_000 });
    const e = (await core.call(profile).catch((x: unknown) => x)) as ApiError;
    expect(e.kind).toBe('rate_wait');
    expect(e.message).toMatch(/^Rate limited by the service until \d{4}-\d{2}-\d{2} \d{2}:\d{2} on photo_net\/profile/);
    expect(e.retryAt).toBeGreaterThan(clock.now() + 86_000_000);
    expect(exitCodeFor(e)).toBe(4);
    expect(clock.sleeps.every((ms) => ms <= 300_000)).toBe(true);
    // the key stays paused: the next call on it stops at once, unsent
    const e2 = (await core.call({ ...profile, params: { handle: 'b' } }).catch((x: unknown) => x)) as ApiError;
    expect(e2.kind).toBe('rate_wait');
    expect(api.dataRequests()).toHaveLength(1);
  });

  it('abandons an attempt whose body trickles past the absolute deadline, and retries', async () => {
    let n = 0;
    const { core, api, store } = await setup(
      () => {
        n++;
        if (n === 1) return { trickle: 25, body: okEnvelope('photo_net', 'profile', { profile: { id: '1' } }) };
        return okProfile();
      },
      { timeoutMs: 300 },
    );
    const t0 = Date.now();
    const r = await core.call(profile);
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(r.attempts).toBe(2);
    expect(store.ledger[0].errorType).toBe('NETWORK_TIMEOUT');
    expect(api.dataRequests()).toHaveLength(2);
  });

  it('leaves nothing pending when a call stops before it was sent (the key is paused beyond the wait cap)', async () => {
    let n = 0;
    const { core, store } = await setup(() => (++n === 1 ? { status: 429, body: errEnvelope('RATE_LIMITED'), headers: { 'retry-after': '86400' } } : okProfile()), { maxWaitMs: 60_000 });
    await core.call(profile, { opKey: 'op:a' }).catch(() => undefined);
    await core.call({ ...profile, params: { handle: 'b' } }, { opKey: 'op:b' }).catch(() => undefined);
    expect(store.pendingJournal()).toHaveLength(0);
  });

  it('gives up after three attempts that each miss the deadline (a service that always trickles)', async () => {
    const { core, api } = await setup(() => ({ trickle: 40, body: okEnvelope('photo_net', 'profile', { profile: { id: '1' } }) }), { timeoutMs: 150 });
    const t0 = Date.now();
    const e = (await core.call(profile).catch((x: unknown) => x)) as ApiError;
    expect(e.kind).toBe('gave_up');
    expect(e.message).toMatch(/no complete answer within/);
    expect(api.dataRequests()).toHaveLength(3);
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it('retries a refused connection (certainly unsent) and gives up as a network failure', async () => {
    const { core, api: a, store } = await setup(() => okProfile());
    await core.catalogue.load();
    await a.close();
    api = undefined;
    const e = (await core.call(profile).catch((x: unknown) => x)) as ApiError;
    expect(e.kind).toBe('gave_up');
    expect(exitCodeFor(e)).toBe(4);
    expect(store.ledger).toHaveLength(6);
    expect(store.ledger.every((l) => l.status === null && l.errorType === 'NETWORK_CONNECT')).toBe(true);
    // nothing reached the service, so nothing can have been charged: no replay to wait for
    expect(store.pendingJournal()).toHaveLength(0);
  });

  it('refuses a base URL that is not an http(s) address at once, as a usage error', async () => {
    const { core } = await setup(() => okProfile());
    await core.catalogue.load();
    const bad = createApiCore({ baseUrl: 'not a url', getKey: () => TEST_KEY, store: new MemoryStore(), clock: new InstantClock() });
    const e = (await bad.call(profile).catch((x: unknown) => x)) as ApiError;
    expect(e.kind).toBe('validation');
    expect(e.message).toMatch(/not an http\(s\) address/);
    expect(exitCodeFor(e)).toBe(2);
  });

  it('stops before spending when the archive cannot take the journal, and reports a charged answer it could not store', async () => {
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    const { core, api, store } = await setup(() => ({ body: okEnvelope('forum_net', 'search/comments', { items: postItems(['1']) }, { credits_used: 20 }) }));
    const { StorageError } = await import('../storage-error');
    const asFull = () => new StorageError({ kind: 'full', path: '/data/archive.sqlite', message: `Could not write the archive at /data/archive.sqlite: ${full.message}.` });
    store.beginJournal = () => {
      throw asFull();
    };
    const comments = { platform: 'forum_net', endpoint: 'search/comments', params: { query: 'kettle' } };
    const e1 = (await core.call(comments).catch((x: unknown) => x)) as ApiError;
    expect(e1.kind).toBe('storage');
    expect(exitCodeFor(e1)).toBe(6);
    expect(api.dataRequests()).toHaveLength(0);

    const fresh = new MemoryStore();
    fresh.setBalance(100_000, 0);
    fresh.storeResponse = () => {
      throw asFull();
    };
    const c2 = createApiCore({ baseUrl: api.url, getKey: () => TEST_KEY, store: fresh, clock: new InstantClock() });
    const e2 = (await c2.call(comments).catch((x: unknown) => x)) as ApiError;
    expect(e2.kind).toBe('storage');
    expect(e2.creditsCharged).toBe(20);
    expect(e2.message).toContain('/data/archive.sqlite');
    expect(fresh.ledger.map((l) => l.creditsUsed)).toEqual([20]);
  });
});

describe('idempotency', () => {
  it('after a restart, picks the cheapest retry for the pending journal entry of an opKey', async () => {
    let n = 0;
    const { core, api, store } = await setup(() => (++n === 1 ? { drop: 'mid_body', body: {} } : okProfile()), { maxRetries: 0 });
    const e = (await core.call(profile, { opKey: 'op:1' }).catch((x: unknown) => x)) as ApiError;
    expect(e.kind).toBe('gave_up');
    expect(store.pendingJournal()).toHaveLength(1);
    const core2 = createApiCore({ baseUrl: api.url, getKey: () => TEST_KEY, store, clock: new InstantClock() });
    await core2.call(profile, { opKey: 'op:1' });
    const keys = api.dataRequests().map((q) => q.headers['idempotency-key']);
    // photo_net/profile has a 24 h cache window: a fresh key is charged normally or read free as its owner
    expect(keys[1]).not.toBe(keys[0]);
    expect(store.pendingJournal()).toHaveLength(0);
    expect(new Set(store.ledger.map((l) => l.callId)).size).toBe(1);
  });

  it('writes the journal before the first attempt', async () => {
    let journalAtRequest = -1;
    const { core, store } = await setup(() => {
      journalAtRequest = store.journal.length;
      return okProfile();
    });
    await core.call(profile);
    expect(journalAtRequest).toBe(1);
  });

  it('does not count a replay as spending', async () => {
    const { core, store } = await setup(() => ({
      body: okEnvelope('photo_net', 'profile', { profile: { id: '1' } }, { idempotent_replay: true, charge_reason: 'replay', credits_used: 0 }),
    }));
    const r = await core.call(profile);
    expect(r.creditsUsed).toBe(0);
    expect(store.ledger[0]).toMatchObject({ idempotentReplay: true, chargeReason: 'replay', creditsUsed: 0 });
  });
});

describe('archive-first', () => {
  it('answers an exact repeat inside the cache window from the archive, free', async () => {
    const { core, api, clock } = await setup(() => okProfile());
    await core.call(profile);
    const again = await core.call({ platform: 'photo_net', endpoint: 'profile', params: { handle: 'alice' } });
    expect(again.fromArchive).toBe(true);
    expect(again.creditsUsed).toBe(0);
    expect(api.dataRequests()).toHaveLength(1);
    // different params → a request
    await core.call({ ...profile, params: { handle: 'bob' } });
    expect(api.dataRequests()).toHaveLength(2);
    // fresh → Cache-Control: no-cache, charged
    const f = await core.call(profile, { fresh: true });
    expect(f.fromArchive).toBe(false);
    expect(api.dataRequests()[2].headers['cache-control']).toBe('no-cache');
    // after the window (86400 s) → a request again
    clock.t += 86_401_000;
    const late = await core.call(profile);
    expect(late.fromArchive).toBe(false);
    expect(api.dataRequests()).toHaveLength(4);
  });
});

describe('hold check', () => {
  it('refuses locally when the hold exceeds the last known balance', async () => {
    const { core, api, store } = await setup(() => okProfile());
    store.setBalance(300, 1);
    const e = (await core.call({ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'a' } }).catch((x: unknown) => x)) as ApiError;
    expect(e.kind).toBe('insufficient_local');
    expect(e.message).toBe('Out of credits: this call holds 340, balance is 300; nothing was sent.');
    expect(exitCodeFor(e)).toBe(5);
    expect(api.dataRequests()).toHaveLength(0);
    // max_pages multiplies the hold: 20 × 5 = 100 ≤ 300 would pass for a fixed price; metered 340 × 1 fails
    store.setBalance(50, 2);
    const e2 = (await core.call({ ...profile, params: { handle: 'z' } }).catch((x: unknown) => x)) as ApiError | { fromArchive: boolean };
    expect(e2).not.toBeInstanceOf(ApiError); // 20 ≤ 50
  });

  it('counts holds of calls in flight', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { core, api, store } = await setup(
      async () => {
        await gate;
        return { body: okEnvelope('photo_net', 'profile', { profile: { id: '1' } }, { credits_remaining: 60 }) };
      },
      {},
      () => ({ success: true, credits_remaining: 50 }),
    );
    store.setBalance(50, 1);
    const a = core.call({ ...profile, params: { handle: 'a' } });
    const b = core.call({ ...profile, params: { handle: 'b' } });
    await new Promise((r) => setTimeout(r, 50));
    const c = (await core.call({ ...profile, params: { handle: 'c' } }).catch((x: unknown) => x)) as ApiError;
    expect(c.kind).toBe('insufficient_local');
    expect(c.message).toContain('40 more held by calls in flight');
    release();
    await Promise.all([a, b]);
    expect(api.dataRequests()).toHaveLength(2);
  });

  it('asks /v1/credits first when the balance is unknown', async () => {
    api = await startFakeApi({ catalogue: testCatalogue(), handle: () => okProfile(), credits: () => ({ success: true, credits_remaining: 10 }) });
    const store = new MemoryStore();
    const core = createApiCore({ baseUrl: api.url, getKey: () => TEST_KEY, store, clock: new InstantClock() });
    const e = (await core.call(profile).catch((x: unknown) => x)) as ApiError;
    expect(e.kind).toBe('insufficient_local');
    expect(api.requests.some((r) => r.path === 'credits' && r.headers['x-api-key'] === TEST_KEY)).toBe(true);
    expect(api.dataRequests()).toHaveLength(0);
  });
});

describe('validation', () => {
  const cases: Array<[string, string, Record<string, string>, RegExp]> = [
    ['missing required', 'profile', {}, /needs 'handle'/],
    ['one-of group', 'profile/reels', { sort: 'top' }, /needs one of 'user_id' or 'handle'/],
    ['enum', 'profile/reels', { handle: 'a', sort: 'best' }, /'sort' must be one of top, recent; got 'best'/],
    ['bounds', 'profile/posts', { handle: 'a', max_pages: '9' }, /'max_pages' must be at most 5/],
    ['integer', 'profile/posts', { handle: 'a', max_pages: '2.5' }, /whole number/],
    ['shared range', 'profile', { handle: 'a', max_pages: '6' }, /'max_pages' must be at most 5/],
    ['shared enum', 'profile', { handle: 'a', judgments: 'maybe' }, /'judgments' must be one of on, off/],
    ['shared length', 'profile', { handle: 'a', brand: 'b'.repeat(301) }, /'brand' is limited to 300 characters/],
    ['unavailable', 'post/likers', { url: 'u' }, /cannot be called through the API/],
    ['unknown endpoint', 'nope', {}, /Unknown endpoint 'nope' on photo_net/],
  ];
  for (const [name, endpoint, params, re] of cases) {
    it(`rejects ${name} before spending, with one sentence`, async () => {
      const { core, api } = await setup(() => okProfile());
      const v = await core.validate({ platform: 'photo_net', endpoint, params });
      expect(v.ok).toBe(false);
      if (!v.ok) expect(v.message).toMatch(re);
      const e = (await core.call({ platform: 'photo_net', endpoint, params }).catch((x: unknown) => x)) as ApiError;
      expect(e.kind).toBe('validation');
      expect(exitCodeFor(e)).toBe(2);
      expect(api.dataRequests()).toHaveLength(0);
    });
  }

  it('sends parameters an entry does not list (shared and judgment parameters need not be repeated); the service decides', async () => {
    const { core, api } = await setup(() => okProfile());
    const v = await core.validate({ platform: 'photo_net', endpoint: 'profile', params: { handle: 'a', since: '2024-01-01', label: 'quality', colour: 'red' } });
    expect(v.ok).toBe(true);
    await core.call({ platform: 'photo_net', endpoint: 'profile', params: { handle: 'a', judgments: 'off' } });
    expect(api.dataRequests()[0].query.judgments).toBe('off');
  });

  it('warns (and still sends) when mention labels are asked without a brand', async () => {
    const { core } = await setup(() => okProfile());
    const warnings: string[] = [];
    core.events.on('warning', (w) => warnings.push(w.code));
    await core.call({ platform: 'photo_net', endpoint: 'profile', params: { handle: 'a', label: 'mention' } });
    expect(warnings).toEqual(['label_mention_needs_brand']);
  });

  it('accepts a valid call and rejects an unknown network', async () => {
    const { core } = await setup(() => okProfile());
    expect((await core.validate({ platform: 'photo_net', endpoint: 'profile/reels', params: { user_id: '1', sort: 'recent' } })).ok).toBe(true);
    const v = await core.validate({ platform: 'fax_net', endpoint: 'x', params: {} });
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.message).toMatch(/^Unknown network 'fax_net'/);
  });
});

describe('estimates', () => {
  it('quotes with dry_run=1 (free, never from the archive)', async () => {
    const { core, api, store } = await setup((r) =>
      r.query.dry_run === '1'
        ? { body: okEnvelope('photo_net', 'profile/posts', { dry_run: { credits_min: 20, credits_max: 340 } }, { credits_used: 0 }) }
        : okProfile(),
    );
    const q = await core.quote({ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'a' } });
    expect(q).toMatchObject({ credits_min: 20, credits_max: 340 });
    expect(api.dataRequests()[0].query).toEqual({ handle: 'a', dry_run: '1' });
    expect(api.dataRequests()[0].headers['cache-control']).toBeUndefined();
    await core.quote({ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'a' } });
    expect(api.dataRequests()).toHaveLength(2); // a quote is never answered from the archive
    expect(store.ledger[0].dryRun).toBe(true);
    expect(store.responses).toHaveLength(0);
  });

  it('reads a label estimate', async () => {
    const est = { rows_expected: 12, rows_cached: 2, label_credits_min: 5, label_credits_max: 30, base_credits: 20 };
    const { core } = await setup(() => ({ body: okEnvelope('photo_net', 'profile/posts', { estimate: est }, { credits_used: 0 }) }));
    const q = await core.quote({ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'a', label: 'quality' } });
    expect(q).toMatchObject({ credits_min: 25, credits_max: 50, estimate: est });
  });

  it('estimates a walk from catalogue prices × pages × max_pages', async () => {
    const { core, api } = await setup(() => okProfile());
    const e = await core.estimateWalk({ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'a', max_pages: '2' } }, { pages: 5 });
    expect(e).toMatchObject({ creditsMin: 200, creditsMax: 3400, requests: 5 });
    expect(e.etaMs).toBeGreaterThan(0);
    expect(api.dataRequests()).toHaveLength(0);
  });
});

describe('secrecy', () => {
  it('keeps the key out of logs, errors and every stored row', async () => {
    let n = 0;
    const { core, store, logs } = await setup(() =>
      ++n % 2 === 1 ? { status: 503, body: errEnvelope('UPSTREAM_ERROR', `upstream ${TEST_KEY}`), headers: { 'retry-after': '1' } } : okProfile(),
    );
    await core.call(profile);
    await core.call({ ...profile, params: { handle: 'b' } });
    const e = await core.call({ ...profile, params: { handle: 'c' } }, { fresh: true }).catch((x: unknown) => x);
    void e;
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.join('\n')).not.toContain(TEST_KEY);
    expect(JSON.stringify({ j: store.journal, l: store.ledger, r: store.responses, w: [...store.walks.values()] })).not.toContain(TEST_KEY);
  });
});

describe('exitCodeFor', () => {
  it('maps outcomes to exit codes', () => {
    expect(exitCodeFor(undefined)).toBe(0);
    expect(exitCodeFor(new ApiError({ kind: 'validation', message: 'x' }))).toBe(2);
    expect(exitCodeFor(new ApiError({ kind: 'api', status: 404, message: 'x' }))).toBe(3);
    expect(exitCodeFor(new ApiError({ kind: 'gave_up', message: 'x' }))).toBe(4);
    expect(exitCodeFor(new ApiError({ kind: 'network', message: 'x' }))).toBe(4);
    expect(exitCodeFor(new ApiError({ kind: 'local_budget', message: 'x' }))).toBe(5);
    expect(exitCodeFor(new ApiError({ kind: 'insufficient_local', message: 'x' }))).toBe(5);
    expect(exitCodeFor(new Error('x'))).toBe(1);
  });
});

describe('journal reuse', () => {
  it('gives a failed opKey a new Idempotency-Key under the same callId', async () => {
    let n = 0;
    const { core, api, store } = await setup(() => (++n === 1 ? { status: 404, body: errEnvelope('RESOURCE_NOT_FOUND') } : okProfile()));
    await core.call(profile, { opKey: 'op:x' }).catch(() => undefined);
    const r = await core.call(profile, { opKey: 'op:x' });
    const keys = api.dataRequests().map((q) => q.headers['idempotency-key']);
    expect(keys[0]).not.toBe(keys[1]);
    expect(store.journal).toHaveLength(1);
    expect(store.journal[0]).toMatchObject({ callId: r.callId, state: 'done', idempotencyKey: keys[1] });
  });
});

describe('pacing and catalogue cache', () => {
  it('counts every attempt, retries included, in the pacer', async () => {
    let n = 0;
    const { core } = await setup(() => (++n <= 2 ? { status: 500, body: errEnvelope('INTERNAL_ERROR') } : okProfile()));
    await core.call(profile);
    expect(core.pacer.stats().totalStarts).toBe(3);
    expect(core.pacer.stats().inFlight).toBe(0);
  });

  it('persists the catalogue to a file and loads it from there after a restart', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'loupe-cat-'));
    try {
      const file = join(dir, 'catalogue.json');
      const { api } = await setup(() => okProfile());
      const c1 = createApiCore({ baseUrl: api.url, getKey: () => TEST_KEY, store: new MemoryStore(), clock: new InstantClock(), catalogueFile: file });
      await c1.catalogue.load();
      const c2 = createApiCore({ baseUrl: api.url, getKey: () => TEST_KEY, store: new MemoryStore(), clock: new InstantClock(), catalogueFile: file });
      const cat = await c2.catalogue.load();
      expect(cat.endpoints.length).toBe(testCatalogue().endpoints.length);
      expect(api.requests.filter((r) => r.path === 'endpoints')).toHaveLength(1);
      await c2.catalogue.load({ force: true });
      expect(api.requests.filter((r) => r.path === 'endpoints')).toHaveLength(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
