/**
 * The request core against the real sandbox (src/sandbox) and the real archive (src/core/archive).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../sandbox';
import { openArchive, type Archive } from '../archive';
import type { LedgerEntry } from '../ports';
import { createApiCore } from './core';
import type { CallTarget, WalkResult } from './types';

const TIME_SCALE = 600; // sandbox seconds per real second: Retry-After values shrink to 1 s
const limits = { requests: 60, windowSeconds: 60 / TIME_SCALE, maxInFlight: 10 };

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'loupe-rc-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function idsOf(r: { envelope: { data: unknown } }): string[] {
  const items = (r.envelope.data as { items?: Array<Record<string, { id: string }>> }).items ?? [];
  return items.map((it) => {
    const kind = Object.keys(it)[0];
    return `${kind}/${it[kind].id}`;
  });
}

function archivedIds(a: Archive, platform: string): string[] {
  const out: string[] = [];
  for (const row of a.iterateExportRows({ platforms: [platform] })) out.push(`${row.kind}/${row.id}`);
  return out.sort();
}

function everyFileContains(d: string, needle: string): string[] {
  return readdirSync(d).filter((f) => readFileSync(join(d, f)).includes(Buffer.from(needle)));
}

describe('request core × sandbox', () => {
  let sb: SandboxHandle;
  afterAll(async () => {
    await sb?.close();
  });

  it('walks through ≥ 20 % chaos: every page once, ledger credits = server charges, key never leaks', async () => {
    sb = await startSandbox({
      port: 0,
      seed: 7,
      timeScale: TIME_SCALE,
      freeCalls: 0,
      balance: 1_000_000,
      chaos: { rate429: 0.05, rate500: 0.05, rate503: 0.04, rateDrop: 0.12 },
    });
    const file = join(dir, 'chaos.db');
    const archive = openArchive(file);
    const ledger: LedgerEntry[] = [];
    const store = new Proxy(archive, {
      get(t, prop, recv) {
        if (prop === 'recordAttempt')
          return (e: LedgerEntry) => {
            ledger.push(e);
            return t.recordAttempt(e);
          };
        const v = Reflect.get(t, prop, recv) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
      },
    });
    const logs: string[] = [];
    const errors: string[] = [];
    const core = createApiCore({ baseUrl: sb.url, getKey: () => sb.key, store, limits, log: (l) => logs.push(l) });

    const targets: CallTarget[] = [
      { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'sample.creator' } },
      { platform: 'video_net', endpoint: 'channel/videos', params: { handle: 'sample.channel' } },
    ];
    const results: WalkResult[] = [];
    for (const t of targets) {
      const seen: string[] = [];
      const pageNos: number[] = [];
      const r = await core.walk(t, {
        maxPages: 8,
        onPage: (p) => {
          pageNos.push(p.pageNumber);
          seen.push(...idsOf(p.result));
        },
      });
      if (r.error) errors.push(r.error.message);
      results.push(r);
      expect(r.error).toBeUndefined();
      expect(['done', 'paused']).toContain(r.status);
      expect(pageNos).toEqual(Array.from({ length: r.pagesDone }, (_, i) => i + 1));
      // every item of every page is archived, and only those
      expect(new Set(seen).size).toBe(seen.length);
      expect(archivedIds(archive, String(t.platform))).toEqual([...new Set(seen)].sort());
    }

    const stats = sb.admin.stats();
    const faults = Object.values(stats.chaos_faults).reduce((a, b) => a + b, 0);
    expect(stats.chaos_faults.drop ?? 0).toBeGreaterThan(0);
    expect(faults / stats.requests).toBeGreaterThanOrEqual(0.15);
    expect(ledger.some((l) => l.errorType === 'NETWORK_MID_BODY')).toBe(true);

    // the ledger's credits equal what the server charged this key
    const keyHash = sb.admin.keyHash(sb.key);
    const charged = sb.admin
      .charges()
      .filter((c) => c.key_hash === keyHash)
      .reduce((s, c) => s + c.credits_used, 0);
    const recorded = ledger.reduce((s, l) => s + l.creditsUsed, 0);
    expect(charged).toBeGreaterThan(0);
    expect(recorded).toBe(charged);
    expect(results.reduce((s, r) => s + r.creditsSpent, 0)).toBe(charged);
    expect(core.balance()).toBe(sb.admin.balance());

    // the key appears in no log line, error, ledger row or byte of the archive
    await core.close();
    archive.close();
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.filter((l) => l.includes(sb.key))).toEqual([]);
    expect(errors.filter((l) => l.includes(sb.key))).toEqual([]);
    expect(JSON.stringify(ledger)).not.toContain(sb.key);
    expect(everyFileContains(dir, sb.key)).toEqual([]);
  }, 60_000);

  it('reads the real catalogue and OpenAPI document and validates against them for free', async () => {
    const sb3 = await startSandbox({ port: 0, seed: 3 });
    try {
      const core = createApiCore({ baseUrl: sb3.url, getKey: () => sb3.key, store: openArchive(':memory:') });
      const cat = await core.catalogue.load();
      expect(cat.endpoints.length).toBeGreaterThan(100);
      const oa = await core.catalogue.openapi();
      expect(String(oa.openapi)).toMatch(/^3\.1/);
      expect(core.catalogue.find('photo_net', '/v1/photo_net/profile/posts')?.paginates).toBe(true);
      const bad = await core.validate({ platform: 'photo_net', endpoint: 'profile/posts', params: {} });
      expect(bad.ok).toBe(false);
      const oneOf = await core.validate({ platform: 'photo_net', endpoint: 'profile/reels', params: {} });
      expect(oneOf.ok).toBe(false);
      if (!oneOf.ok) expect(oneOf.message).toMatch(/one of 'user_id' or 'handle'/);
      const good = await core.validate({ platform: 'photo_net', endpoint: 'search/reels', params: { query: 'a', max_pages: '2' } });
      expect(good).toMatchObject({ ok: true });
      // profile/posts lists no max_pages: not certainly wrong locally (a catalogue need not repeat
      // shared parameters), so the service decides — its 400 is free
      const noMaxPages = await core.validate({ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'a', max_pages: '2' } });
      expect(noMaxPages).toMatchObject({ ok: true });
      const refused = (await core
        .call({ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'a', max_pages: '2' } })
        .catch((e: unknown) => e)) as { kind: string; status: number };
      expect(refused).toMatchObject({ kind: 'api', status: 400 });
      const q = await core.quote({ platform: 'photo_net', endpoint: 'profile', params: { handle: 'a' } });
      expect(q.credits_max).toBeGreaterThanOrEqual(q.credits_min);
      expect(sb3.admin.charges().reduce((s, c) => s + c.credits_used, 0)).toBe(0);
      await core.close();
    } finally {
      await sb3.close();
    }
  });

  it('a killed-and-resumed walk ends with the same archive as an uninterrupted one', async () => {
    const sb2 = await startSandbox({ port: 0, seed: 11, timeScale: 1, freeCalls: 0, balance: 1_000_000, latencyMs: 40 });
    try {
      const target: CallTarget = { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'resume.case' } };

      // reference: uninterrupted, on its own account
      const refAccount = sb2.admin.createAccount({ balance: 1_000_000, freeCalls: 0 });
      const refKey = sb2.admin.createKey('ref', refAccount);
      const refArchive = openArchive(':memory:');
      const refCore = createApiCore({ baseUrl: sb2.url, getKey: () => refKey, store: refArchive });
      const ref = await refCore.walk(target, { maxPages: 6 });
      expect(ref.error).toBeUndefined();
      await refCore.close();

      // interrupted while page 3 is in flight ("kill": the process stops, the archive stays)
      const file = join(dir, 'resume.db');
      let archive = openArchive(file);
      const ac = new AbortController();
      // no grace after the cancel: like a kill, the page on the wire is abandoned
      const core1 = createApiCore({ baseUrl: sb2.url, getKey: () => sb2.key, store: archive, cancelGraceMs: 0 });
      core1.events.on('attempt', (a) => {
        if (a.status === 200) {
          const pages = archive.listWalks().reduce((m, w) => Math.max(m, w.pagesDone), 0);
          if (pages >= 1) setTimeout(() => ac.abort(), 15); // page 3's request is on the wire
        }
      });
      const r1 = await core1.walk(target, { maxPages: 6, signal: ac.signal });
      expect(r1.status).toBe('cancelled');
      expect(r1.pagesDone).toBeGreaterThanOrEqual(1);
      await core1.close();
      archive.close();

      // a new process opens the same archive and resumes
      archive = openArchive(file);
      const pending = archive.pendingJournal();
      expect(pending).toHaveLength(1); // the page that was on the wire
      expect(pending[0].opKey).toBe(`walk:${r1.walkId}:page:${r1.pagesDone + 1}`);
      const core2 = createApiCore({ baseUrl: sb2.url, getKey: () => sb2.key, store: archive });
      const r2 = await core2.resumeWalk(r1.walkId, { maxPages: 6 });
      expect(r2.error).toBeUndefined();
      expect(r2.pagesDone).toBe(ref.pagesDone);
      expect(r2.itemsSeen).toBe(ref.itemsSeen);
      expect(archivedIds(archive, 'photo_net')).toEqual(archivedIds(refArchive, 'photo_net'));
      // the page in flight at the kill was re-sent with the same Idempotency-Key
      const keyHash = sb2.admin.keyHash(sb2.key);
      const mine = sb2.admin.charges().filter((c) => c.key_hash === keyHash);
      expect(mine.filter((c) => c.idempotency_key === pending[0].idempotencyKey).length).toBeGreaterThanOrEqual(1);
      // nothing was charged twice: one charged answer per page
      const chargedPages = mine.filter((c) => c.credits_used > 0).length;
      expect(chargedPages).toBeLessThanOrEqual(ref.pagesDone);
      await core2.close();
      archive.close();
      refArchive.close();
    } finally {
      await sb2.close();
    }
  }, 60_000);
});
