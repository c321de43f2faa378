import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSandbox, type SandboxHandle } from '../sandbox';
import type { LoupeEvent, WalkInfo } from '../shared/contract';
import { createApp, type LoupeApp } from './app';
import { dispatch } from './bridge';
import { MemorySecretStore } from './secrets';

let sb: SandboxHandle;
let dir: string;
let app: LoupeApp;
const events: LoupeEvent[] = [];
const call = (m: string, input: unknown = {}) => dispatch(app, m, input);

beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 7, timeScale: 600 });
  dir = mkdtempSync(join(tmpdir(), 'loupe-app-'));
  app = createApp({ dataDir: dir, secrets: new MemorySecretStore(), door: 'web', sandbox: async () => ({ url: sb.url, key: sb.key }) });
  app.events.on((e) => events.push(e));
});
afterAll(async () => {
  await app?.close();
  await sb?.close();
  rmSync(dir, { recursive: true, force: true });
});

const userKey = `sdr_live_${randomBytes(32).toString('base64url')}`;

describe('createApp on the sandbox', () => {
  it('app.info: sandbox mode, and no key anywhere in the answer', async () => {
    const r = await call('app.info');
    expect(r.ok).toBe(true);
    const info = (r as { result: Record<string, unknown> }).result;
    expect(info).toMatchObject({ sandbox: true, baseUrl: sb.url, door: 'web', dataDir: dir, secretBackend: 'memory' });
    expect(JSON.stringify(info)).not.toContain(sb.key);
  });

  it('keys.add never echoes the key; keys.list has no key material; settings.json holds none', async () => {
    const r = await call('keys.add', { name: 'research', key: userKey });
    expect(r).toEqual({ ok: true, result: { name: 'research', warning: expect.stringMatching(/sandbox/), backend: 'memory' } });
    expect(JSON.stringify(r)).not.toContain(userKey);
    const list = await call('keys.list');
    expect(list).toEqual({
      ok: true,
      result: [
        {
          name: 'research',
          active: true,
          addedAt: expect.any(Number),
          looksValid: true,
          mode: 'live',
          retiring: false,
          refused: null,
          lastUsedAt: null,
        },
      ],
    });
    const retired = await call('keys.retire', { name: 'research' });
    expect(retired).toMatchObject({ ok: true, result: [{ name: 'research', active: false, retiring: true, lastUsedAt: null }] });
    expect(await call('keys.use', { name: 'research' })).toMatchObject({
      ok: true,
      result: [{ name: 'research', active: true, retiring: false }],
    });
    expect(JSON.stringify(list)).not.toContain(userKey.slice(9));
    expect(readFileSync(join(dir, 'settings.json'), 'utf8')).not.toContain(userKey.slice(9));
    // still the sandbox for this run (the app started without a key)
    expect(((await call('app.info')) as { result: { sandbox: boolean } }).result.sandbox).toBe(true);
  });

  it('api.quote is free: the balance does not move and nothing is charged', async () => {
    const cat = (await call('catalogue.get')) as {
      ok: true;
      result: {
        endpoints: Array<{
          platform: string;
          path: string;
          credits: unknown;
          params: Array<{ name: string; required: boolean; example?: unknown }>;
        }>;
      };
    };
    expect(cat.ok).toBe(true);
    const ep = cat.result.endpoints.find((e) => /search/.test(e.path) && e.params.some((p) => p.name === 'query'));
    expect(ep).toBeDefined();
    const before = sb.admin.balance();
    const params: Record<string, string> = { query: 'coffee' };
    for (const p of ep!.params) if (p.required && !(p.name in params)) params[p.name] = String(p.example ?? 'x');
    const q = await call('api.quote', { platform: ep!.platform, endpoint: ep!.path, params });
    expect(q.ok).toBe(true);
    const quote = (q as { result: { creditsMin: number; creditsMax: number; servedFromArchive: boolean } }).result;
    expect(quote.creditsMax).toBeGreaterThanOrEqual(quote.creditsMin);
    expect(quote.servedFromArchive).toBe(false);
    expect(sb.admin.balance()).toBe(before);
    expect(sb.admin.charges().every((c) => c.credits_used === 0)).toBe(true);
  });

  it('a walk runs in the background with progress events and lands in the library; usage shows the cost', async () => {
    const cat = (
      (await call('catalogue.get')) as {
        result: {
          endpoints: Array<{
            platform: string;
            path: string;
            paginates: boolean;
            credits: unknown;
            params: Array<{ name: string; required: boolean; example?: unknown }>;
          }>;
        };
      }
    ).result;
    const ep = cat.endpoints.find(
      (e) => e.paginates && typeof e.credits === 'number' && /search/.test(e.path) && e.params.some((p) => p.name === 'query'),
    )!;
    const params: Record<string, string> = { query: 'coffee' };
    for (const p of ep.params) if (p.required && !(p.name in params)) params[p.name] = String(p.example ?? 'x');
    const r = await call('walks.start', { target: { platform: ep.platform, endpoint: ep.path, params }, source: 'search', maxPages: 2 });
    expect(r.ok).toBe(true);
    const walk = (r as { result: WalkInfo }).result;
    expect(walk.status).toBe('running');
    const deadline = Date.now() + 20_000;
    let last: WalkInfo | null = null;
    while (Date.now() < deadline) {
      last = ((await call('walks.get', { walkId: walk.walkId })) as { result: WalkInfo }).result;
      if (last.status !== 'running') break;
      await new Promise((ok) => setTimeout(ok, 50));
    }
    // two pages asked for: either the list ended (done) or the walk paused at its page limit (resumable)
    expect(last?.status === 'done' || (last?.status === 'paused' && ['max_pages', 'page_limit'].includes(last.stopReason ?? ''))).toBe(
      true,
    );
    expect(last?.pagesDone).toBeGreaterThanOrEqual(1);
    expect(last?.pagesDone).toBeLessThanOrEqual(2);
    expect(events.some((e) => e.type === 'walk-progress' && e.walk.walkId === walk.walkId && e.walk.status === last?.status)).toBe(true);
    const count = (await call('library.count', { source: { type: 'walk', id: walk.walkId } })) as { ok: true; result: number };
    expect(count.result).toBe(last?.itemsSeen);
    const usage = (await call('usage.summary')) as { ok: true; result: { charged: { credits: number } } };
    expect(usage.result.charged.credits).toBe(last?.creditsSpent);
    const list = (await call('walks.list')) as { result: WalkInfo[] };
    expect(list.result.map((w) => w.walkId)).toContain(walk.walkId);
    if (last?.status === 'paused') {
      // "fetch 1 more page": resume counts pages on top of those done
      await call('walks.resume', { walkId: walk.walkId, maxPages: 1 });
      let again: WalkInfo | null = null;
      for (let i = 0; i < 400; i++) {
        again = ((await call('walks.get', { walkId: walk.walkId })) as { result: WalkInfo }).result;
        if (again.status !== 'running') break;
        await new Promise((ok) => setTimeout(ok, 50));
      }
      expect(again?.pagesDone).toBe(last.pagesDone + 1);
    }
  });

  it('exports the library to a file under <dataDir>/exports', async () => {
    const r = (await call('export.start', { query: {}, format: 'jsonl' })) as { ok: true; result: { exportId: string } };
    expect(r.ok).toBe(true);
    type Job = { status: string; path: string | null; rows: number } | null;
    let job: Job = null;
    for (let i = 0; i < 200; i++) {
      job = ((await call('export.get', { exportId: r.result.exportId })) as { result: Job }).result;
      if (job && job.status !== 'running') break;
      await new Promise((ok) => setTimeout(ok, 25));
    }
    expect(job?.status).toBe('done');
    expect(job?.path?.startsWith(join(dir, 'exports'))).toBe(true);
    expect(existsSync(job!.path!)).toBe(true);
    expect(readFileSync(job!.path!, 'utf8').trim().split('\n')).toHaveLength(job!.rows);
  });

  it('errors cross as BridgeError (validation for bad input, not_available for watchlists without the service)', async () => {
    const bad = await call('walks.start', { target: { platform: '', endpoint: 'x' }, source: 'search' });
    expect(bad).toMatchObject({ ok: false, error: { kind: 'validation' } });
    const w = await call('watchlists.list');
    expect(w).toMatchObject({ ok: false, error: { kind: 'not_available' } });
    const unknown = await call('api.call', { target: { platform: 'nope_net', endpoint: 'x', params: {} }, source: 'explorer' });
    expect(unknown.ok).toBe(false);
    expect(JSON.stringify(unknown)).not.toContain(sb.key);
    expect(JSON.stringify(unknown)).not.toContain('at ');
  });

  it('a user mistake in a library query (a bad cursor, a malformed search) is validation with its sentence, and logs no stack', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect(await call('library.query', { after: 'garbage!' })).toEqual({
        ok: false,
        error: { kind: 'validation', message: 'invalid cursor' },
      });
      const search = await call('library.query', { text: '(crumb OR' });
      expect(search).toMatchObject({ ok: false, error: { kind: 'validation' } });
      expect(log).not.toHaveBeenCalled();
    } finally {
      log.mockRestore();
    }
  });
});
