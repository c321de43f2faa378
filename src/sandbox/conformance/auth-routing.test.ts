import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../server/start';
import { fixtureSandbox, get } from './helpers';

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await fixtureSandbox({ balance: 5000 });
});
afterAll(() => sb.close());

const P = '/v1/thread_net/profile?handle=alice';

describe('Authentication', () => {
  it('Authentication 4 › keys are <prefix>_live_ + 43 URL-safe chars; new keys work and share the account', async () => {
    expect(sb.key).toMatch(/^sdr_live_[A-Za-z0-9_-]{43}$/);
    const k2 = sb.admin.createKey('second');
    expect(k2).toMatch(/^sdr_live_[A-Za-z0-9_-]{43}$/);
    expect(k2).not.toBe(sb.key);
    const r = await get(sb, '/v1/credits', { key: k2 });
    expect(r.status).toBe(200);
    expect(r.body.credits_remaining).toBe(sb.admin.balance());
  });

  it('Authentication 2 › Authorization: Bearer counts as no key → 401 MISSING_API_KEY, credits_remaining null', async () => {
    const r = await get(sb, P, { key: null, headers: { Authorization: `Bearer ${sb.key}` } });
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ success: false, error: { type: 'MISSING_API_KEY' }, credits_used: 0, credits_remaining: null });
    expect(r.body.request_id).toBe(r.headers.get('x-request-id'));
  });

  it('Authentication › malformed and unknown keys → 401 INVALID_API_KEY', async () => {
    const a = await get(sb, P, { key: 'not-a-key' });
    const b = await get(sb, P, { key: `sdr_live_${'A'.repeat(43)}` });
    for (const r of [a, b]) {
      expect(r.status).toBe(401);
      expect(r.body.error.type).toBe('INVALID_API_KEY');
      expect(r.body.credits_remaining).toBeNull();
    }
  });

  it('Authentication 8 › a revoked key fails on the next request with 401 API_KEY_REVOKED', async () => {
    const k = sb.admin.createKey('to-revoke');
    expect((await get(sb, P, { key: k })).status).toBe(200);
    sb.admin.revokeKey(k);
    const r = await get(sb, P, { key: k });
    expect(r.status).toBe(401);
    expect(r.body.error.type).toBe('API_KEY_REVOKED');
  });

  it('Authentication 10 / Limits 1 › auth failures cost nothing and are not counted or billed', async () => {
    const before = sb.admin.stats().counted;
    const bal = sb.admin.balance();
    for (let i = 0; i < 5; i++) await get(sb, P, { key: 'bad' });
    expect(sb.admin.stats().counted).toBe(before);
    expect(sb.admin.balance()).toBe(bal);
  });

  it('Limits (Keys) › at most 25 active keys per account', () => {
    const acct = sb.admin.createAccount({ balance: 10 });
    for (let i = 0; i < 25; i++) sb.admin.createKey(`k${i}`, acct);
    expect(() => sb.admin.createKey('k25', acct)).toThrow(/25/);
  });

  it('Authentication 5 › only hashes are kept: the ledger carries a SHA-256 key hash, never the key', async () => {
    await get(sb, P);
    const c = sb.admin.charges().at(-1)!;
    expect(c.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(c.key_hash).toBe(sb.admin.keyHash(sb.key));
    expect(JSON.stringify(sb.admin.charges())).not.toContain(sb.key);
  });
});

describe('Routing and meta endpoints', () => {
  it('Errors › unknown network → 404 UNKNOWN_PLATFORM speaking of networks; free', async () => {
    const r = await get(sb, '/v1/nope_net/profile?handle=a');
    expect(r.status).toBe(404);
    expect(r.body.error.type).toBe('UNKNOWN_PLATFORM');
    expect(r.body.error.message).toMatch(
      /photo, short-video, social, professional, microblog, thread, long-video, forum and pinboard networks/,
    );
    expect(r.body.credits_used).toBe(0);
    expect(typeof r.body.credits_remaining).toBe('number');
  });

  it('Errors › known network, unknown path → 404 UNKNOWN_ENDPOINT', async () => {
    const r = await get(sb, '/v1/photo_net/nothing/here');
    expect(r.status).toBe(404);
    expect(r.body.error.type).toBe('UNKNOWN_ENDPOINT');
  });

  it('Errors › catalogue entry that cannot be called → 405 METHOD_NOT_SUPPORTED; non-GET → 405', async () => {
    const a = await get(sb, '/v1/social_net/group?url=x');
    expect(a.status).toBe(405);
    expect(a.body.error.type).toBe('METHOD_NOT_SUPPORTED');
    const b = await get(sb, P, { method: 'POST' });
    expect(b.status).toBe(405);
    expect(b.body.error.type).toBe('METHOD_NOT_SUPPORTED');
  });

  it('Errors › a missing or unknown parameter → 400, free', async () => {
    const bal = sb.admin.balance();
    const a = await get(sb, '/v1/thread_net/profile');
    const b = await get(sb, '/v1/thread_net/profile?handle=a&bogus=1');
    expect(a.status).toBe(400);
    expect(b.status).toBe(400);
    expect(a.body.credits_used).toBe(0);
    expect(sb.admin.balance()).toBe(bal);
  });

  it('Authentication 11 › GET /v1/endpoints and /v1/openapi.json need no key and are free', async () => {
    const a = await get(sb, '/v1/endpoints', { key: null });
    expect(a.status).toBe(200);
    expect(a.body.success).toBe(true);
    const b = await get(sb, '/v1/openapi.json', { key: null });
    expect(b.status).toBe(200);
    expect(b.body.info.version).toBe('2.0.0');
  });

  it('Meta endpoints › /v1/credits needs a key, is free and uncounted; bare /v1 is uncounted', async () => {
    expect((await get(sb, '/v1/credits', { key: null })).status).toBe(401);
    const before = sb.admin.stats().counted;
    const c = await get(sb, '/v1/credits');
    expect(c.status).toBe(200);
    expect(c.body).toMatchObject({ success: true, credits_remaining: sb.admin.balance(), free_calls_remaining: 0 });
    expect(typeof c.body.credits_used_period).toBe('number');
    const v = await get(sb, '/v1');
    expect(v.status).toBe(200);
    expect(v.body.schema_version).toBe('2');
    expect(sb.admin.stats().counted).toBe(before);
  });
});

describe('Response envelope', () => {
  it('Response envelope › every field, request_id echoed in X-Request-Id', async () => {
    const r = await get(sb, '/v1/photo_net/profile/posts?handle=alice');
    expect(r.status).toBe(200);
    const b = r.body;
    expect(Object.keys(b)).toEqual(
      expect.arrayContaining([
        'success',
        'platform',
        'endpoint',
        'schema_version',
        'pagination',
        'unavailable',
        'credits_used',
        'credits_remaining',
        'request_id',
        'cached',
        'idempotent_replay',
        'charge_reason',
        'free_call',
        'data',
      ]),
    );
    expect(b).toMatchObject({
      success: true,
      platform: 'photo_net',
      endpoint: '/v1/photo_net/profile/posts',
      schema_version: '2',
      cached: false,
      idempotent_replay: false,
      charge_reason: 'miss',
      free_call: false,
    });
    expect(b.unavailable).toEqual(['engagement.shares']);
    expect(b.request_id).toBe(r.headers.get('x-request-id'));
    expect(r.headers.get('x-sandbox-time-scale')).toBe('1');
    expect(b.data).toMatchObject({ total: 5, truncated: true, ext: {} });
    expect(b.pagination).toMatchObject({ has_more: true, page_size: 5 });
    expect(b.pagination.stopped_at).toBeUndefined();
    expect(b.credits_remaining).toBe(sb.admin.balance());
  });

  it('Response envelope › a single-record endpoint has data.<key> and no pagination', async () => {
    const r = await get(sb, '/v1/thread_net/profile?handle=zed');
    expect(r.body.data.profile).toMatchObject({ id: '777', name: 'zed' });
    expect(r.body.pagination).toBeUndefined();
    expect(r.body.credits_used).toBe(20);
  });

  it('Errors › RESOURCE_NOT_FOUND is 404, free; transcript no_speech carries the reason', async () => {
    const bal = sb.admin.balance();
    const a = await get(sb, '/v1/thread_net/profile?handle=missing');
    expect(a.status).toBe(404);
    expect(a.body.error.type).toBe('RESOURCE_NOT_FOUND');
    const b = await get(sb, '/v1/video_net_b/video/transcript?url=nospeech');
    expect(b.status).toBe(404);
    expect(b.body.error.reason).toBe('no_speech');
    expect(sb.admin.balance()).toBe(bal);
  });
});
