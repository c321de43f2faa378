/**
 * The sandbox HTTP server (node:http, bound to 127.0.0.1). Order of a data request:
 *   auth → limits (concurrency, sliding rate window) → routing → params → cursor → dry_run
 *   → Idempotency-Key → cache lookup and hold (402) → chaos → engine → charge → respond.
 * This file is the entry (admin, /v1 meta, auth, /v1/credits, limits) and the admin operations;
 * the state and plumbing are base.ts, the data request data-request.ts, special answers wire.ts.
 * See docs/sandbox.md for every choice where the spec is silent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket, AddressInfo } from 'node:net';
import { handleAdmin } from './admin';
import { headerOf, readBody, ServerBase } from './base';
import { dataRequest } from './data-request';
import { hashKey } from './keys';
import type { ChaosConfig, ChargeRecord, SandboxStats } from './types';
import { presentCatalogue, presentError, presentOpenApi } from './variants';

export { FREE_CALL_MAX_PRICE, SHARED_CACHE_PRICE, type ServerOptions } from './base';

function isLoopback(addr: string | undefined): boolean {
  return addr === '127.0.0.1' || addr === '::1' || addr === '::ffff:127.0.0.1';
}

export class SandboxServer extends ServerBase {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();

  get url(): string {
    return this.baseUrl;
  }

  listen(port: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const srv = createServer((req, res) => {
        this.handle(req, res).catch((err: unknown) => {
          process.stderr.write(`[sandbox] internal error: ${err instanceof Error ? err.stack : String(err)}\n`);
          if (!res.headersSent) this.sendJson(res, 500, this.errorBody(this.newRequestId(), 'INTERNAL_ERROR', 'Internal error.', null));
        });
      });
      srv.on('connection', (s) => {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
      });
      srv.once('error', reject);
      srv.listen(port, '127.0.0.1', () => {
        const a = srv.address() as AddressInfo;
        this.baseUrl = `http://127.0.0.1:${a.port}`;
        this.server = srv;
        resolve(this.baseUrl);
      });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.server) return resolve();
      this.server.close(() => resolve());
      for (const s of this.sockets) s.destroy();
    });
  }

  stats(): SandboxStats {
    return {
      requests: this.counters.requests,
      counted: this.counters.counted,
      by_status: { ...this.counters.byStatus },
      credits_charged: this.counters.credits,
      free_calls_used: this.counters.freeCalls,
      in_flight: this.limiter.totalInFlight,
      keys: this.keys.keyCount,
      accounts: this.keys.accounts.size,
      chaos_faults: { ...this.counters.chaos },
      scripted_faults: { ...this.faults.applied },
      faults_queued: this.faults.pending().length,
      variants: this.variants.list(),
    };
  }

  // ------------------------------------------------------------------ entry

  /** A new request id on the answer, and its Date: HTTP's Date is the origin's clock (RFC 9110), the sandbox's, which can be advanced and scaled. */
  private stamp(res: ServerResponse): string {
    const requestId = this.newRequestId();
    res.setHeader('X-Request-Id', requestId);
    res.setHeader('Date', new Date(this.clock.now()).toUTCString());
    return requestId;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.counters.requests++;
    const requestId = this.stamp(res);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    const method = (req.method ?? 'GET').toUpperCase();

    if (path.startsWith('/__admin/')) {
      if (!isLoopback(req.socket.remoteAddress))
        return this.sendJson(res, 403, { success: false, error: { type: 'FORBIDDEN', message: 'Admin API is loopback-only.' } });
      const body = await readBody(req);
      const r = handleAdmin(this, method, path.slice('/__admin/'.length), body);
      return this.sendJson(res, r.status, r.body);
    }
    if (path !== '/v1' && !path.startsWith('/v1/'))
      return this.sendJson(res, 404, this.errorBody(requestId, 'NOT_FOUND', 'All API paths start with /v1.', null));

    const sub = path.replace(/\/+$/, '').slice(3); // '' | '/endpoints' | '/photo_net/...'
    if (sub === '' || sub === '/endpoints' || sub === '/openapi.json') {
      if (method !== 'GET' && method !== 'HEAD')
        return this.sendJson(res, 405, this.errorBody(requestId, 'METHOD_NOT_SUPPORTED', 'Only GET is supported.', null), { Allow: 'GET' });
      if (sub === '') {
        return this.sendJson(res, 200, {
          success: true,
          service: 'Social Data Read API (sandbox)',
          version: 'v1',
          schema_version: '2',
          docs: `${this.baseUrl}/v1/endpoints`,
          endpoints: `${this.baseUrl}/v1/endpoints`,
          openapi: `${this.baseUrl}/v1/openapi.json`,
          time: new Date(this.clock.now()).toISOString(),
          request_id: requestId,
        });
      }
      const body =
        sub === '/endpoints'
          ? presentCatalogue(this.deps.registry.buildCatalogue(this.baseUrl), this.variants)
          : presentOpenApi(this.deps.registry.buildOpenApi(this.baseUrl), this.variants);
      return this.sendJson(res, 200, body);
    }

    // Authentication runs before anything else; free, uncounted, credits_remaining null.
    const auth = this.keys.authenticate(headerOf(req, 'x-api-key'));
    if (!auth.ok)
      return this.sendJson(res, 401, presentError(this.errorBody(requestId, auth.type, auth.message, null), this.variants, requestId));
    const account = auth.account;
    const keyHash = auth.key.hash;

    if (sub === '/credits') {
      if (method !== 'GET')
        return this.sendJson(res, 405, this.errorBody(requestId, 'METHOD_NOT_SUPPORTED', 'Only GET is supported.', account.balance));
      return this.sendJson(res, 200, {
        success: true,
        credits_remaining: account.balance,
        credits_used_period: account.usedPeriod,
        period_start: new Date(account.periodStart).toISOString(),
        free_calls_remaining: account.freeCallsRemaining,
        plan: account.plan,
        credits_used: 0,
        request_id: requestId,
      });
    }

    // Limits: concurrency first, then the sliding window. Refused requests are not recorded.
    if (!this.limiter.tryEnter(keyHash))
      return this.sendJson(
        res,
        429,
        presentError(
          this.errorBody(requestId, 'CONCURRENCY_LIMIT', 'More than 10 requests in flight on this key.', null),
          this.variants,
          requestId,
        ),
        { 'Retry-After': '1' },
      );
    let left = false;
    const leave = () => {
      if (!left) {
        left = true;
        this.limiter.leave(keyHash);
      }
    };
    res.on('close', leave);
    const now0 = this.clock.now();
    const admitted = this.limiter.admit(keyHash, now0);
    if (!admitted.ok) {
      leave();
      return this.sendJson(
        res,
        429,
        presentError(
          this.errorBody(requestId, 'RATE_LIMITED', 'More than 60 requests in a sliding 60 seconds on this key.', null),
          this.variants,
          requestId,
        ),
        this.retryAfter(admitted.retryAfterSandboxSeconds),
      );
    }
    this.counters.counted++;
    try {
      await dataRequest(this, req, res, { requestId, account, keyHash, sub, method, url });
    } finally {
      if (res.writableEnded || res.destroyed) leave();
    }
  }

  // ------------------------------------------------------------------ admin operations

  createKey(name?: string, accountId?: string): string {
    return this.keys.createKey(accountId ?? this.defaultAccount.id, name ?? 'key');
  }
  revokeKey(key: string): void {
    this.keys.revoke(key);
  }
  setBalance(n: number, accountId?: string): void {
    const a = this.keys.accounts.get(accountId ?? this.defaultAccount.id);
    if (!a) throw new Error('unknown account');
    if (!(Number.isInteger(n) && n >= 0)) throw new Error('balance must be a non-negative integer');
    a.balance = n;
  }
  setChaos(c: ChaosConfig | number): void {
    this.chaos.set(c);
  }
  /** Replace the active spec variants (throws on an unknown name; nothing changes then). */
  setVariants(list: unknown): string[] {
    this.variants.replace(list);
    return this.variants.list();
  }
  charges(): ChargeRecord[] {
    return this.ledger.records.map((r) => ({ ...r, params: { ...r.params } }));
  }
  keyHashOf(key: string): string {
    return hashKey(key);
  }
}
