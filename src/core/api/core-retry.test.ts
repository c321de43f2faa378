/** The request core's retry policy: which answers are retried, under which Idempotency-Key, after lost answers, deadlines and refused connections. */
import { describe, expect, it } from 'vitest';
import { createApiCore } from './core';
import { ApiError, exitCodeFor } from './errors';
import {
  InstantClock,
  MemoryStore,
  TEST_KEY,
  errEnvelope,
  okEnvelope,
  postItems,
  coreSetup,
  okProfile,
  profileCall as profile,
} from './test-helpers';

const harness = coreSetup();
const { setup } = harness;

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
    const { core } = await setup(() =>
      ++n === 1 ? { status: 429, body: errEnvelope('RATE_LIMITED'), headers: { 'retry-after': '12' } } : okProfile(),
    );
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
    const e = (await core
      .call({ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'a' } })
      .catch((x: unknown) => x)) as ApiError;
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
    // the balance cannot be read here: the rule alone decides; no free call is left (else the
    // least the lost answer cost is 0: it is inferred only when a free call cannot have covered it)
    const { core, api, store } = await setup(
      () =>
        ++n === 1
          ? { drop: 'mid_body', body }
          : { body: { ...body, idempotent_replay: true, charge_reason: 'replay', credits_used: 0, credits_remaining: 9980 } },
      {},
      () => ({ success: true, free_calls_remaining: 0 }),
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
    const { core, api, clock } = await setup(
      () => ({ status: 429, body: errEnvelope('RATE_LIMITED'), headers: { 'retry-after': '86400' } }),
      { maxWaitMs: 300_000 },
    );
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
    const { core, store } = await setup(
      () => (++n === 1 ? { status: 429, body: errEnvelope('RATE_LIMITED'), headers: { 'retry-after': '86400' } } : okProfile()),
      { maxWaitMs: 60_000 },
    );
    await core.call(profile, { opKey: 'op:a' }).catch(() => undefined);
    await core.call({ ...profile, params: { handle: 'b' } }, { opKey: 'op:b' }).catch(() => undefined);
    expect(store.pendingJournal()).toHaveLength(0);
  });

  it('gives up after three attempts that each miss the deadline (a service that always trickles)', async () => {
    const { core, api } = await setup(() => ({ trickle: 40, body: okEnvelope('photo_net', 'profile', { profile: { id: '1' } }) }), {
      timeoutMs: 150,
    });
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
    harness.api = undefined;
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
    const { core, api, store } = await setup(() => ({
      body: okEnvelope('forum_net', 'search/comments', { items: postItems(['1']) }, { credits_used: 20 }),
    }));
    const { StorageError } = await import('../storage-error');
    const asFull = () =>
      new StorageError({
        kind: 'full',
        path: '/data/archive.sqlite',
        message: `Could not write the archive at /data/archive.sqlite: ${full.message}.`,
      });
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
