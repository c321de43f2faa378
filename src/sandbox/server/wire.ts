/**
 * The special answers of the sandbox server: a dropped connection (chaos / scripted `drop`), a
 * truncated body (`truncate-charged`), a stalled or trickled body (`stall`, `trickle`), and a
 * scripted `status` fault. Plain JSON answers are ServerBase.sendJson.
 */
import type { ServerResponse } from 'node:http';
import type { ServerBase } from './base';
import type { FaultSpec } from './faults';
import { presentError } from './variants';

/** Write headers and half the body, then destroy the socket (chaos `drop`). */
export function sendDropped(s: ServerBase, res: ServerResponse, body: unknown): void {
  const text = JSON.stringify(body);
  s.counters.byStatus['drop'] = (s.counters.byStatus['drop'] ?? 0) + 1;
  res.writeHead(200, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
    'X-Sandbox-Time-Scale': String(s.opts.timeScale),
  });
  res.write(text.slice(0, Math.floor(text.length / 2)), () => res.socket?.destroy());
}

/** Scripted `truncate-charged`: a complete HTTP answer whose JSON body is cut in half. */
export function sendTruncated(s: ServerBase, res: ServerResponse, body: unknown): void {
  const buf = Buffer.from(JSON.stringify(body), 'utf8');
  const cut = buf.subarray(0, Math.floor(buf.length / 2));
  s.counters.byStatus[200] = (s.counters.byStatus[200] ?? 0) + 1;
  res.writeHead(200, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(cut.length),
    'X-Sandbox-Time-Scale': String(s.opts.timeScale),
  });
  res.end(cut);
}

/** Scripted `stall`: 200 headers, then nothing until the client (or the server's close) ends it. */
export function sendStall(s: ServerBase, res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) return resolve();
    res.once('close', () => resolve());
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'X-Sandbox-Time-Scale': String(s.opts.timeScale) });
    res.flushHeaders();
  });
}

/**
 * Scripted `trickle`: 200 headers (with the full Content-Length) at once, then `chunk` bytes of
 * the body every `intervalMs` real ms. Resolves true once the whole body was written, false if
 * the connection closed first.
 */
export function sendTrickle(s: ServerBase, res: ServerResponse, body: unknown, intervalMs: number, chunk: number): Promise<boolean> {
  return new Promise((resolve) => {
    const buf = Buffer.from(JSON.stringify(body), 'utf8');
    let done = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (whole: boolean) => {
      if (done) return;
      done = true;
      if (timer) clearTimeout(timer);
      resolve(whole);
    };
    if (res.destroyed) return finish(false);
    res.once('close', () => finish(res.writableFinished));
    res.writeHead(200, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(buf.length),
      'X-Sandbox-Time-Scale': String(s.opts.timeScale),
    });
    res.flushHeaders();
    let at = 0;
    const tick = () => {
      if (done) return;
      if (res.destroyed) return finish(false);
      const part = buf.subarray(at, at + chunk);
      at += part.length;
      if (at >= buf.length) {
        res.end(part, () => {
          s.counters.byStatus[200] = (s.counters.byStatus[200] ?? 0) + 1;
          finish(true);
        });
      } else {
        res.write(part);
        timer = setTimeout(tick, intervalMs);
      }
    };
    timer = setTimeout(tick, intervalMs);
  });
}

/** Scripted `status` fault: the status, type, Retry-After (real seconds) and body as given. */
export function sendStatusFault(
  s: ServerBase,
  res: ServerResponse,
  f: FaultSpec,
  requestId: string,
  balance: number,
  rec: (status: number, type: string | null) => void,
): void {
  const status = f.status ?? 500;
  const headers: Record<string, string> = {};
  if (f.retryAfter !== undefined) headers['Retry-After'] = String(f.retryAfter);
  s.counters.byStatus[status] = (s.counters.byStatus[status] ?? 0) + 1;
  if (f.body !== undefined) {
    rec(status, f.type ?? null);
    const text = typeof f.body === 'string' ? f.body : JSON.stringify(f.body);
    const ct = f.contentType ?? (typeof f.body === 'string' ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8');
    res.writeHead(status, {
      'Content-Type': ct,
      'Content-Length': String(Buffer.byteLength(text)),
      'X-Sandbox-Time-Scale': String(s.opts.timeScale),
      ...headers,
    });
    res.end(text);
    return;
  }
  const type = f.type ?? 'INTERNAL_ERROR';
  rec(status, type);
  const remaining = status === 429 || type === 'SERVICE_UNAVAILABLE' ? null : balance;
  const body = presentError(
    s.errorBody(requestId, type, f.message ?? `Scripted fault: ${status} ${type}.`, remaining),
    s.variants,
    requestId,
  );
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': f.contentType ?? 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
    'X-Sandbox-Time-Scale': String(s.opts.timeScale),
    ...headers,
  });
  res.end(text);
}
