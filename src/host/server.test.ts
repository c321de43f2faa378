import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openArchive } from '../core/archive';
import type { AppHandle } from '../core/bridge';
import type { LoupeEvent, LoupeImpl } from '../shared/contract';
import { CONTENT_SECURITY_POLICY, startHostServer, type HostServer } from './server';

// A fake core behind the real door: the protocol (token, Origin, Host, validation, errors, SSE,
// downloads, static files) is the door's job whatever the core does.
const SECRET = 'sdr_live_' + 'k'.repeat(43);
const listeners = new Set<(e: LoupeEvent) => void>();
let dir: string;
let exportsDir: string;
let host: HostServer;
const TOKEN = 'test-token-0123456789';
const archive = openArchive(':memory:');

const impl = {
  'app.info': async () => ({
    version: '0',
    sandbox: true,
    baseUrl: 'http://127.0.0.1:1',
    keySet: false,
    activeKeyName: null,
    secretBackend: 'memory',
    secretBackendMessage: null,
    dataDir: dir,
    door: 'web',
  }),
  'walks.get': async ({ walkId }: { walkId: string }) => {
    if (walkId === 'boom') throw new Error(`database exploded while using ${SECRET}\n    at secret stack line`);
    if (walkId === 'api')
      throw Object.assign(new Error('Out of credits: this call holds 340, balance 120 (INSUFFICIENT_CREDITS, request req_1)'), {
        kind: 'api',
        type: 'INSUFFICIENT_CREDITS',
        requestId: 'req_1',
      });
    return null;
  },
  'library.query': async (q: Parameters<typeof archive.query>[0]) => archive.query(q),
  'export.get': async ({ exportId }: { exportId: string }) =>
    exportId === 'e1'
      ? { exportId, status: 'done', rows: 2, total: 2, path: join(exportsDir, 'posts.csv'), downloadUrl: null, error: null }
      : exportId === 'outside'
        ? { exportId, status: 'done', rows: 2, total: 2, path: join(dir, 'settings.json'), downloadUrl: null, error: null }
        : null,
} as unknown as LoupeImpl;

const app: AppHandle = {
  impl,
  events: { on: (l) => (listeners.add(l), () => listeners.delete(l)) },
  secrets: () => [SECRET],
  close: async () => {},
};

function http(method: string, path: string, opts: { headers?: Record<string, string>; body?: string; host?: string } = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((ok, fail) => {
    const req = request(
      { host: '127.0.0.1', port: host.port, method, path, headers: { host: opts.host ?? `127.0.0.1:${host.port}`, ...opts.headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', fail);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}
const call = (method: string, input: unknown, headers: Record<string, string> = {}) =>
  http('POST', `/api/${method}`, {
    headers: { 'content-type': 'application/json', 'x-loupe-token': TOKEN, ...headers },
    body: JSON.stringify(input),
  });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'loupe-host-'));
  exportsDir = join(dir, 'exports');
  mkdirSync(exportsDir);
  writeFileSync(join(exportsDir, 'posts.csv'), '\ufeffid,text\r\n1,hi\r\n');
  writeFileSync(join(dir, 'settings.json'), '{}');
  const web = join(dir, 'web');
  mkdirSync(join(web, 'assets'), { recursive: true });
  writeFileSync(join(web, 'index.html'), '<!doctype html><script type="module" src="/assets/app.js"></script>');
  writeFileSync(join(web, 'assets', 'app.js'), 'console.log(1)');
  host = await startHostServer({ app, staticDir: web, token: TOKEN, exportsDir });
});
afterAll(async () => {
  await host.close();
  archive.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('web host protocol', () => {
  it('listens on 127.0.0.1 only', () => {
    const addr = host.server.address();
    expect(typeof addr === 'object' && addr?.address).toBe('127.0.0.1');
    expect(host.origin).toBe(`http://127.0.0.1:${host.port}`);
  });

  it('answers a contract call with { ok, result } when the token is right', async () => {
    const r = await call('app.info', {});
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ ok: true, result: { sandbox: true, door: 'web' } });
    expect(r.headers['cache-control']).toBe('no-store');
  });

  it('refuses /api without the token, with a wrong token, and a query token on POST', async () => {
    const none = await http('POST', '/api/app.info', { headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(none.status).toBe(401);
    expect(JSON.parse(none.body).error.kind).toBe('unauthorized');
    expect((await call('app.info', {}, { 'x-loupe-token': TOKEN.slice(0, -1) + 'X' })).status).toBe(401);
    const q = await http('POST', `/api/app.info?token=${TOKEN}`, { headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(q.status).toBe(401);
  });

  it('refuses a foreign Origin, a cross-site fetch and a foreign Host (DNS rebinding) even with the token', async () => {
    expect((await call('app.info', {}, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await call('app.info', {}, { origin: `http://127.0.0.1:${host.port + 1}` })).status).toBe(403);
    expect((await call('app.info', {}, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    const rebind = await http('POST', '/api/app.info', {
      host: `evil.example:${host.port}`,
      headers: { 'content-type': 'application/json', 'x-loupe-token': TOKEN },
      body: '{}',
    });
    expect(rebind.status).toBe(403);
    expect((await call('app.info', {}, { origin: host.origin })).status).toBe(200);
  });

  it('validates input with the contract schema and refuses unknown methods and non-JSON bodies', async () => {
    const bad = await call('walks.get', { walkId: 42 });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toMatchObject({ ok: false, error: { kind: 'validation' } });
    expect(JSON.parse(bad.body).error.message).toMatch(/walkId/);
    expect((await call('nope.method', {})).status).toBe(404);
    const form = await http('POST', '/api/app.info', { headers: { 'content-type': 'text/plain', 'x-loupe-token': TOKEN }, body: '{}' });
    expect(form.status).toBe(415);
    const notJson = await http('POST', '/api/app.info', {
      headers: { 'content-type': 'application/json', 'x-loupe-token': TOKEN },
      body: '{oops',
    });
    expect(notJson.status).toBe(400);
  });

  it('sends core failures as a BridgeError: no stack, no key', async () => {
    const r = JSON.parse((await call('walks.get', { walkId: 'boom' })).body);
    expect(r.ok).toBe(false);
    expect(r.error.kind).toBe('internal');
    expect(r.error.message).not.toContain(SECRET);
    expect(r.error.message).not.toMatch(/stack line|\n/);
    expect(r.error).not.toHaveProperty('stack');
    const a = JSON.parse((await call('walks.get', { walkId: 'api' })).body);
    expect(a.error).toEqual({
      kind: 'api',
      type: 'INSUFFICIENT_CREDITS',
      requestId: 'req_1',
      message: expect.stringContaining('Out of credits'),
    });
  });

  it('answers with the error table’s status: a user mistake (a bad library cursor) is 400 and logs nothing, a bug is internal 500 and logs its stack', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const bad = await call('library.query', { after: 'garbage!' });
      expect(bad.status).toBe(400);
      expect(JSON.parse(bad.body)).toEqual({ ok: false, error: { kind: 'validation', message: 'invalid cursor' } });
      expect((await call('walks.get', { walkId: 'api' })).status).toBe(502);
      expect(log).not.toHaveBeenCalled();
      const boom = await call('walks.get', { walkId: 'boom' });
      expect(boom.status).toBe(500);
      expect(JSON.parse(boom.body).error.kind).toBe('internal');
      expect(log).toHaveBeenCalledTimes(1);
      expect(String(log.mock.calls[0][0])).toMatch(/secret stack line/);
      expect(String(log.mock.calls[0][0])).not.toContain(SECRET);
    } finally {
      log.mockRestore();
    }
  });

  it('delivers events over SSE (token in the query) and refuses SSE without it', async () => {
    expect((await http('GET', '/api/events')).status).toBe(401);
    const got = await new Promise<string>((ok, fail) => {
      const req = request(
        { host: '127.0.0.1', port: host.port, path: `/api/events?token=${TOKEN}`, headers: { host: `127.0.0.1:${host.port}` } },
        (res) => {
          expect(res.headers['content-type']).toMatch(/text\/event-stream/);
          let buf = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            buf += c;
            if (buf.includes(': connected')) for (const l of listeners) l({ type: 'notice', level: 'info', message: 'hello' });
            const m = /data: (.*)\n\n/.exec(buf);
            if (m) {
              ok(m[1]);
              req.destroy();
            }
          });
        },
      );
      req.on('error', fail);
      req.end();
    });
    expect(JSON.parse(got)).toEqual({ type: 'notice', level: 'info', message: 'hello' });
  });

  it('downloads a finished export with the token, and nothing outside the exports folder', async () => {
    const r = await http('GET', `/api/exports/e1?token=${TOKEN}`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/text\/csv/);
    expect(r.headers['content-disposition']).toMatch(/attachment; filename="posts.csv"/);
    expect(r.body).toContain('1,hi');
    expect((await http('GET', '/api/exports/e1')).status).toBe(401);
    expect((await http('GET', `/api/exports/outside?token=${TOKEN}`)).status).toBe(404);
    expect((await http('GET', `/api/exports/missing?token=${TOKEN}`)).status).toBe(404);
  });

  it('serves the renderer with a strict CSP, correct MIME types, SPA fallback and no traversal', async () => {
    const index = await http('GET', '/');
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(index.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toMatch(/default-src 'self'/);
    expect(CONTENT_SECURITY_POLICY).toMatch(/script-src 'self'(;|$)/);
    expect(CONTENT_SECURITY_POLICY).toMatch(/connect-src 'self'/);
    expect(CONTENT_SECURITY_POLICY).toMatch(/img-src 'self' data: https:/);
    expect(index.headers['referrer-policy']).toBe('no-referrer');
    const js = await http('GET', '/assets/app.js');
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    const route = await http('GET', '/library/some/route?x=1');
    expect(route.status).toBe(200);
    expect(route.body).toContain('<script type="module"');
    expect((await http('GET', '/assets/missing.js')).status).toBe(404);
    const trav = await http('GET', '/%2e%2e/settings.json');
    expect(trav.status).toBe(404);
    expect(trav.body).not.toContain('{}');
  });

  it('serves a rebuilt renderer file as it is now, whole, and HEAD without a body', async () => {
    const file = join(dir, 'web', 'assets', 'big.js');
    const big = (c: string) => `/*${c.repeat(400_000)}*/`; // several reads' worth, kept in memory
    writeFileSync(file, big('a'));
    const a = await http('GET', '/assets/big.js');
    expect([a.status, a.body.length, a.headers['content-length']]).toEqual([200, 400_004, '400004']);
    expect(a.body).toBe(big('a'));
    writeFileSync(file, big('bb')); // a rebuild: another size
    const b = await http('GET', '/assets/big.js');
    expect(b.body).toBe(big('bb'));
    const head = await http('HEAD', '/assets/big.js');
    expect([head.status, head.headers['content-length'], head.body]).toEqual([200, '800004', '']);
  });
});
