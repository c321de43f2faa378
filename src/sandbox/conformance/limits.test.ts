import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../server/start';
import { fixtureSandbox, get } from './helpers';

let sb: SandboxHandle;
afterEach(() => sb.close());

const P = '/v1/thread_net/profile?handle=';

describe('Limits', () => {
  it('Limits › 60 requests per sliding 60 s → 429 RATE_LIMITED with Retry-After (credits_remaining null, free)', async () => {
    sb = await fixtureSandbox({ balance: 100_000 });
    for (let i = 0; i < 60; i++) expect((await get(sb, `${P}u${i}`)).status).toBe(200);
    const bal = sb.admin.balance();
    const r = await get(sb, `${P}x`);
    expect(r.status).toBe(429);
    expect(r.body).toMatchObject({ success: false, error: { type: 'RATE_LIMITED' }, credits_used: 0, credits_remaining: null });
    const ra = Number(r.headers.get('retry-after'));
    expect(ra).toBeGreaterThanOrEqual(1);
    expect(ra).toBeLessThanOrEqual(60);
    expect(sb.admin.balance()).toBe(bal);
  });

  it('Errors 5 › Retry-After is the time until the oldest request leaves the window (real seconds = sandbox ÷ time scale)', async () => {
    sb = await fixtureSandbox({ timeScale: 10 });
    for (let i = 0; i < 60; i++) await get(sb, `${P}u${i}`);
    const r = await get(sb, `${P}x`);
    expect(r.status).toBe(429);
    // ≤ 60 sandbox s at ×10 = at most 6 real seconds
    const ra = Number(r.headers.get('retry-after'));
    expect(ra).toBeGreaterThanOrEqual(1);
    expect(ra).toBeLessThanOrEqual(6);
    expect(r.headers.get('x-sandbox-time-scale')).toBe('10');
    sb.admin.advance(60);
    expect((await get(sb, `${P}y`)).status).toBe(200);
  });

  it('Limits › the window slides: after the oldest leaves, exactly one more request fits', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    await get(sb, `${P}first`);
    sb.admin.advance(30);
    for (let i = 0; i < 59; i++) await get(sb, `${P}u${i}`);
    expect((await get(sb, `${P}over`)).status).toBe(429);
    sb.admin.advance(31); // first request left; the other 59 are still inside
    expect((await get(sb, `${P}one`)).status).toBe(200);
    expect((await get(sb, `${P}two`)).status).toBe(429);
  });

  it('Limits 1 › 402/404/405/400 count; credits, endpoints, bare /v1 and bad keys do not; refused 429s do not', async () => {
    sb = await fixtureSandbox({ balance: 0, timeScale: 0.001 });
    const counted = [
      '/v1/photo_net/profile/posts?handle=a', // 402
      '/v1/nope/x', // 404
      '/v1/social_net/group?url=x', // 405
      '/v1/thread_net/profile', // 400
    ];
    const statuses = [];
    for (let i = 0; i < 15; i++) for (const p of counted) statuses.push((await get(sb, p)).status);
    expect(new Set(statuses)).toEqual(new Set([402, 404, 405, 400]));
    for (let i = 0; i < 30; i++) {
      await get(sb, '/v1/credits');
      await get(sb, '/v1/endpoints', { key: null });
      await get(sb, '/v1', { key: null });
      await get(sb, P + 'a', { key: 'wrong' });
    }
    const r = await get(sb, '/v1/nope/x');
    expect(r.status).toBe(429);
    expect(r.body.error.type).toBe('RATE_LIMITED');
    expect(sb.admin.stats().counted).toBe(60);
  });

  it('Limits › rate limits are per key; the balance is per account', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    for (let i = 0; i < 60; i++) await get(sb, `${P}u${i}`);
    expect((await get(sb, `${P}z`)).status).toBe(429);
    const k2 = sb.admin.createKey('other');
    const r = await get(sb, `${P}z`, { key: k2 });
    expect(r.status).toBe(200);
    expect(r.body.credits_remaining).toBe(sb.admin.balance());
  });

  it('Limits › more than 10 in flight on a key → 429 CONCURRENCY_LIMIT with Retry-After 1', async () => {
    sb = await fixtureSandbox({ latencyMs: 300 });
    const rs = await Promise.all(Array.from({ length: 13 }, (_, i) => get(sb, `${P}c${i}`)));
    const limited = rs.filter((r) => r.status === 429);
    expect(rs.filter((r) => r.status === 200)).toHaveLength(10);
    expect(limited).toHaveLength(3);
    for (const r of limited) {
      expect(r.body.error.type).toBe('CONCURRENCY_LIMIT');
      expect(r.headers.get('retry-after')).toBe('1');
      expect(r.body.credits_remaining).toBeNull();
    }
    // a slot frees as soon as a request returns
    expect((await get(sb, `${P}after`)).status).toBe(200);
  });

  it('Pagination 8 › a max_pages walk takes one rate-limit slot', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    const r = await get(sb, '/v1/micro_net/user/tweets?handle=alice&max_pages=5');
    expect(r.status).toBe(200);
    expect(sb.admin.stats().counted).toBe(1);
  });
});
