import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../server/start';
import { fixtureSandbox, get } from './helpers';

let sb: SandboxHandle;
afterEach(() => sb.close());

const POSTS = '/v1/photo_net/profile/posts?handle=alice';
const SEARCH = '/v1/micro_net/search/tweets?query=coffee';

describe('Money', () => {
  it('Errors 4 › INSUFFICIENT_CREDITS when the balance is below the hold (metered top); message states both numbers', async () => {
    sb = await fixtureSandbox({ balance: 100 });
    const r = await get(sb, POSTS); // costs 20 but must hold 340
    expect(r.status).toBe(402);
    expect(r.body.error.type).toBe('INSUFFICIENT_CREDITS');
    expect(r.body.error.message).toMatch(/340/);
    expect(r.body.error.message).toMatch(/100/);
    expect(r.body.credits_remaining).toBe(100);
    expect(r.body.credits_used).toBe(0);
  });

  it('Pagination 8 › the hold is the listed maximum × max_pages', async () => {
    sb = await fixtureSandbox({ balance: 539 });
    const a = await get(sb, `${SEARCH}&max_pages=3`);
    expect(a.status).toBe(402);
    expect(a.body.error.message).toMatch(/540/);
    sb.admin.setBalance(540);
    const b = await get(sb, `${SEARCH}&max_pages=3`);
    expect(b.status).toBe(200);
  });

  it('Limits 5 › fixed price charges its price; metered charges actual use within [min, max]', async () => {
    sb = await fixtureSandbox();
    const f = await get(sb, '/v1/thread_net/profile?handle=a');
    expect(f.body.credits_used).toBe(20);
    const m = await get(sb, POSTS);
    expect(m.body.credits_used).toBe(20); // default judgments are free: the floor
    const l = await get(sb, `${POSTS}&label=quality`, { headers: { 'Cache-Control': 'no-cache' } });
    // 4 of 5 rows judged for the extra family (one row cannot be judged): 20 + 2×4
    expect(l.body.credits_used).toBe(28);
    expect(l.body.credits_used).toBeLessThanOrEqual(340);
    expect(l.body.data.labels.billed).toEqual(['quality']);
    expect(l.body.credits_remaining).toBe(10_000 - 20 - 20 - 28);
    expect(sb.admin.balance()).toBe(10_000 - 68);
  });

  it('Judgment parameters › rows already labelled for anyone are not billed again (another account, fresh call)', async () => {
    sb = await fixtureSandbox();
    await get(sb, `${POSTS}&label=quality`);
    const acct = sb.admin.createAccount({ balance: 1000, freeCalls: 0 });
    const k = sb.admin.createKey('b', acct);
    const r = await get(sb, `${POSTS}&label=quality`, { key: k, headers: { 'Cache-Control': 'no-cache' } });
    expect(r.body.credits_used).toBe(20);
    expect(r.body.data.labels.billed).toEqual([]);
  });

  it('What the service does 4 › empty results cost nothing', async () => {
    sb = await fixtureSandbox();
    const r = await get(sb, '/v1/photo_net/profile/posts?handle=empty');
    expect(r.status).toBe(200);
    expect(r.body.data.items).toEqual([]);
    expect(r.body.credits_used).toBe(0);
    expect(r.body.pagination).toMatchObject({ has_more: false, next_cursor: null });
    const t = await get(sb, '/v1/video_net_b/video/transcript?url=nocaptions');
    expect(t.body.data.transcript).toBeNull();
    expect(t.body.credits_used).toBe(0);
    expect(sb.admin.balance()).toBe(10_000);
  });

  it('Shared query parameters › dry_run=1 quotes min/max × max_pages, free; label-capable endpoints give data.estimate', async () => {
    sb = await fixtureSandbox({ balance: 1 });
    const a = await get(sb, `${SEARCH}&max_pages=3&dry_run=1`);
    expect(a.status).toBe(200);
    expect(a.body.data.dry_run).toEqual({ credits_min: 60, credits_max: 540 });
    expect(a.body.credits_used).toBe(0);
    const b = await get(sb, `${POSTS}&label=quality&dry_run=1`);
    expect(b.body.data.estimate).toMatchObject({
      rows_expected: 5,
      rows_cached: 0,
      label_credits_min: 0,
      label_credits_max: 320,
      base_credits: 20,
    });
    expect(sb.admin.balance()).toBe(1);
    expect(sb.admin.charges().every((c) => c.credits_used === 0)).toBe(true);
  });

  it('Limits (Introductory free calls) › the first 10 calls priced ≤ 100 are free calls (free_call true, credits_used 0)', async () => {
    sb = await fixtureSandbox({ freeCalls: 10 });
    const expensive = await get(sb, '/v1/qa_net/search?query=x'); // 150: not covered
    expect(expensive.body).toMatchObject({ free_call: false, credits_used: 150 });
    for (let i = 0; i < 10; i++) {
      const r = await get(sb, `/v1/thread_net/profile?handle=f${i}`);
      expect(r.body).toMatchObject({ free_call: true, credits_used: 0, charge_reason: 'miss' });
    }
    const eleventh = await get(sb, '/v1/thread_net/profile?handle=f10');
    expect(eleventh.body).toMatchObject({ free_call: false, credits_used: 20 });
    expect(sb.admin.balance()).toBe(10_000 - 170);
    expect((await get(sb, '/v1/credits')).body.free_calls_remaining).toBe(0);
  });

  it('Limits 7 › an exact repeat inside the cache window is free for the owner (cached true); after the window it is charged', async () => {
    sb = await fixtureSandbox();
    const a = await get(sb, POSTS);
    const b = await get(sb, POSTS);
    expect(b.body).toMatchObject({ cached: true, credits_used: 0 });
    expect(b.body.data).toEqual(a.body.data);
    expect(b.body.request_id).not.toBe(a.body.request_id);
    sb.admin.advance(21_600);
    const c = await get(sb, POSTS);
    expect(c.body).toMatchObject({ cached: false, credits_used: 20, charge_reason: 'miss' });
  });

  it('Limits 7 › a shared-cache answer costs 2 credits for an account that does not own it', async () => {
    sb = await fixtureSandbox();
    await get(sb, POSTS);
    const acct = sb.admin.createAccount({ balance: 100, freeCalls: 0 });
    const k = sb.admin.createKey('b', acct);
    const r = await get(sb, POSTS, { key: k });
    expect(r.body).toMatchObject({ cached: true, credits_used: 2, credits_remaining: 98 });
    const again = await get(sb, POSTS, { key: k });
    expect(again.body).toMatchObject({ cached: true, credits_used: 0 });
    // keys of the same account share ownership
    const k2 = sb.admin.createKey('c', acct);
    expect((await get(sb, POSTS, { key: k2 })).body.credits_used).toBe(0);
  });

  it('Request headers › Cache-Control: no-cache forces a fresh fetch and is always charged', async () => {
    sb = await fixtureSandbox();
    await get(sb, POSTS);
    const r = await get(sb, POSTS, { headers: { 'Cache-Control': 'no-cache' } });
    expect(r.body).toMatchObject({ cached: false, credits_used: 20, charge_reason: 'miss' });
  });

  it('Pagination 3 › re-walking pages inside the free window costs nothing', async () => {
    sb = await fixtureSandbox();
    const p1 = await get(sb, POSTS);
    const p2 = await get(sb, `${POSTS}&cursor=${encodeURIComponent(p1.body.pagination.next_cursor)}`);
    expect(p2.body.credits_used).toBe(20);
    const bal = sb.admin.balance();
    const q1 = await get(sb, POSTS);
    const q2 = await get(sb, `${POSTS}&cursor=${encodeURIComponent(q1.body.pagination.next_cursor)}`);
    expect([q1.body.cached, q2.body.cached]).toEqual([true, true]);
    expect(sb.admin.balance()).toBe(bal);
  });

  it('Errors › every error is free; the server ledger matches what responses reported', async () => {
    sb = await fixtureSandbox({ freeCalls: 2 });
    const seen: Array<{ id: string; used: number }> = [];
    for (const p of [
      POSTS,
      POSTS,
      '/v1/thread_net/profile?handle=q',
      '/v1/thread_net/profile?handle=missing',
      `${SEARCH}&max_pages=2`,
      '/v1/nope/x',
      `${POSTS}&label=quality`,
    ]) {
      const r = await get(sb, p);
      seen.push({ id: r.body.request_id, used: r.body.credits_used });
      if (r.status !== 200) expect(r.body.credits_used).toBe(0);
    }
    const ledger = sb.admin.charges();
    for (const s of seen) expect(ledger.find((c) => c.request_id === s.id)?.credits_used).toBe(s.used);
    const total = ledger.reduce((a, c) => a + c.credits_used, 0);
    expect(10_000 - sb.admin.balance()).toBe(total);
  });
});
