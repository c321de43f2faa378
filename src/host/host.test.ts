import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type MigrationProgress } from '../core/archive/db';
import { MIGRATIONS } from '../core/archive/migrations/index';
import { MemorySecretStore } from '../core/secrets';
import { startHost, type Host } from './index';

// startHost end to end: the composed app + in-process sandbox behind the real HTTP door.
let host: Host;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'loupe-starthost-'));
  host = await startHost({
    port: 0,
    dataDir: dir,
    secrets: new MemorySecretStore(),
    envKey: null,
    staticDir: join(dir, 'no-build'),
    sandbox: { seed: 3, timeScale: 600 },
  });
});
afterAll(async () => {
  await host?.close();
  rmSync(dir, { recursive: true, force: true });
});

const post = (method: string, input: unknown = {}) =>
  fetch(`${host.origin}/api/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-loupe-token': host.token },
    body: JSON.stringify(input),
  });

describe('startHost', () => {
  it('prints a loopback URL carrying the session token', () => {
    expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
    expect(host.url).toContain(host.token);
  });

  it('app.info over HTTP: sandbox mode, web door, and never a key', async () => {
    const r = await post('app.info');
    expect(r.status).toBe(200);
    const text = await r.text();
    const body = JSON.parse(text);
    expect(body).toMatchObject({ ok: true, result: { sandbox: true, door: 'web', dataDir: dir, keySet: true } });
    const sb = host.sandbox();
    expect(sb).not.toBeNull();
    expect(body.result.baseUrl).toBe(sb!.url);
    expect(text).not.toContain(sb!.key);
    expect(text).not.toMatch(/sdr_(live|test)_/);
  });

  it('a typo in a query filter is a 400 with the sentence naming the nearest valid name (issue 24 #8)', async () => {
    const r = await post('library.count', { labels: [{ family: 'intent', field: 'label', op: 'eq', value: 'complaning' }] });
    expect(r.status).toBe(400);
    const body = (await r.json()) as { ok: boolean; error: { kind: string; message: string } };
    expect(body.error.kind).toBe('validation');
    expect(body.error.message).toMatch(/^"complaning" is not a value of intent\.label\. Did you mean complaining\?/);
    const net = (await (await post('export.start', { query: { platforms: ['micro_nett'] }, format: 'csv' })).json()) as {
      error: { message: string };
    };
    expect(net.error.message).toMatch(/^"micro_nett" is not a network Loupe knows\. Did you mean micro_net\?/);
  });

  it('refuses a call without the token', async () => {
    const r = await fetch(`${host.origin}/api/app.info`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(r.status).toBe(401);
  });

  it('delivers a balance event over SSE after credits.refresh', async () => {
    const event = new Promise<Record<string, unknown>>((ok, fail) => {
      const req = request(`${host.origin}/api/events?token=${host.token}`, (res) => {
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          buf += c;
          if (buf.includes(': connected') && !buf.includes('asked')) {
            buf += 'asked';
            void post('credits.refresh');
          }
          for (const m of buf.matchAll(/data: (.*)\n\n/g)) {
            const e = JSON.parse(m[1]) as Record<string, unknown>;
            if (e.type === 'balance') {
              ok(e);
              req.destroy();
            }
          }
        });
      });
      req.on('error', fail);
      req.end();
    });
    const e = await event;
    expect(e).toMatchObject({ type: 'balance', balance: { creditsRemaining: 10_000 } });
  });

  it('serves a clear page when the renderer is not built', async () => {
    const r = await fetch(`${host.origin}/`);
    expect(r.status).toBe(503);
    expect(await r.text()).toMatch(/npm run build/);
    expect(r.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
  });
});

describe('startHost on an archive written by an older Loupe', () => {
  it('migrates it first (a worker thread), reporting each batch, then serves it', async () => {
    const old = mkdtempSync(join(tmpdir(), 'loupe-starthost-old-'));
    const db = openDb(join(old, 'loupe.db'), MIGRATIONS.slice(0, 9));
    const ins = db.prepare(
      `INSERT INTO items (platform, kind, id, raw, first_seen_at, last_seen_at) VALUES ('forum_net', 'post', ?, ?, 1, 1)`,
    );
    db.transaction(() => {
      for (let i = 0; i < 6000; i++) ins.run(String(i), JSON.stringify({ id: String(i), ext: { post_title: `guide ${i}` } }));
    })();
    db.close();
    const seen: MigrationProgress[] = [];
    const h = await startHost({
      port: 0,
      dataDir: old,
      secrets: new MemorySecretStore(),
      envKey: null,
      staticDir: join(old, 'no-build'),
      onArchiveProgress: (p) => seen.push(p),
    });
    try {
      expect(seen.filter((p) => p.version === 10 && p.total > 0).map((p) => p.done)).toEqual([5000, 6000]);
      const r = await fetch(`${h.origin}/api/library.query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-loupe-token': h.token },
        body: JSON.stringify({ text: 'guide', limit: 1 }),
      });
      expect(((await r.json()) as { result: { total: number } }).result.total).toBe(6000);
    } finally {
      await h.close();
      rmSync(old, { recursive: true, force: true });
    }
  }, 60_000);
});
