/** The request core's idempotency journal, archive-first answers and the hold check. */
import { describe, expect, it } from 'vitest';
import { createApiCore } from './core';
import { ApiError, exitCodeFor } from './errors';
import {
  InstantClock,
  MemoryStore,
  TEST_KEY,
  errEnvelope,
  okEnvelope,
  startFakeApi,
  testCatalogue,
  coreSetup,
  okProfile,
  profileCall as profile,
} from './test-helpers';

const harness = coreSetup();
const { setup } = harness;

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
      body: okEnvelope(
        'photo_net',
        'profile',
        { profile: { id: '1' } },
        { idempotent_replay: true, charge_reason: 'replay', credits_used: 0 },
      ),
    }));
    const r = await core.call(profile);
    expect(r.creditsUsed).toBe(0);
    expect(store.ledger[0]).toMatchObject({ idempotentReplay: true, chargeReason: 'replay', creditsUsed: 0 });
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
  it('refuses locally when the hold exceeds the balance, read again before refusing', async () => {
    let balance = 300;
    const { core, api, store } = await setup(
      () => okProfile(),
      {},
      () => ({ success: true, credits_remaining: balance }),
    );
    store.setBalance(300, 1);
    const e = (await core
      .call({ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'a' } })
      .catch((x: unknown) => x)) as ApiError;
    expect(e.kind).toBe('insufficient_local');
    expect(e.message).toBe('Out of credits: this call holds 340, balance is 300; nothing was sent.');
    expect(exitCodeFor(e)).toBe(5);
    expect(api.dataRequests()).toHaveLength(0);
    // max_pages multiplies the hold: 20 × 5 = 100 ≤ 300 would pass for a fixed price; metered 340 × 1 fails
    balance = 50;
    store.setBalance(50, 2);
    const e2 = (await core.call({ ...profile, params: { handle: 'z' } }).catch((x: unknown) => x)) as ApiError | { fromArchive: boolean };
    expect(e2).not.toBeInstanceOf(ApiError); // 20 ≤ 50
  });

  it('does not refuse on a stale balance: a top-up since the last answer is read (free) before refusing', async () => {
    // the app knew 50; the account was topped up to 5 000 since (issue 24 #7)
    const { core, api, store } = await setup(
      () => ({ body: okEnvelope('photo_net', 'profile/posts', { items: [] }, { credits_used: 20, credits_remaining: 4980 }) }),
      {},
      () => ({ success: true, credits_remaining: 5000 }),
    );
    store.setBalance(50, 1);
    const r = await core.call({ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'topped' } });
    expect(r.creditsUsed).toBe(20);
    expect(api.dataRequests()).toHaveLength(1);
    expect(core.balance()).toBe(4980);
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
    // both are held (at the service) before the third asks
    while (api.dataRequests().length < 2) await new Promise((r) => setTimeout(r, 5));
    const c = (await core.call({ ...profile, params: { handle: 'c' } }).catch((x: unknown) => x)) as ApiError;
    expect(c.kind).toBe('insufficient_local');
    expect(c.message).toContain('40 more held by calls in flight');
    release();
    await Promise.all([a, b]);
    expect(api.dataRequests()).toHaveLength(2);
  });

  it('asks /v1/credits first when the balance is unknown', async () => {
    const api = (harness.api = await startFakeApi({
      catalogue: testCatalogue(),
      handle: () => okProfile(),
      credits: () => ({ success: true, credits_remaining: 10 }),
    }));
    const store = new MemoryStore();
    const core = createApiCore({ baseUrl: api.url, getKey: () => TEST_KEY, store, clock: new InstantClock() });
    const e = (await core.call(profile).catch((x: unknown) => x)) as ApiError;
    expect(e.kind).toBe('insufficient_local');
    expect(api.requests.some((r) => r.path === 'credits' && r.headers['x-api-key'] === TEST_KEY)).toBe(true);
    expect(api.dataRequests()).toHaveLength(0);
  });
});
