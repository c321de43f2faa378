import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../server/start';
import { fixtureSandbox, get, type Res } from './helpers';

let sb: SandboxHandle;
afterEach(() => sb.close());

const POSTS = '/v1/photo_net/profile/posts?handle=alice';
const idem = (k: string) => ({ headers: { 'Idempotency-Key': k } });

/** A call whose body may be cut off (chaos drop): null when the body never arrived whole. */
async function tryGet(path: string, opts: Parameters<typeof get>[2] = {}): Promise<Res | null> {
  try {
    return await get(sb, path, opts);
  } catch {
    return null;
  }
}

describe('Idempotency', () => {
  it('States (Keyed call) › a finished keyed call replays: idempotent_replay true, charge_reason replay, credits_used 0', async () => {
    sb = await fixtureSandbox();
    const a = await get(sb, POSTS, idem('op-1'));
    const b = await get(sb, POSTS, idem('op-1'));
    expect(a.body.credits_used).toBe(20);
    expect(b.body).toMatchObject({
      idempotent_replay: true,
      charge_reason: 'replay',
      credits_used: 0,
      credits_remaining: sb.admin.balance(),
    });
    expect(b.body.data).toEqual(a.body.data);
    expect(b.body.pagination).toEqual(a.body.pagination);
    expect(b.body.request_id).toBe(b.headers.get('x-request-id'));
    expect(sb.admin.balance()).toBe(10_000 - 20);
    expect(sb.admin.charges().at(-1)).toMatchObject({ replay: true, charge_reason: 'replay', credits_used: 0 });
  });

  it('States (Keyed call) › same key while the original runs → 409 IDEMPOTENCY_IN_PROGRESS with Retry-After', async () => {
    sb = await fixtureSandbox({ latencyMs: 300 });
    const [a, b] = await Promise.all([
      get(sb, POSTS, idem('op-2')),
      new Promise<Res>((r) => setTimeout(() => r(get(sb, POSTS, idem('op-2'))), 50)),
    ]);
    expect(a.status).toBe(200);
    expect(b.status).toBe(409);
    expect(b.body.error.type).toBe('IDEMPOTENCY_IN_PROGRESS');
    expect(Number(b.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(b.body.credits_used).toBe(0);
  });

  it('Request headers › an invalid Idempotency-Key (too long or bad characters) is ignored: the call runs normally', async () => {
    sb = await fixtureSandbox();
    for (const k of ['x'.repeat(256), 'has space', 'slash/no']) {
      await get(sb, '/v1/thread_net/profile?handle=i', idem(k));
      const again = await get(sb, '/v1/thread_net/profile?handle=i', { headers: { 'Idempotency-Key': k, 'Cache-Control': 'no-cache' } });
      expect(again.body).toMatchObject({ idempotent_replay: false, charge_reason: 'miss', credits_used: 20 });
    }
  });

  it('Request headers › Idempotency-Key is scoped to the account', async () => {
    sb = await fixtureSandbox();
    await get(sb, POSTS, idem('shared-key'));
    const acct = sb.admin.createAccount({ balance: 100, freeCalls: 0 });
    const other = await get(sb, POSTS, { key: sb.admin.createKey('b', acct), headers: { 'Idempotency-Key': 'shared-key' } });
    expect(other.body.idempotent_replay).toBe(false);
    expect(other.body.charge_reason).toBe('shared_cache');
    // another key of the SAME account replays
    const same = await get(sb, POSTS, { key: sb.admin.createKey('c'), headers: { 'Idempotency-Key': 'shared-key' } });
    expect(same.body.idempotent_replay).toBe(true);
  });

  it('Idempotency retry charging › a keyed call that ended in an error is not replayed; the retry runs as a normal call', async () => {
    sb = await fixtureSandbox();
    sb.admin.setChaos({ rate500: 1 });
    const a = await get(sb, POSTS, idem('op-err'));
    expect(a.status).toBe(500);
    sb.admin.setChaos(0);
    const b = await get(sb, POSTS, idem('op-err'));
    expect(b.body).toMatchObject({ idempotent_replay: false, charge_reason: 'miss', credits_used: 20 });
  });

  it('Idempotency retry charging › original never answered (body dropped): not charged; the keyed retry pays the reserved ceiling', async () => {
    sb = await fixtureSandbox();
    sb.admin.setChaos({ rateDrop: 1 });
    const lost = await tryGet(POSTS, idem('op-drop'));
    expect(lost).toBeNull();
    expect(sb.admin.balance()).toBe(10_000);
    expect(sb.admin.charges().at(-1)).toMatchObject({ status: 499, credits_used: 0, error_type: 'CLIENT_CLOSED_REQUEST' });
    sb.admin.setChaos(0);
    const retry = await get(sb, POSTS, idem('op-drop'));
    expect(retry.body).toMatchObject({ idempotent_replay: false, charge_reason: 'miss', credits_used: 340 });
    // and now it is finished: a further retry is a replay
    expect((await get(sb, POSTS, idem('op-drop'))).body.charge_reason).toBe('replay');
    // an unkeyed repeat of a dropped call is just a normal call
    sb.admin.setChaos({ rateDrop: 1 });
    expect(await tryGet('/v1/photo_net/profile/posts?handle=bob')).toBeNull();
    sb.admin.setChaos(0);
    expect((await get(sb, '/v1/photo_net/profile/posts?handle=bob')).body.credits_used).toBe(20);
  });

  it('Idempotency retry charging › ceiling × max_pages; 0 when already owned or the retry returns nothing; a free call can cover it', async () => {
    sb = await fixtureSandbox({ freeCalls: 0 });
    const S = '/v1/micro_net/search/tweets?query=tea&max_pages=2';
    sb.admin.setChaos({ rateDrop: 1 });
    expect(await tryGet(S, idem('w1'))).toBeNull();
    expect(await tryGet('/v1/photo_net/profile/posts?handle=empty', idem('w2'))).toBeNull();
    expect(await tryGet('/v1/photo_net/profile/posts?handle=carol', idem('w3'))).toBeNull();
    sb.admin.setChaos(0);
    expect((await get(sb, S, idem('w1'))).body.credits_used).toBe(360);
    expect((await get(sb, '/v1/photo_net/profile/posts?handle=empty', idem('w2'))).body.credits_used).toBe(0);
    await get(sb, '/v1/photo_net/profile/posts?handle=carol'); // now owned
    const owned = await get(sb, '/v1/photo_net/profile/posts?handle=carol', idem('w3'));
    expect(owned.body).toMatchObject({ cached: true, credits_used: 0 });
    sb.close();
    sb = await fixtureSandbox({ freeCalls: 1 });
    sb.admin.setChaos({ rateDrop: 1 });
    expect(await tryGet('/v1/thread_net/profile?handle=d', idem('w4'))).toBeNull();
    sb.admin.setChaos(0);
    expect((await get(sb, '/v1/thread_net/profile?handle=d', idem('w4'))).body).toMatchObject({ free_call: true, credits_used: 0 });
  });
});

describe('Chaos', () => {
  it('Errors › chaos 429 RATE_LIMITED carries Retry-After and credits_remaining null; never charged', async () => {
    sb = await fixtureSandbox({ chaos: { rate429: 1 } });
    const r = await get(sb, POSTS);
    expect(r.status).toBe(429);
    expect(r.body).toMatchObject({ error: { type: 'RATE_LIMITED' }, credits_used: 0, credits_remaining: null });
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(sb.admin.balance()).toBe(10_000);
  });

  it('Errors › chaos 500 INTERNAL_ERROR and 503 UPSTREAM_ERROR / SERVICE_UNAVAILABLE (with Retry-After) are never charged', async () => {
    sb = await fixtureSandbox({ chaos: { rate500: 1 }, timeScale: 1 });
    const a = await get(sb, POSTS);
    expect(a.status).toBe(500);
    expect(a.body.error.type).toBe('INTERNAL_ERROR');
    sb.admin.setChaos({ rate503: 1 });
    const types = new Set<string>();
    for (let i = 0; i < 8; i++) {
      const r = await get(sb, POSTS);
      expect(r.status).toBe(503);
      types.add(r.body.error.type as string);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(r.body.error.type === 'UPSTREAM_ERROR' ? 5 : 30);
    }
    expect([...types].sort()).toEqual(['SERVICE_UNAVAILABLE', 'UPSTREAM_ERROR']);
    expect(sb.admin.balance()).toBe(10_000);
  });

  it('Multi-page walk › a failing later page stops a max_pages walk with page_error; only the pages read are billed and next_cursor continues', async () => {
    sb = await fixtureSandbox({ chaos: { rate500: 1 }, seed: 3 });
    let partial: Res | null = null;
    for (let i = 0; i < 30 && !partial; i++) {
      const r = await get(sb, `/v1/micro_net/user/tweets?handle=u${i}&max_pages=5`);
      if (r.status === 200) partial = r;
      else expect(r.status).toBe(500);
    }
    expect(partial).not.toBeNull();
    const b = partial!.body;
    expect(b.data.walk.stopped).toBe('page_error');
    const pagesRead = (b.data.items as unknown[]).length / 5;
    expect(b.credits_used).toBe(20 * pagesRead);
    expect(b.pagination.next_cursor).toMatch(/^sdrc1\./);
    expect(b.pagination.has_more).toBe(true);
  });

  it('Chaos › slow answers arrive late but whole', async () => {
    sb = await fixtureSandbox({ chaos: { rateSlow: 1, slowMs: 250 } });
    const t = Date.now();
    const r = await get(sb, POSTS);
    expect(r.status).toBe(200);
    expect(Date.now() - t).toBeGreaterThanOrEqual(240);
  });

  it('Chaos › under a mixed fault rate the server ledger equals what the client saw delivered', async () => {
    sb = await fixtureSandbox({ chaos: 0.5, seed: 7 });
    let clientTotal = 0;
    const faults = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const r = await tryGet(`/v1/thread_net/profile?handle=m${i}`);
      if (r === null) faults.add('drop');
      else if (r.status === 200) clientTotal += r.body.credits_used as number;
      else faults.add(String(r.status));
    }
    expect(faults.size).toBeGreaterThanOrEqual(3);
    const ledger = sb.admin.charges();
    expect(ledger.reduce((a, c) => a + c.credits_used, 0)).toBe(clientTotal);
    expect(10_000 - sb.admin.balance()).toBe(clientTotal);
    expect(ledger.filter((c) => c.status !== 200).every((c) => c.credits_used === 0)).toBe(true);
  });
});
