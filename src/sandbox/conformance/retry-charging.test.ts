/**
 * "Idempotency retry charging", "Errors 4" (holds) and "Limits 7" (cache, no-cache) on the
 * default reading: what a retry of an undelivered call costs, with the same key or a fresh one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../server/start';
import { fixtureSandbox, get } from './helpers';

let sb: SandboxHandle;
afterEach(() => sb.close());

const POSTS = '/v1/photo_net/profile/posts?handle=alice'; // 20-340 per page, page size 5
const COMMENTS = '/v1/photo_net/post/comments?url=u'; // 100-380, scan_pages
const FULL = '/v1/photo_net/profile/posts/full?handle=alice'; // 100-500, collect-until-N limit
const idem = (k: string, extra: Record<string, string> = {}) => ({ headers: { 'Idempotency-Key': k, ...extra } });

/** Lose the answer of one call (scripted drop): undelivered, 499 in the ledger. */
async function lose(path: string, key?: string, extra: Record<string, string> = {}): Promise<void> {
  sb.admin.queueFaults([{ kind: 'drop' }]);
  await expect(get(sb, path, key ? idem(key, extra) : { headers: extra })).rejects.toThrow();
  expect(sb.admin.charges().at(-1)).toMatchObject({ status: 499, credits_used: 0 });
}

async function until(cond: () => boolean, ms = 2000): Promise<void> {
  const t = Date.now();
  while (!cond()) {
    if (Date.now() - t > ms) throw new Error('timed out waiting for the server');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('Idempotency retry charging', () => {
  it('same key after an undelivered original › miss at the ceiling: metered top × scan_pages', async () => {
    sb = await fixtureSandbox();
    await lose(`${COMMENTS}&scan_pages=3`, 'scan');
    const r = await get(sb, `${COMMENTS}&scan_pages=3`, idem('scan'));
    expect(r.body).toMatchObject({ charge_reason: 'miss', credits_used: 380 * 3, idempotent_replay: false });
    // the same call unkeyed costs its actual use: 3 pages at the floor
    const plain = await get(sb, `${COMMENTS}&scan_pages=3`, { headers: { 'Cache-Control': 'no-cache' } });
    expect(plain.body.credits_used).toBe(300);
  });

  it('same key after an undelivered original › miss at the ceiling: metered top × the pages a collect-until-N limit may read', async () => {
    sb = await fixtureSandbox();
    await lose(`${FULL}&limit=12`, 'collect');
    const r = await get(sb, `${FULL}&limit=12`, idem('collect'));
    expect(r.body).toMatchObject({ charge_reason: 'miss', credits_used: 500 * 3 });
    expect(r.body.data.items).toHaveLength(12);
    const plain = await get(sb, `${FULL}&limit=12`, { headers: { 'Cache-Control': 'no-cache' } });
    expect(plain.body.credits_used).toBe(300);
  });

  it('same key after an undelivered original › 0 when the exact call is owned inside its cache window; the ceiling again after the window', async () => {
    sb = await fixtureSandbox();
    await lose(POSTS, 'own-1');
    await lose(POSTS, 'own-2');
    expect((await get(sb, POSTS)).body.credits_used).toBe(20); // now owned
    expect((await get(sb, POSTS, idem('own-1'))).body).toMatchObject({ cached: true, credits_used: 0 });
    sb.admin.advance(21_600); // the 6 h window ends
    expect((await get(sb, POSTS, idem('own-2'))).body).toMatchObject({ cached: false, charge_reason: 'miss', credits_used: 340 });
  });

  it("same key after an undelivered original › 0 when the retry returns nothing (no rows, even if the caller's filters emptied the page)", async () => {
    sb = await fixtureSandbox();
    const EMPTIED = `${POSTS}&since=2030-01-01`;
    await lose(EMPTIED, 'nothing');
    const r = await get(sb, EMPTIED, idem('nothing'));
    expect(r.body.data.items).toEqual([]);
    expect(r.body.credits_used).toBe(0);
    // unkeyed, a page emptied by the caller's own filter still costs a page (default reading)
    expect((await get(sb, EMPTIED, { headers: { 'Cache-Control': 'no-cache' } })).body.credits_used).toBe(20);
  });

  it('a client that cancels before the answer (socket closed) is undelivered: 499, not charged, the concurrency slot frees, the same-key retry pays the ceiling', async () => {
    sb = await fixtureSandbox({ latencyMs: 120 });
    const ac = new AbortController();
    const p = fetch(`${sb.url}${POSTS}`, { headers: { 'x-api-key': sb.key, 'Idempotency-Key': 'cancel' }, signal: ac.signal });
    setTimeout(() => ac.abort(), 30);
    await expect(p).rejects.toThrow();
    await until(() => sb.admin.charges().length === 1, 3000);
    expect(sb.admin.charges()[0]).toMatchObject({ status: 499, error_type: 'CLIENT_CLOSED_REQUEST', credits_used: 0 });
    expect(sb.admin.balance()).toBe(10_000);
    expect(sb.admin.stats().in_flight).toBe(0);
    const retry = await get(sb, POSTS, idem('cancel'));
    expect(retry.body).toMatchObject({ charge_reason: 'miss', credits_used: 340 });
    // the delivered retry owns the call now
    expect((await get(sb, POSTS, idem('after'))).body).toMatchObject({ cached: true, credits_used: 0 }); // owned through the retry
  });

  it('a FRESH key after an undelivered original › charged normally (the actual per-page price)', async () => {
    sb = await fixtureSandbox();
    await lose(POSTS, 'first');
    const r = await get(sb, POSTS, idem('second'));
    expect(r.body).toMatchObject({ charge_reason: 'miss', credits_used: 20, cached: false });
    const unkeyed = await lose('/v1/photo_net/profile/posts?handle=bob').then(() => get(sb, '/v1/photo_net/profile/posts?handle=bob'));
    expect(unkeyed.body.credits_used).toBe(20);
  });

  it('a FRESH key after an undelivered original › free when the exact call is already owned inside its cache window', async () => {
    sb = await fixtureSandbox();
    expect((await get(sb, POSTS)).body.credits_used).toBe(20);
    await lose(POSTS, 'k1'); // a cache read whose answer was lost
    const r = await get(sb, POSTS, idem('k2'));
    expect(r.body).toMatchObject({ cached: true, charge_reason: 'cached', credits_used: 0 });
    expect(sb.admin.balance()).toBe(10_000 - 20);
  });
});

describe('Request headers (Cache-Control: no-cache)', () => {
  it('no-cache is always charged: owned call, fresh key, and a same-key retry of an undelivered call (the ceiling, even though owned)', async () => {
    sb = await fixtureSandbox();
    await get(sb, POSTS);
    expect((await get(sb, POSTS, idem('nc-1', { 'Cache-Control': 'no-cache' }))).body).toMatchObject({ cached: false, credits_used: 20 });
    await lose(POSTS, 'nc-2', { 'Cache-Control': 'no-cache' });
    expect((await get(sb, POSTS, idem('nc-2', { 'Cache-Control': 'no-cache' }))).body).toMatchObject({
      cached: false,
      charge_reason: 'miss',
      credits_used: 340,
    });
  });
});

describe('Errors 4 (holds)', () => {
  it('the hold counts scan_pages and collect-until-N pages: 402 below it, quoted by dry_run', async () => {
    sb = await fixtureSandbox({ balance: 1139 });
    const a = await get(sb, `${COMMENTS}&scan_pages=3`);
    expect(a.status).toBe(402);
    expect(a.body.error.message).toMatch(/1140/);
    sb.admin.setBalance(1140);
    expect((await get(sb, `${COMMENTS}&scan_pages=3`)).status).toBe(200);
    sb.admin.setBalance(1499);
    const b = await get(sb, `${FULL}&limit=12`);
    expect(b.status).toBe(402);
    expect(b.body.error.message).toMatch(/1500/);
    expect((await get(sb, `${FULL}&limit=12&dry_run=1`)).body.data.dry_run).toEqual({ credits_min: 300, credits_max: 1500 });
    expect((await get(sb, `${FULL}&limit=5`)).status).toBe(200); // one page: hold 500
    sb.admin.setBalance(1500);
    expect((await get(sb, `${FULL}&limit=12`)).status).toBe(200);
  });
});
