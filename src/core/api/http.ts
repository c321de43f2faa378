import type { Agent } from 'undici';
import { isAbortError } from './clock';

/** The raw outcome of one HTTP attempt. Never throws except on caller abort. */
export interface HttpOutcome {
  /** HTTP status, or null when no response arrived */
  status: number | null;
  headers: Record<string, string>;
  /** parsed JSON body; undefined when there is none (see `failure`) */
  json?: unknown;
  /** the body as text when it was not JSON (a proxy's page, `text/plain`); at most 300 characters */
  text?: string;
  /**
   * set when the attempt failed at the transport level (no response, body dropped mid-way, not
   * JSON, or the attempt's absolute deadline passed). `unsent` is true only when the request
   * certainly never reached the service (connection refused, host not found): nothing can have
   * been charged. Every other failure leaves the outcome unknown (the service may have charged).
   */
  failure?: { reason: 'connect' | 'timeout' | 'mid_body' | 'bad_json'; message: string; unsent?: boolean };
  durationMs: number;
}

export interface HttpClientOptions {
  timeoutMs: number;
  userAgent: string;
}

/** Failures that happen before a request can reach the service: nothing can have been charged. */
const UNSENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_INVALID_URL',
  'UND_ERR_INVALID_ARG',
]);

/** What the request core needs from HTTP: one attempt, and closing. `HttpClient` is the real one. */
export interface HttpPort {
  get(url: string, headers: Record<string, string>, signal?: AbortSignal, timeoutMs?: number): Promise<HttpOutcome>;
  close(): Promise<void>;
}

/**
 * Thin undici client with one keep-alive Agent. It knows nothing about keys: the
 * caller passes the headers (x-api-key among them) and nothing here logs them.
 */
/** undici is read when the first request is made: a command that never calls the service never loads it */
let undici: Promise<typeof import('undici')> | null = null;
// a CommonJS package: Node's import() names its exports, a bundle's (the built CLI) gives them as `default` only
const loadUndici = (): Promise<typeof import('undici')> =>
  (undici ??= import('undici').then((m) => (m as typeof m & { default?: typeof m }).default ?? m));

export class HttpClient implements HttpPort {
  private agent: Agent | null = null;

  constructor(private readonly opts: HttpClientOptions) {}

  private async client(): Promise<{ agent: Agent; request: (typeof import('undici'))['request'] }> {
    const { Agent, request } = await loadUndici();
    this.agent ??= new Agent({
      keepAliveTimeout: 10_000,
      keepAliveMaxTimeout: 60_000,
      headersTimeout: this.opts.timeoutMs,
      bodyTimeout: this.opts.timeoutMs,
      // every attempt the pacers let start gets a socket: 10 in flight per key × the spec's 25 keys
      // (a smaller pool would queue started attempts inside the client, where no pacer sees them)
      connections: 256,
    });
    return { agent: this.agent, request };
  }

  /**
   * One attempt. `timeoutMs` is an ABSOLUTE deadline for the whole attempt (headers and body):
   * undici's own body timeout restarts on every chunk, so a server trickling a byte at a time
   * would otherwise hold the attempt forever.
   */
  async get(url: string, headers: Record<string, string>, signal?: AbortSignal, timeoutMs?: number): Promise<HttpOutcome> {
    const started = Date.now();
    const t = timeoutMs ?? this.opts.timeoutMs;
    const allHeaders: Record<string, string> = { accept: 'application/json', 'user-agent': this.opts.userAgent, ...headers };
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), t);
    const onAbort = () => deadline.abort();
    if (signal?.aborted) deadline.abort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    let status: number | null = null;
    const outHeaders: Record<string, string> = {};
    const done = (extra: Partial<HttpOutcome>): HttpOutcome => ({
      status,
      headers: outHeaders,
      durationMs: Date.now() - started,
      ...extra,
    });
    const fail = (e: unknown, reading: boolean): HttpOutcome => {
      if (signal?.aborted) throw e;
      if (deadline.signal.aborted)
        return done({
          failure: { reason: 'timeout', message: `no complete answer within ${Math.round(t / 1000)} s (the attempt's deadline)` },
        });
      if (isAbortError(e)) throw e;
      const code = errCode(e);
      if (reading)
        return done({
          failure: { reason: isTimeout(e) ? 'timeout' : 'mid_body', message: `the connection dropped while reading the answer (${code})` },
        });
      return done({
        failure: {
          reason: isTimeout(e) ? 'timeout' : 'connect',
          message: `no answer from the service (${code})`,
          ...(UNSENT.has(code) ? { unsent: true } : {}),
        },
      });
    };
    try {
      let res;
      try {
        const { agent, request } = await this.client();
        res = await request(url, {
          method: 'GET',
          headers: allHeaders,
          dispatcher: agent,
          signal: deadline.signal,
          headersTimeout: t,
          bodyTimeout: t,
        });
      } catch (e) {
        return fail(e, false);
      }
      status = res.statusCode;
      for (const [k, v] of Object.entries(res.headers)) {
        if (typeof v === 'string') outHeaders[k.toLowerCase()] = v;
        else if (Array.isArray(v)) outHeaders[k.toLowerCase()] = v.join(', ');
      }
      let text: string;
      try {
        text = await res.body.text();
      } catch (e) {
        return fail(e, true);
      }
      try {
        return done({ json: JSON.parse(text) as unknown });
      } catch {
        return done({
          text: text.slice(0, 300),
          failure: { reason: 'bad_json', message: `the answer was not valid JSON (${text.length} bytes)` },
        });
      }
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async close(): Promise<void> {
    await this.agent?.close();
  }
}

function errCode(e: unknown): string {
  if (e && typeof e === 'object') {
    const c = (e as { code?: unknown }).code;
    if (typeof c === 'string') return c;
    const cause = (e as { cause?: { code?: unknown } }).cause;
    if (cause && typeof cause.code === 'string') return cause.code;
    const n = (e as { name?: unknown }).name;
    if (typeof n === 'string') return n;
  }
  return 'error';
}

function isTimeout(e: unknown): boolean {
  const c = errCode(e);
  return c === 'UND_ERR_HEADERS_TIMEOUT' || c === 'UND_ERR_BODY_TIMEOUT' || c === 'UND_ERR_CONNECT_TIMEOUT';
}
