import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemorySecretStore } from '../core/secrets';
import { startHost, type Host } from './index';

// startHost end to end: the composed app + in-process sandbox behind the real HTTP door.
let host: Host;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'loupe-starthost-'));
  host = await startHost({ port: 0, dataDir: dir, secrets: new MemorySecretStore(), envKey: null, staticDir: join(dir, 'no-build'), sandbox: { seed: 3, timeScale: 600 } });
});
afterAll(async () => {
  await host?.close();
  rmSync(dir, { recursive: true, force: true });
});

const post = (method: string, input: unknown = {}) =>
  fetch(`${host.origin}/api/${method}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-loupe-token': host.token }, body: JSON.stringify(input) });

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
