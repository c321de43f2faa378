/**
 * The key pool (issue 15) against the sandbox, which counts limits per key: work spreads over the
 * keys, each within its own limits; a replay stays on the key that sent the original (safe when
 * Idempotency-Keys belong to a key, the `idempotency-per-key` reading); a revoked key leaves the
 * pool mid-walk and loses nothing; retiring keys get no new work; a key added mid-walk is used.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../sandbox';
import { openArchive, type Archive } from '../archive';
import { createApiCore, scaledClock, type ApiCore, type PoolKey } from '.';
import { MemoryPaceBook } from './pace-book';
import { maxInAnyWindow } from './test-helpers';

const TIME_SCALE = 60; // a round trip of ~50 ms real is ~3 s of sandbox time: pacing, not latency, decides
const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c();
});

interface Setup {
  sb: SandboxHandle;
  api: ApiCore;
  archive: Archive;
  keys: PoolKey[];
}

async function setup(o: {
  keys: number;
  variants?: string[];
  limits?: { requests: number; windowSeconds: number; maxInFlight: number };
  timeScale?: number;
}): Promise<Setup> {
  const scale = o.timeScale ?? TIME_SCALE;
  const sb = await startSandbox({ port: 0, seed: 15, balance: 1_000_000, freeCalls: 0, timeScale: scale, variants: o.variants ?? [] });
  sb.admin.advance(86_400 * 30);
  const clock = scaledClock(() => sb.admin.now(), scale);
  const archive = openArchive(':memory:', { clock: () => clock.now() });
  const keys: PoolKey[] = [{ name: 'one', key: sb.key }];
  for (let i = 2; i <= o.keys; i++)
    keys.push({ name: ['', 'one', 'two', 'three', 'four', 'five'][i] ?? `k${i}`, key: sb.admin.createKey(`k${i}`) });
  const api = createApiCore({
    baseUrl: sb.url,
    getKeys: () => keys.map((k) => ({ ...k })),
    store: archive,
    clock,
    paceBook: new MemoryPaceBook(), // this test's own counts: nothing shared with other tests
    limits: o.limits ?? { requests: 60, windowSeconds: 60, maxInFlight: 10 },
    timeoutMs: 5_000,
  });
  open.push(async () => {
    await api.close();
    archive.close();
    await sb.close();
  });
  return { sb, api, archive, keys };
}

const service = (sb: SandboxHandle) => sb.admin.charges().reduce((s, c) => s + c.credits_used, 0);
const ledger = (a: Archive) => a.listLedger({ limit: 10_000 }).reduce((s, l) => s + l.creditsUsed, 0);

describe('the key pool', () => {
  it('spreads work over every key, each within its own limits; the ledger names the key, never shows it', async () => {
    // a slower sandbox clock here: on a loaded machine each round trip is real time × scale, and
    // the bound below is about windows, not latency
    const { sb, api, archive, keys } = await setup({ keys: 3, limits: { requests: 4, windowSeconds: 60, maxInFlight: 2 }, timeScale: 10 });
    // 24 one-page calls: one key alone would need 6 windows (its last call 5 windows after the
    // first), three keys need 2
    const t0 = sb.admin.now();
    await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        api.call({ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: `pool_${i}` } }, { priority: 'background' }),
      ),
    );
    const elapsed = sb.admin.now() - t0;
    const charges = sb.admin.charges();
    expect(charges.filter((c) => c.status === 429)).toHaveLength(0);
    const byKey = new Map<string, number[]>();
    for (const c of charges) byKey.set(c.key_hash, [...(byKey.get(c.key_hash) ?? []), c.at]);
    expect(byKey.size).toBe(3);
    for (const times of byKey.values()) {
      expect(times.length).toBeGreaterThanOrEqual(4);
      expect(maxInAnyWindow(times, 60_000)).toBeLessThanOrEqual(4);
    }
    expect(elapsed).toBeLessThan(5 * 60_000); // less than one key alone could take
    const rows = archive.listLedger({ limit: 100 });
    expect(new Set(rows.map((r) => r.keyName))).toEqual(new Set(['one', 'two', 'three']));
    for (const k of keys) expect(JSON.stringify(rows)).not.toContain(k.key);
    expect(ledger(archive)).toBe(service(sb));
  });

  it('a key revoked mid-walk leaves the pool with a clear message; the walk finishes on the others, no page lost or paid twice', async () => {
    const { sb, api, archive, keys } = await setup({ keys: 2 });
    const refused: Array<{ name: string | null; type: string; message: string }> = [];
    api.events.on('key-refused', (r) => refused.push(r));
    let revoked = false;
    const target = { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'revoked_midwalk' } };
    const res = await api.walk(target, {
      maxPages: 12,
      pagesPerRequest: 1,
      onPage: ({ pageNumber }) => {
        if (pageNumber === 3 && !revoked) {
          revoked = true;
          sb.admin.revokeKey(keys[1].key);
        }
      },
    });
    expect(res.status).toBe('paused'); // the page limit
    expect(res.pagesDone).toBe(12);
    expect(refused.map((r) => r.name)).toEqual(['two']);
    expect(refused[0].message).toMatch(/"two" was refused by the service \(API_KEY_REVOKED\).*moved to the other keys/);
    const okPages = sb.admin.charges().filter((c) => c.status === 200);
    expect(okPages).toHaveLength(12); // the refused attempt cost nothing and no page was read twice
    expect(new Set(okPages.map((c) => c.params.cursor ?? '')).size).toBe(12);
    expect(ledger(archive)).toBe(service(sb));
    const after = archive.listLedger({ limit: 100 }).filter((r) => r.status === 200);
    expect(after.filter((r) => r.startedAt > 0 && r.keyName === 'two').length).toBeLessThan(12);
    // the last pages were all made by the key that stayed
    expect(archive.listLedger({ limit: 3 }).every((r) => r.keyName === 'one')).toBe(true);
  });

  it('every key refused: the call stops with the way out, nothing spent', async () => {
    const { sb, api, keys } = await setup({ keys: 2 });
    for (const k of keys) sb.admin.revokeKey(k.key);
    const e = (await api
      .call({ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'x' } })
      .catch((err: unknown) => err)) as Error & { kind?: string };
    expect(e).toBeInstanceOf(Error);
    expect(e.message).toMatch(/revoked; set a new key/);
    for (const k of keys) expect(e.message).not.toContain(k.key);
    expect(await api.keys.members()).toEqual([]);
    expect(service(sb)).toBe(0);
  });

  it('a lost answer is replayed on the key that sent it (free even when Idempotency-Keys belong to a key)', async () => {
    // no cache window: the balance says the dropped answer was charged, so its key is kept (inside a
    // window a fresh key's owner read is free anyway)
    const { sb, api, archive } = await setup({ keys: 4, variants: ['idempotency-per-key', 'drop-charged', 'no-cache-window'] });
    sb.admin.queueFaults([{ kind: 'drop', match: 'profile/posts' }]);
    const r = await api.call({ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'replayed' } });
    expect(r.envelope.data).toBeTruthy();
    const charges = sb.admin.charges().filter((c) => c.endpoint.endsWith('profile/posts'));
    expect(charges.length).toBe(2);
    expect(charges[1].key_hash).toBe(charges[0].key_hash);
    expect(charges[1].idempotency_key).toBe(charges[0].idempotency_key);
    expect(charges[1].replay).toBe(true);
    expect(charges.reduce((s, c) => s + c.credits_used, 0)).toBe(charges[0].credits_used);
    expect(ledger(archive)).toBe(service(sb));
    const rows = archive.listLedger({ limit: 10 });
    expect(new Set(rows.map((x) => x.keyName)).size).toBe(1);
  });

  it('a retiring key gets no new work while another can take it; a key added mid-walk is used', async () => {
    const { sb, api, archive, keys } = await setup({ keys: 2, limits: { requests: 3, windowSeconds: 60, maxInFlight: 1 } });
    keys[0].retiring = true;
    let added = false;
    const res = await api.walk(
      { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'rotation' } },
      {
        maxPages: 8,
        pagesPerRequest: 1,
        onPage: ({ pageNumber }) => {
          if (pageNumber === 2 && !added) {
            added = true;
            keys.push({ name: 'three', key: sb.admin.createKey('three') });
          }
        },
      },
    );
    expect(res.pagesDone).toBe(8);
    const names = archive.listLedger({ limit: 100 }).map((r) => r.keyName);
    expect(names).not.toContain('one');
    expect(names).toContain('two');
    expect(names).toContain('three');
    expect(sb.admin.charges().filter((c) => c.status === 429)).toHaveLength(0);
  });

  it('a 429 on one key sends the next attempt to another key at once, without waiting out Retry-After', async () => {
    const { sb, api, archive } = await setup({ keys: 2 });
    sb.admin.queueFaults([{ kind: 'status', status: 429, type: 'RATE_LIMITED', retryAfter: 3600, match: 'profile/posts' }]);
    const t0 = Date.now();
    const r = await api.call({ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'limited' } });
    expect(r.attempts).toBe(2);
    expect(Date.now() - t0).toBeLessThan(3000);
    const rows = archive.listLedger({ limit: 10 }).reverse();
    expect(rows.map((x) => x.status)).toEqual([429, 200]);
    expect(rows[0].keyName).not.toBe(rows[1].keyName);
    const members = await api.keys.members();
    expect(members.find((m) => m.name === rows[0].keyName)?.stats.pausedUntil).toBeGreaterThan(sb.admin.now());
  });
});
