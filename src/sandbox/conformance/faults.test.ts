/**
 * Scripted faults (`admin.queueFaults`, `POST /__admin/faults`): deterministic hangs, lost and
 * broken answers for client tests. Accounting follows the spec: an answer is charged only when
 * delivered ("Errors": a failed call is never charged; "Idempotency retry charging" for retries).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../server/start';
import { fixtureSandbox, get, type Body } from './helpers';

let sb: SandboxHandle;
afterEach(() => sb.close());

const POSTS = '/v1/photo_net/profile/posts?handle=alice';
const PROFILE = '/v1/thread_net/profile?handle=a';
const idem = (k: string): Record<string, string> => ({ 'Idempotency-Key': k });

async function until(cond: () => boolean, ms = 2000): Promise<void> {
  const t = Date.now();
  while (!cond()) {
    if (Date.now() - t > ms) throw new Error('timed out waiting for the server');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Fetch, read headers, then give up on the body after `abortMs` (client timeout). */
async function giveUp(path: string, abortMs: number, headers: Record<string, string> = {}): Promise<{ status: number; got: number }> {
  const ac = new AbortController();
  const r = await fetch(`${sb.url}${path}`, { headers: { 'x-api-key': sb.key, ...headers }, signal: ac.signal });
  const timer = setTimeout(() => ac.abort(), abortMs);
  let got = 0;
  try {
    const reader = r.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      got += value.length;
    }
  } catch {
    // aborted
  } finally {
    clearTimeout(timer);
  }
  return { status: r.status, got };
}

describe('Scripted faults', () => {
  it('queue › FIFO per match, `count` uses, admin route and method, invalid faults refused, clear', async () => {
    sb = await fixtureSandbox();
    expect(() => sb.admin.queueFaults([{ kind: 'explode' as never }])).toThrow(/unknown fault kind/);
    expect(() => sb.admin.queueFaults([{ kind: 'status' }])).toThrow(/status/);
    expect(() => sb.admin.queueFaults([{ kind: 'drop', count: 0 }])).toThrow(/count/);
    expect(sb.admin.faults()).toEqual([]);
    const res = await fetch(`${sb.url}/__admin/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        faults: [
          { kind: 'status', status: 500, type: 'INTERNAL_ERROR', match: 'thread_net', count: 2 },
          { kind: 'status', status: 503, type: 'UPSTREAM_ERROR' },
        ],
      }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Body).faults).toHaveLength(2);
    const badRoute = await fetch(`${sb.url}/__admin/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ faults: [{ kind: 'nope' }] }),
    });
    expect(badRoute.status).toBe(400);
    // a photo request skips the thread_net fault and takes the second one
    expect((await get(sb, POSTS)).status).toBe(503);
    expect((await get(sb, PROFILE)).status).toBe(500);
    expect((await get(sb, PROFILE)).status).toBe(500);
    expect((await get(sb, PROFILE)).status).toBe(200); // count used up
    expect((await get(sb, POSTS)).status).toBe(200);
    sb.admin.queueFaults([{ kind: 'status', status: 500 }]);
    expect(((await fetch(`${sb.url}/__admin/faults`).then((r) => r.json())) as Body).faults).toHaveLength(1);
    await fetch(`${sb.url}/__admin/faults/clear`, { method: 'POST' });
    expect(sb.admin.faults()).toEqual([]);
    expect((await get(sb, PROFILE, { headers: { 'Cache-Control': 'no-cache' } })).status).toBe(200);
    expect(sb.admin.stats().scripted_faults).toEqual({ status: 3 });
    // faults never touch meta endpoints or requests refused before the upstream stage
    sb.admin.queueFaults([{ kind: 'status', status: 500 }]);
    expect((await get(sb, '/v1/endpoints', { key: null })).status).toBe(200);
    expect((await get(sb, '/v1/thread_net/profile')).status).toBe(400);
    expect((await get(sb, `${POSTS}&dry_run=1`)).status).toBe(200);
    expect(sb.admin.faults()).toHaveLength(1);
  });

  it('status › 429 RATE_LIMITED with Retry-After in real seconds as given, error envelope, free, in the ledger', async () => {
    sb = await fixtureSandbox({ timeScale: 60 });
    sb.admin.queueFaults([{ kind: 'status', status: 429, type: 'RATE_LIMITED', retryAfter: 86400 }]);
    const r = await get(sb, POSTS);
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('86400');
    expect(r.body).toMatchObject({ success: false, error: { type: 'RATE_LIMITED' }, credits_used: 0, credits_remaining: null });
    expect(r.body.request_id).toBe(r.headers.get('x-request-id'));
    expect(sb.admin.balance()).toBe(10_000);
    expect(sb.admin.charges().at(-1)).toMatchObject({ status: 429, error_type: 'RATE_LIMITED', credits_used: 0, fault: 'status' });
  });

  it('status › a non-JSON body verbatim (418 text/plain)', async () => {
    sb = await fixtureSandbox();
    sb.admin.queueFaults([{ kind: 'status', status: 418, contentType: 'text/plain', body: "I'm a teapot" }]);
    const r = await fetch(`${sb.url}${POSTS}`, { headers: { 'x-api-key': sb.key } });
    expect(r.status).toBe(418);
    expect(r.headers.get('content-type')).toBe('text/plain');
    expect(await r.text()).toBe("I'm a teapot");
    expect(sb.admin.charges().at(-1)).toMatchObject({ status: 418, credits_used: 0, fault: 'status' });
    expect(sb.admin.balance()).toBe(10_000);
  });

  it('drop › headers and half the body, then the socket closes: 499 in the ledger, not charged; the same-key retry pays the ceiling', async () => {
    sb = await fixtureSandbox();
    sb.admin.queueFaults([{ kind: 'drop', match: '/profile/posts' }]);
    await expect(get(sb, POSTS, { headers: idem('d-1') })).rejects.toThrow();
    expect(sb.admin.charges().at(-1)).toMatchObject({ status: 499, error_type: 'CLIENT_CLOSED_REQUEST', credits_used: 0, fault: 'drop' });
    expect(sb.admin.balance()).toBe(10_000);
    const retry = await get(sb, POSTS, { headers: idem('d-1') });
    expect(retry.body).toMatchObject({ charge_reason: 'miss', credits_used: 340 });
  });

  it('drop › a dropped cache read is undelivered too (no 2-credit charge, no ownership)', async () => {
    sb = await fixtureSandbox();
    await get(sb, POSTS);
    const acct = sb.admin.createAccount({ balance: 1000, freeCalls: 0 });
    const k = sb.admin.createKey('b', acct);
    sb.admin.queueFaults([{ kind: 'drop' }]);
    await expect(get(sb, POSTS, { key: k })).rejects.toThrow();
    expect(sb.admin.balance(acct)).toBe(1000);
    expect((await get(sb, POSTS, { key: k })).body).toMatchObject({ cached: true, credits_used: 2 });
  });

  it('trickle › the body arrives one chunk at a time; charged once fully delivered', async () => {
    sb = await fixtureSandbox();
    sb.admin.queueFaults([{ kind: 'trickle', intervalMs: 2, chunkBytes: 16 }]);
    const t = Date.now();
    const r = await get(sb, PROFILE, { headers: idem('t-1') });
    const bytes = JSON.stringify(r.body).length;
    expect(r.status).toBe(200);
    expect(r.body.data.profile.id).toBe('777');
    expect(Date.now() - t).toBeGreaterThanOrEqual(Math.floor(bytes / 16) * 2 * 0.8);
    expect(sb.admin.charges().at(-1)).toMatchObject({ status: 200, credits_used: 20, fault: 'trickle' });
    expect(sb.admin.balance()).toBe(10_000 - 20);
    expect((await get(sb, PROFILE, { headers: idem('t-1') })).body.charge_reason).toBe('replay');
  });

  it('trickle › a client that gives up first leaves it undelivered (499, not charged); the same-key retry pays the ceiling', async () => {
    sb = await fixtureSandbox();
    sb.admin.queueFaults([{ kind: 'trickle', intervalMs: 40 }]);
    const r = await giveUp(POSTS, 150, idem('t-2'));
    expect(r.status).toBe(200);
    expect(r.got).toBeGreaterThan(0);
    await until(() => sb.admin.charges().length === 1);
    expect(sb.admin.charges()[0]).toMatchObject({ status: 499, credits_used: 0, fault: 'trickle' });
    expect(sb.admin.balance()).toBe(10_000);
    expect(sb.admin.stats().in_flight).toBe(0);
    expect((await get(sb, POSTS, { headers: idem('t-2') })).body).toMatchObject({ charge_reason: 'miss', credits_used: 340 });
  });

  it('trickle › while it trickles the keyed call is still running (409 for the same key)', async () => {
    sb = await fixtureSandbox();
    sb.admin.queueFaults([{ kind: 'trickle', intervalMs: 30 }]);
    const slow = giveUp(POSTS, 200, idem('t-3'));
    await new Promise((r) => setTimeout(r, 60));
    const dup = await get(sb, POSTS, { headers: idem('t-3') });
    expect(dup.status).toBe(409);
    expect(dup.body.error.type).toBe('IDEMPOTENCY_IN_PROGRESS');
    await slow;
  });

  it('stall › headers then nothing until the client gives up: 499, not charged, the same-key retry pays the ceiling', async () => {
    sb = await fixtureSandbox();
    sb.admin.queueFaults([{ kind: 'stall', match: 'profile/posts' }]);
    const r = await giveUp(POSTS, 100, idem('s-1'));
    expect(r).toEqual({ status: 200, got: 0 });
    await until(() => sb.admin.charges().length === 1);
    expect(sb.admin.charges()[0]).toMatchObject({ status: 499, error_type: 'CLIENT_CLOSED_REQUEST', credits_used: 0, fault: 'stall' });
    expect(sb.admin.balance()).toBe(10_000);
    expect(sb.admin.stats().in_flight).toBe(0);
    const retry = await get(sb, POSTS, { headers: idem('s-1') });
    expect(retry.body).toMatchObject({ charge_reason: 'miss', credits_used: 340 });
    // an unkeyed stall retried without a key is an ordinary call
    sb.admin.queueFaults([{ kind: 'stall' }]);
    await giveUp('/v1/photo_net/profile/posts?handle=bob', 50);
    await until(() => sb.admin.charges().length === 3);
    expect((await get(sb, '/v1/photo_net/profile/posts?handle=bob')).body.credits_used).toBe(20);
  });

  it('stall-charged › charged before the answer stalls: the client giving up changes nothing; same-key retry replays free, a fresh key reads the owned cache free', async () => {
    sb = await fixtureSandbox();
    sb.admin.queueFaults([{ kind: 'stall-charged', match: 'profile/posts' }]);
    const r = await giveUp(POSTS, 100, idem('sc-1'));
    expect(r).toEqual({ status: 200, got: 0 });
    expect(sb.admin.charges().at(-1)).toMatchObject({ status: 200, credits_used: 20, charge_reason: 'miss', fault: 'stall-charged' });
    await until(() => sb.admin.stats().in_flight === 0);
    expect(sb.admin.balance()).toBe(10_000 - 20);
    const same = await get(sb, POSTS, { headers: idem('sc-1') });
    expect(same.body).toMatchObject({ idempotent_replay: true, charge_reason: 'replay', credits_used: 0 });
    const fresh = await get(sb, POSTS, { headers: idem('sc-2') });
    expect(fresh.body).toMatchObject({ cached: true, credits_used: 0, charge_reason: 'cached' });
    expect(sb.admin.balance()).toBe(10_000 - 20);
  });

  it('truncate-charged › charged and recorded as delivered, the body is cut; same-key retry replays free, a fresh key reads the owned cache free', async () => {
    sb = await fixtureSandbox();
    sb.admin.queueFaults([{ kind: 'truncate-charged' }]);
    const r = await fetch(`${sb.url}${POSTS}`, { headers: { 'x-api-key': sb.key, ...idem('tc-1') } });
    expect(r.status).toBe(200);
    const text = await r.text();
    expect(() => JSON.parse(text) as unknown).toThrow();
    expect(text.startsWith('{"success":true')).toBe(true);
    expect(sb.admin.charges().at(-1)).toMatchObject({ status: 200, credits_used: 20, charge_reason: 'miss', fault: 'truncate-charged' });
    expect(sb.admin.balance()).toBe(10_000 - 20);
    const same = await get(sb, POSTS, { headers: idem('tc-1') });
    expect(same.body).toMatchObject({ idempotent_replay: true, charge_reason: 'replay', credits_used: 0 });
    expect(same.body.data.items).toHaveLength(5);
    const fresh = await get(sb, POSTS, { headers: idem('tc-2') });
    expect(fresh.body).toMatchObject({ cached: true, credits_used: 0, charge_reason: 'cached' });
    expect(sb.admin.balance()).toBe(10_000 - 20);
  });
});
