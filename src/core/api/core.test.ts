/** The request core: the client (key handling, paths), validation, estimates, secrecy, exit codes, pacing and the catalogue cache. Retries: core-retry.test.ts; idempotency, archive-first and holds: core-idempotency.test.ts. */
import { describe, expect, it } from 'vitest';
import { createApiCore } from './core';
import { ApiError, exitCodeFor } from './errors';
import {
  InstantClock,
  MemoryStore,
  TEST_KEY,
  errEnvelope,
  okEnvelope,
  testCatalogue,
  coreSetup,
  okProfile,
  profileCall as profile,
} from './test-helpers';

const { setup } = coreSetup();

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
    expect(store.ledger[0]).toMatchObject({
      status: 200,
      creditsUsed: 20,
      creditsRemaining: 9980,
      source: 'profile',
      idempotencyKey: req.headers['idempotency-key'],
      params: '{"handle":"alice"}',
    });
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
    const v = await core.validate({
      platform: 'photo_net',
      endpoint: 'profile',
      params: { handle: 'a', since: '2024-01-01', label: 'quality', colour: 'red' },
    });
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
    expect((await core.validate({ platform: 'photo_net', endpoint: 'profile/reels', params: { user_id: '1', sort: 'recent' } })).ok).toBe(
      true,
    );
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
    const e = await core.estimateWalk(
      { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'a', max_pages: '2' } },
      { pages: 5 },
    );
    expect(e).toMatchObject({ creditsMin: 200, creditsMax: 3400, requests: 5 });
    expect(e.etaMs).toBeGreaterThan(0);
    expect(api.dataRequests()).toHaveLength(0);
  });
});

describe('secrecy', () => {
  it('keeps the key out of logs, errors and every stored row', async () => {
    let n = 0;
    const { core, store, logs } = await setup(() =>
      ++n % 2 === 1
        ? { status: 503, body: errEnvelope('UPSTREAM_ERROR', `upstream ${TEST_KEY}`), headers: { 'retry-after': '1' } }
        : okProfile(),
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
      const c1 = createApiCore({
        baseUrl: api.url,
        getKey: () => TEST_KEY,
        store: new MemoryStore(),
        clock: new InstantClock(),
        catalogueFile: file,
      });
      await c1.catalogue.load();
      const c2 = createApiCore({
        baseUrl: api.url,
        getKey: () => TEST_KEY,
        store: new MemoryStore(),
        clock: new InstantClock(),
        catalogueFile: file,
      });
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
