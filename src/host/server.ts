/**
 * The web door: the built renderer and the contract over HTTP on 127.0.0.1 (docs/doors.md).
 *
 *   POST /api/<method>          JSON in → 200 { ok: true, result } | { ok: false, error: SerializedError }
 *                               with the error table's status for its kind (src/shared/errors.ts)
 *   GET  /api/events?token=…    Server-Sent Events, one LoupeEvent JSON per `data:` line
 *   GET  /api/exports/<id>?token=…  the finished export file, or copy of the archive (attachment)
 *   GET  anything else          static files from the renderer build, SPA fallback to index.html
 *
 * Guards on every /api request: the per-run token (header `x-loupe-token`; `?token=` only on the
 * GET routes, which EventSource and downloads cannot give headers to), the Host header must name
 * this loopback server (DNS-rebinding defence), and an Origin, when sent, must be this server's
 * own origin. The server binds 127.0.0.1 only.
 */
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { basename, extname, join, resolve, sep } from 'node:path';
import type { AddressInfo } from 'node:net';
import { dispatch, logIfBug, type AppHandle } from '../core/bridge';
import type { ExportJob, LoupeEvent, SnapshotJob } from '../shared/contract';
import { httpStatusOf, type ErrorKind, type SerializedError } from '../shared/errors';
import { CONTENT_SECURITY_POLICY, MIME_TYPES, rendererFile } from '../core/renderer-assets';

export const LOOPBACK = '127.0.0.1';
const MAX_BODY = 2 * 1024 * 1024;
const HEARTBEAT_MS = 15_000;

export { CONTENT_SECURITY_POLICY };

const MIME = MIME_TYPES;

const BASE_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  // the page URL carries ?token= until the renderer removes it: never leak it in a Referer
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

export interface HostServerOptions {
  app: AppHandle;
  /** the renderer build (index.html + assets) */
  staticDir: string;
  /** 0 = a free port */
  port?: number;
  /** the per-run token (random when omitted) */
  token: string;
  /** where finished exports may be read from (downloads outside it are refused) */
  exportsDir: string;
}

export interface HostServer {
  server: Server;
  port: number;
  origin: string;
  close(): Promise<void>;
}

function tokenEquals(a: string | null | undefined, b: string): boolean {
  if (!a) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function send(res: ServerResponse, status: number, body: string | Buffer, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...BASE_HEADERS, 'cache-control': 'no-store', ...headers });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, JSON.stringify(value), { 'content-type': 'application/json; charset=utf-8' });
}

/** A refusal by the door itself; `status` when the transport says more than the kind (405, 413, 415). */
function refuse(res: ServerResponse, status: number, kind: ErrorKind, message: string): void {
  sendJson(res, status, { ok: false, error: { kind, message } satisfies SerializedError });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(Object.assign(new Error('too large'), { code: 'TOO_LARGE' }));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolveBody(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const rendererCache = new Map<string, { mtimeMs: number; body: Buffer }>();

/**
 * The renderer's files, read whole (a few hundred KB each) and kept while their size and time are
 * the same: a page's code goes out in one write as soon as it is asked for. Streamed, its chunks
 * waited behind the first page's query (SQLite answers on this thread), and the Library's code
 * reached the page after its rows (issue 30 "Opening").
 */
function rendererBytes(file: string): Buffer {
  const st = statSync(file);
  const hit = rendererCache.get(file);
  if (hit && hit.mtimeMs === st.mtimeMs && hit.body.length === st.size) return hit.body;
  const body = readFileSync(file);
  rendererCache.set(file, { mtimeMs: st.mtimeMs, body });
  return body;
}

export async function startHostServer(opts: HostServerOptions): Promise<HostServer> {
  const { app, token } = opts;
  const staticRoot = resolve(opts.staticDir);
  const exportsRoot = resolve(opts.exportsDir);
  let port = 0;
  const sseClients = new Set<ServerResponse>();

  const allowedHosts = () => new Set([`${LOOPBACK}:${port}`, `localhost:${port}`]);

  /** Host and Origin checks; returns an error sentence or null. */
  function originProblem(req: IncomingMessage): string | null {
    const host = (req.headers.host ?? '').toLowerCase();
    if (!allowedHosts().has(host)) return 'This server answers only at its own loopback address.';
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${host}`) return 'Cross-origin requests are refused.';
    const site = req.headers['sec-fetch-site'];
    if (site === 'cross-site') return 'Cross-site requests are refused.';
    return null;
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const problem = originProblem(req);
    if (problem) return refuse(res, 403, 'forbidden', problem);
    const headerToken = req.headers['x-loupe-token'];
    const given = typeof headerToken === 'string' ? headerToken : req.method === 'GET' ? url.searchParams.get('token') : null;
    if (!tokenEquals(given, token)) return refuse(res, 401, 'unauthorized', 'Missing or wrong session token: open the URL Loupe printed.');

    const path = url.pathname;
    if (path === '/api/events') {
      if (req.method !== 'GET') return refuse(res, 405, 'validation', 'Use GET for /api/events.');
      return openEvents(req, res);
    }
    if (path.startsWith('/api/exports/')) {
      if (req.method !== 'GET') return refuse(res, 405, 'validation', 'Use GET to download an export.');
      return download(res, decodeURIComponent(path.slice('/api/exports/'.length)), url.searchParams.get('file'));
    }
    const method = decodeURIComponent(path.slice('/api/'.length));
    if (req.method !== 'POST') return refuse(res, 405, 'validation', `Use POST for /api/${method}.`);
    const ctype = (req.headers['content-type'] ?? '').toLowerCase();
    if (!ctype.startsWith('application/json')) return refuse(res, 415, 'validation', 'Send the input as application/json.');
    let raw: string;
    try {
      raw = await readBody(req);
    } catch (e) {
      if ((e as { code?: string }).code === 'TOO_LARGE') return refuse(res, 413, 'validation', 'The request body is too large.');
      return refuse(res, 400, 'validation', 'Could not read the request body.');
    }
    let input: unknown = {};
    if (raw.trim()) {
      try {
        input = JSON.parse(raw);
      } catch {
        return refuse(res, 400, 'validation', 'The request body is not valid JSON.');
      }
    }
    const out = await dispatch(app, method, input);
    // one status per kind, from the error table (validation 400, not_found 404, internal 500, …)
    sendJson(res, out.ok ? 200 : httpStatusOf(out.error), out);
  }

  function openEvents(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, {
      ...BASE_HEADERS,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 2000\n: connected\n\n');
    sseClients.add(res);
    const off = app.events.on((e: LoupeEvent) => {
      res.write(`data: ${JSON.stringify(e)}\n\n`);
    });
    const beat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS);
    beat.unref();
    const done = () => {
      clearInterval(beat);
      off();
      sseClients.delete(res);
    };
    req.on('close', done);
    res.on('close', done);
  }

  /** an export's file, or one of the files written beside it (`file`: history, annotations) */
  async function download(res: ServerResponse, exportId: string, table: string | null = null): Promise<void> {
    const r = await dispatch(app, 'export.get', { exportId });
    if (!r.ok) return sendJson(res, httpStatusOf(r.error), r);
    let job = r.result as Pick<ExportJob, 'status' | 'path' | 'files'> | null;
    if (!job && table === null) {
      // a copy of the archive (archive.snapshot) downloads the same way from the same folder
      const s = await dispatch(app, 'archive.snapshotGet', { snapshotId: exportId });
      if (s.ok) job = s.result as Pick<SnapshotJob, 'status' | 'path'> | null;
    }
    if (!job) return refuse(res, 404, 'not_found', 'No such export.');
    if (job.status !== 'done' || !job.path) return refuse(res, 409, 'validation', `The export is ${job.status}, not ready to download.`);
    const side = table === null ? null : (job.files ?? []).find((f) => f.table === table);
    if (table !== null && !side) return refuse(res, 404, 'not_found', `This export has no ${table} file.`);
    const file = resolve(side ? side.path : job.path);
    if (!file.startsWith(exportsRoot + sep) || !existsSync(file)) return refuse(res, 404, 'not_found', 'The export file is gone.');
    const name = basename(file);
    res.writeHead(200, {
      ...BASE_HEADERS,
      'cache-control': 'no-store',
      'content-type': MIME[extname(name).toLowerCase()] ?? 'application/octet-stream',
      'content-length': String(statSync(file).size),
      'content-disposition': `attachment; filename="${name.replace(/[^\w.-]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`,
    });
    createReadStream(file).pipe(res);
  }

  function serveStatic(req: IncomingMessage, res: ServerResponse, url: URL): void {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return send(res, 405, 'Method not allowed', { 'content-type': 'text/plain; charset=utf-8' });
    const host = (req.headers.host ?? '').toLowerCase();
    if (!allowedHosts().has(host)) return send(res, 403, 'Forbidden', { 'content-type': 'text/plain; charset=utf-8' });
    const f = rendererFile(staticRoot, url.pathname);
    if (f.kind === 'bad_path') return send(res, 400, 'Bad path', { 'content-type': 'text/plain; charset=utf-8' });
    if (f.kind === 'not_found') return send(res, 404, 'Not found', { 'content-type': 'text/plain; charset=utf-8' });
    if (f.kind === 'not_built') return sendNotBuilt(res);
    const file = f.file;
    const headers: Record<string, string> = { ...BASE_HEADERS, 'content-type': f.contentType };
    if (f.html) {
      headers['content-security-policy'] = CONTENT_SECURITY_POLICY;
      headers['cache-control'] = 'no-store';
    } else {
      headers['cache-control'] = decodeURIComponent(url.pathname).startsWith('/assets/')
        ? 'public, max-age=31536000, immutable'
        : 'no-cache';
    }
    const body = rendererBytes(file);
    headers['content-length'] = String(body.length);
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  function sendNotBuilt(res: ServerResponse): void {
    const html =
      '<!doctype html><meta charset="utf-8"><title>Loupe</title><body><h1>Loupe</h1>' +
      '<p>The user interface has not been built yet. Run <code>npm run build</code> (or <code>npm run serve</code>, which builds it), then reload.</p></body>';
    send(res, 503, html, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': CONTENT_SECURITY_POLICY });
  }

  const server = createServer((req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://loopback');
    } catch {
      return send(res, 400, 'Bad request', { 'content-type': 'text/plain; charset=utf-8' });
    }
    const work =
      url.pathname === '/api' || url.pathname.startsWith('/api/') ? handleApi(req, res, url) : Promise.resolve(serveStatic(req, res, url));
    work.catch((e: unknown) => {
      // a failure of the door itself is a bug: its stack (redacted) on stderr, never in the answer
      logIfBug(`host ${req.method} ${url.pathname}`, e, { kind: 'internal', message: '' }, app.secrets());
      if (!res.headersSent) refuse(res, 500, 'internal', 'The host failed to answer.');
      else res.end();
    });
  });
  server.keepAliveTimeout = 5_000;

  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen({ port: opts.port ?? 0, host: LOOPBACK }, () => ok());
  });
  port = (server.address() as AddressInfo).port;
  const origin = `http://${LOOPBACK}:${port}`;

  return {
    server,
    port,
    origin,
    async close() {
      for (const c of sseClients) c.end();
      sseClients.clear();
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}

/** True when the built renderer's index.html exists in `dir`. */
export function rendererBuilt(dir: string): boolean {
  try {
    return readFileSync(join(dir, 'index.html'), 'utf8').length > 0;
  } catch {
    return false;
  }
}
