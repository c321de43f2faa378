import { Agent, request } from 'undici';
import { isAbortError } from './clock';

/** The raw outcome of one HTTP attempt. Never throws except on caller abort. */
export interface HttpOutcome {
  /** HTTP status, or null when no response arrived */
  status: number | null;
  headers: Record<string, string>;
  /** parsed JSON body; undefined when there is none (see `failure`) */
  json?: unknown;
  /** set when the attempt failed at the transport level (no response, body dropped mid-way, not JSON) */
  failure?: { reason: 'connect' | 'timeout' | 'mid_body' | 'bad_json'; message: string };
  durationMs: number;
}

export interface HttpClientOptions {
  timeoutMs: number;
  userAgent: string;
}

/**
 * Thin undici client with one keep-alive Agent. It knows nothing about keys: the
 * caller passes the headers (x-api-key among them) and nothing here logs them.
 */
export class HttpClient {
  private readonly agent: Agent;

  constructor(private readonly opts: HttpClientOptions) {
    this.agent = new Agent({
      keepAliveTimeout: 10_000,
      keepAliveMaxTimeout: 60_000,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      connections: 32,
    });
  }

  async get(url: string, headers: Record<string, string>, signal?: AbortSignal, timeoutMs?: number): Promise<HttpOutcome> {
    const started = Date.now();
    const t = timeoutMs ?? this.opts.timeoutMs;
    const allHeaders: Record<string, string> = { accept: 'application/json', 'user-agent': this.opts.userAgent, ...headers };
    let status: number | null = null;
    const outHeaders: Record<string, string> = {};
    try {
      const res = await request(url, {
        method: 'GET',
        headers: allHeaders,
        dispatcher: this.agent,
        signal,
        headersTimeout: t,
        bodyTimeout: t,
      });
      status = res.statusCode;
      for (const [k, v] of Object.entries(res.headers)) {
        if (typeof v === 'string') outHeaders[k.toLowerCase()] = v;
        else if (Array.isArray(v)) outHeaders[k.toLowerCase()] = v.join(', ');
      }
      let text: string;
      try {
        text = await res.body.text();
      } catch (e) {
        if (signal?.aborted) throw e;
        return {
          status,
          headers: outHeaders,
          failure: { reason: isTimeout(e) ? 'timeout' : 'mid_body', message: `the connection dropped while reading the answer (${errCode(e)})` },
          durationMs: Date.now() - started,
        };
      }
      try {
        return { status, headers: outHeaders, json: JSON.parse(text) as unknown, durationMs: Date.now() - started };
      } catch {
        return {
          status,
          headers: outHeaders,
          failure: { reason: 'bad_json', message: `the answer was not valid JSON (${text.length} bytes)` },
          durationMs: Date.now() - started,
        };
      }
    } catch (e) {
      if (signal?.aborted || isAbortError(e)) throw e;
      return {
        status,
        headers: outHeaders,
        failure: { reason: isTimeout(e) ? 'timeout' : 'connect', message: `no answer from the service (${errCode(e)})` },
        durationMs: Date.now() - started,
      };
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

function errCode(e: unknown): string {
  if (e && typeof e === 'object') {
    const c = (e as { code?: unknown }).code;
    if (typeof c === 'string') return c;
    const n = (e as { name?: unknown }).name;
    if (typeof n === 'string') return n;
  }
  return 'error';
}

function isTimeout(e: unknown): boolean {
  const c = errCode(e);
  return c === 'UND_ERR_HEADERS_TIMEOUT' || c === 'UND_ERR_BODY_TIMEOUT' || c === 'UND_ERR_CONNECT_TIMEOUT';
}
