/**
 * The sandbox HTTP server (node:http, bound to 127.0.0.1). Order of a data request:
 *   auth → limits (concurrency, sliding rate window) → routing → params → cursor → dry_run
 *   → Idempotency-Key → cache lookup and hold (402) → chaos → engine → charge → respond.
 * See docs/sandbox.md for every choice where the spec is silent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { isValidIdempotencyKey } from '../../shared/api-types';
import type { EndpointDef } from '../types';
import { Chaos, type ChaosFault } from './chaos';
import { SandboxClock } from './clock';
import { CursorCodec, paramsHash } from './cursor';
import { cursorTtlMs, dryRunData, holdFor, makePlan, readPosition, RequestError, runEngine, type Plan } from './engine';
import { FaultQueue, type FaultSpec } from './faults';
import { hashKey, KeyStore, type Account } from './keys';
import { RateLimiter } from './ratelimit';
import { IdempotencyStore, Ledger, RecallStore, ResponseCache } from './state';
import type { ChaosConfig, ChargeRecord, SandboxStats, ServerDeps } from './types';
import { handleAdmin } from './admin';
import { CURSOR_ERRORS, NATIVE_TOKEN_PARAMS, presentCatalogue, presentError, presentOpenApi, presentSuccess, VariantSet } from './variants';

export interface ServerOptions {
  seed: number;
  balance: number;
  timeScale: number;
  latencyMs: number;
  chaos?: ChaosConfig | number;
  keyPrefix: string;
  freeCalls: number;
  epoch: number;
  /** Spec variants active at start (names from SPEC_VARIANTS). */
  variants?: readonly string[];
  /** Real-time source (tests may inject). */
  realNow?: () => number;
}

/** Price of a shared-cache read for an account that does not own the answer (spec Limits rule 5/7). */
export const SHARED_CACHE_PRICE = 2;
/** Calls whose charge is at most this are covered by an introductory free call. */
export const FREE_CALL_MAX_PRICE = 100;
/** 409 IDEMPOTENCY_IN_PROGRESS Retry-After, sandbox seconds. */
const IDEM_RETRY_SANDBOX_S = 2;

type Json = Record<string, unknown>;

const NETWORK_WORDS =
  'Served networks: photo, short-video, social, professional, microblog, thread, long-video, forum and pinboard networks.';

function isLoopback(addr: string | undefined): boolean {
  return addr === '127.0.0.1' || addr === '::1' || addr === '::ffff:127.0.0.1';
}

export class SandboxServer {
  readonly clock: SandboxClock;
  readonly keys: KeyStore;
  readonly limiter = new RateLimiter();
  readonly cache = new ResponseCache();
  readonly idem = new IdempotencyStore();
  readonly recalls = new RecallStore();
  readonly ledger = new Ledger();
  readonly chaos: Chaos;
  /** Spec variants (docs/sandbox.md "Spec variants"). */
  readonly variants: VariantSet;
  /** Scripted faults (docs/sandbox.md "Scripted faults"). */
  readonly faults = new FaultQueue();
  readonly labelled = new Set<string>();
  readonly defaultAccount: Account;
  readonly demoKey: string;
  private readonly codec = new CursorCodec(randomBytes(32));
  private readonly holds = new Map<string, number>();
  private server: Server | null = null;
  private baseUrl = '';
  private reqSeq = 0;
  /** Rejected cursors so far under variant cursor-error (picks the refusal in turn). */
  private cursorRejections = 0;
  private readonly sockets = new Set<import('node:net').Socket>();
  readonly counters = { requests: 0, counted: 0, byStatus: {} as Record<string, number>, credits: 0, freeCalls: 0, chaos: {} as Record<string, number> };

  constructor(
    readonly deps: ServerDeps,
    readonly opts: ServerOptions,
  ) {
    this.clock = new SandboxClock(opts.epoch, opts.timeScale, opts.realNow);
    this.keys = new KeyStore(opts.keyPrefix, () => this.clock.now());
    this.chaos = new Chaos(opts.chaos, opts.seed);
    this.variants = new VariantSet(opts.variants ?? []);
    this.defaultAccount = this.keys.createAccount({ balance: opts.balance, freeCalls: opts.freeCalls });
    this.demoKey = this.keys.createKey(this.defaultAccount.id, 'demo');
  }

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

  // ------------------------------------------------------------------ plumbing

  private newRequestId(): string {
    return `req_${(++this.reqSeq).toString(36).padStart(6, '0')}${randomBytes(6).toString('hex')}`;
  }

  private errorBody(requestId: string, type: string, message: string, creditsRemaining: number | null, reason?: string): Json {
    return {
      success: false,
      error: { type, message, ...(reason ? { reason } : {}) },
      request_id: requestId,
      credits_used: 0,
      credits_remaining: creditsRemaining,
    };
  }

  private sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(body);
    this.counters.byStatus[status] = (this.counters.byStatus[status] ?? 0) + 1;
    res.writeHead(status, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(text)),
      'X-Sandbox-Time-Scale': String(this.opts.timeScale),
      ...headers,
    });
    res.end(text);
  }

  /** Write headers and half the body, then destroy the socket (chaos `drop`). */
  private sendDropped(res: ServerResponse, body: unknown): void {
    const text = JSON.stringify(body);
    this.counters.byStatus['drop'] = (this.counters.byStatus['drop'] ?? 0) + 1;
    res.writeHead(200, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(text)),
      'X-Sandbox-Time-Scale': String(this.opts.timeScale),
    });
    res.write(text.slice(0, Math.floor(text.length / 2)), () => res.socket?.destroy());
  }

  /** Scripted `truncate-charged`: a complete HTTP answer whose JSON body is cut in half. */
  private sendTruncated(res: ServerResponse, body: unknown): void {
    const buf = Buffer.from(JSON.stringify(body), 'utf8');
    const cut = buf.subarray(0, Math.floor(buf.length / 2));
    this.counters.byStatus[200] = (this.counters.byStatus[200] ?? 0) + 1;
    res.writeHead(200, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(cut.length),
      'X-Sandbox-Time-Scale': String(this.opts.timeScale),
    });
    res.end(cut);
  }

  /** Scripted `stall`: 200 headers, then nothing until the client (or the server's close) ends it. */
  private sendStall(res: ServerResponse): Promise<void> {
    return new Promise((resolve) => {
      if (res.destroyed) return resolve();
      res.once('close', () => resolve());
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'X-Sandbox-Time-Scale': String(this.opts.timeScale) });
      res.flushHeaders();
    });
  }

  /**
   * Scripted `trickle`: 200 headers (with the full Content-Length) at once, then `chunk` bytes of
   * the body every `intervalMs` real ms. Resolves true once the whole body was written, false if
   * the connection closed first.
   */
  private sendTrickle(res: ServerResponse, body: unknown, intervalMs: number, chunk: number): Promise<boolean> {
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
        'X-Sandbox-Time-Scale': String(this.opts.timeScale),
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
            this.counters.byStatus[200] = (this.counters.byStatus[200] ?? 0) + 1;
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

  private retryAfter(sandboxSeconds: number): Record<string, string> {
    return { 'Retry-After': String(this.clock.toRealSeconds(sandboxSeconds)) };
  }

  private heldFor(account: string): number {
    return this.holds.get(account) ?? 0;
  }

  // ------------------------------------------------------------------ entry

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.counters.requests++;
    const requestId = this.newRequestId();
    res.setHeader('X-Request-Id', requestId);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    const method = (req.method ?? 'GET').toUpperCase();

    if (path.startsWith('/__admin/')) {
      if (!isLoopback(req.socket.remoteAddress)) return this.sendJson(res, 403, { success: false, error: { type: 'FORBIDDEN', message: 'Admin API is loopback-only.' } });
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
      const body = sub === '/endpoints'
        ? presentCatalogue(this.deps.registry.buildCatalogue(this.baseUrl), this.variants)
        : presentOpenApi(this.deps.registry.buildOpenApi(this.baseUrl), this.variants);
      return this.sendJson(res, 200, body);
    }

    // Authentication runs before anything else; free, uncounted, credits_remaining null.
    const auth = this.keys.authenticate(headerOf(req, 'x-api-key'));
    if (!auth.ok) return this.sendJson(res, 401, presentError(this.errorBody(requestId, auth.type, auth.message, null), this.variants, requestId));
    const account = auth.account;
    const keyHash = auth.key.hash;

    if (sub === '/credits') {
      if (method !== 'GET') return this.sendJson(res, 405, this.errorBody(requestId, 'METHOD_NOT_SUPPORTED', 'Only GET is supported.', account.balance));
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
      return this.sendJson(res, 429, presentError(this.errorBody(requestId, 'CONCURRENCY_LIMIT', 'More than 10 requests in flight on this key.', null), this.variants, requestId), { 'Retry-After': '1' });
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
      return this.sendJson(res, 429, presentError(this.errorBody(requestId, 'RATE_LIMITED', 'More than 60 requests in a sliding 60 seconds on this key.', null), this.variants, requestId), this.retryAfter(admitted.retryAfterSandboxSeconds));
    }
    this.counters.counted++;
    try {
      await this.dataRequest(req, res, { requestId, account, keyHash, sub, method, url });
    } finally {
      if (res.writableEnded || res.destroyed) leave();
    }
  }

  private async dataRequest(
    req: IncomingMessage,
    res: ServerResponse,
    c: { requestId: string; account: Account; keyHash: string; sub: string; method: string; url: URL },
  ): Promise<void> {
    const { requestId, account } = c;
    const query: Record<string, string> = {};
    for (const [k, v] of c.url.searchParams) query[k] = v;
    const segs = c.sub.slice(1).split('/');
    const platform = segs[0];
    const path = segs.slice(1).join('/');
    const endpointPath = `/v1/${platform}/${path}`;
    const idemHeader = headerOf(req, 'idempotency-key');
    const idemKey = idemHeader !== undefined && isValidIdempotencyKey(idemHeader) ? idemHeader : null;
    // whose Idempotency-Keys: the account's (default reading), or each API key's (idempotency-per-key)
    const idemScope = this.variants.has('idempotency-per-key') ? `${account.id}|${c.keyHash}` : account.id;
    // A client that goes away before the answer is written never receives it (undelivered).
    let clientClosed = false;
    res.once('close', () => {
      if (!res.writableFinished) clientClosed = true;
    });

    const record = (status: number, extra: Partial<ChargeRecord>): void => {
      this.ledger.add({
        request_id: requestId,
        key_hash: c.keyHash,
        account: account.id,
        platform,
        endpoint: endpointPath,
        params: query,
        idempotency_key: idemKey,
        credits_used: 0,
        charge_reason: null,
        cached: false,
        free_call: false,
        replay: false,
        status,
        error_type: null,
        fault: null,
        at: this.clock.now(),
        at_real: Date.now(),
        ...extra,
      });
    };
    const fail = (status: number, type: string, message: string, opts: { remaining?: number | null; headers?: Record<string, string>; reason?: string; fault?: string } = {}): void => {
      record(status, { error_type: type, ...(opts.fault ? { fault: opts.fault } : {}) });
      const remaining = opts.remaining === undefined ? account.balance : opts.remaining;
      this.sendJson(res, status, presentError(this.errorBody(requestId, type, message, remaining, opts.reason), this.variants, requestId), opts.headers);
    };

    // Routing.
    if (!this.deps.registry.servedPlatforms.includes(platform))
      return fail(404, 'UNKNOWN_PLATFORM', `Unknown network '${platform}'. ${NETWORK_WORDS}`);
    const def = this.deps.registry.findEndpoint(platform, path);
    if (!def) return fail(404, 'UNKNOWN_ENDPOINT', `The ${platform} network has no endpoint '${path}'. See GET /v1/endpoints.`);
    if (!def.gettable) return fail(405, 'METHOD_NOT_SUPPORTED', `'${path}' is listed in the catalogue but cannot be called through the API.`);
    if (c.method !== 'GET') return fail(405, 'METHOD_NOT_SUPPORTED', 'Only GET is supported.', { headers: { Allow: 'GET' } });

    const base = { success: true, platform, endpoint: endpointPath, schema_version: '2' };
    const present = (body: Json): Json =>
      presentSuccess(body, this.variants, { def, requestId, now: this.clock.now(), cursorTtlMs: cursorTtlMs(def) });

    // fit=goal recall: `recall=<data.held_back.recall_id>` on the same endpoint re-reads the full
    // page from cache, free. The id alone names the page (other params are not needed and are
    // ignored). Unknown, foreign (another account or endpoint) or expired ids → 400, free.
    if (def.labels && query.recall !== undefined) {
      const got = this.recalls.get(query.recall, account.id, platform, def.path, this.clock.now());
      if (!got.ok) {
        const msg = got.reason === 'recall_expired'
          ? 'This recall id has expired (its cache window ended). Call the endpoint again without `recall`.'
          : 'Unknown recall id for this endpoint. Send the `data.held_back.recall_id` of a fit=goal answer on the same endpoint.';
        return fail(400, 'INVALID_REQUEST', msg, { reason: got.reason });
      }
      const e = got.entry;
      record(200, { charge_reason: 'cached', cached: true });
      return this.sendJson(res, 200, present({
        ...base,
        ...(e.pagination ? { pagination: e.pagination } : {}),
        unavailable: e.unavailable,
        credits_used: 0,
        credits_remaining: account.balance,
        request_id: requestId,
        cached: true,
        idempotent_replay: false,
        charge_reason: 'cached',
        free_call: false,
        data: e.data,
        ...(e.warnings.length > 0 ? { warnings: e.warnings } : {}),
      }));
    }

    // Parameters.
    const v = this.deps.registry.validateParams(def, query);
    if (!v.ok) return fail(400, v.type, v.message);
    const params = v.params; // normalised by the registry (empty values dropped)
    let plan: Plan;
    let pos;
    const now = this.clock.now();
    try {
      plan = makePlan(def, params);
      pos = readPosition(def, params, this.codec, now, this.variants.has('native-ignores-foreign') ? { ignoreServiceTokenIn: NATIVE_TOKEN_PARAMS } : {});
    } catch (e) {
      if (e instanceof RequestError) {
        if (e.type === 'INVALID_CURSOR' && this.variants.has('cursor-error')) {
          const r = CURSOR_ERRORS[this.cursorRejections++ % CURSOR_ERRORS.length];
          return fail(r.status, r.type, e.message);
        }
        return fail(e.status, e.type, e.message);
      }
      throw e;
    }

    const isLabelled = (k: string) => this.labelled.has(k);

    if (plan.dryRun) {
      const data = dryRunData(plan, { world: this.deps.world, now, isLabelled });
      record(200, { charge_reason: 'dry_run' });
      return this.sendJson(res, 200, present({
        ...base, unavailable: [], credits_used: 0, credits_remaining: account.balance, request_id: requestId,
        cached: false, idempotent_replay: false, charge_reason: 'dry_run', free_call: false, data,
      }));
    }

    // Idempotency-Key (scoped per account).
    const fingerprint = `${endpointPath}?${paramsHash(query)}`;
    let ceilingRetry = false;
    if (idemKey !== null) {
      const rec = this.idem.get(idemScope, idemKey, now);
      if (rec && rec.fingerprint !== fingerprint)
        return fail(422, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request. Use a fresh key per logical operation.');
      if (rec?.state === 'running')
        return fail(409, 'IDEMPOTENCY_IN_PROGRESS', 'A call with the same Idempotency-Key is still running.', { headers: this.retryAfter(IDEM_RETRY_SANDBOX_S) });
      if (rec?.state === 'done') {
        const body = { ...rec.body, request_id: requestId, credits_used: 0, credits_remaining: account.balance, idempotent_replay: true, charge_reason: 'replay', free_call: false };
        record(rec.status, { charge_reason: 'replay', replay: true, cached: Boolean(rec.body.cached) });
        return this.sendJson(res, rec.status, present(body));
      }
      ceilingRetry = rec?.state === 'undelivered';
      this.idem.set(idemScope, idemKey, { state: 'running', fingerprint, at: now });
    }
    /** The keyed call ended in an error: forget it (default), or keep the ceiling for its retry. */
    const clearIdem = () => {
      if (idemKey === null) return;
      // strict-ceiling: a same-key retry after ANY unsuccessful original pays the ceiling.
      if (ceilingRetry || this.variants.has('strict-ceiling')) this.idem.set(idemScope, idemKey, { state: 'undelivered', fingerprint, at: now });
      else this.idem.delete(idemScope, idemKey);
    };

    // Cache lookup (exact call, cursor normalised to its position) and the hold.
    const noCache = /no-cache/i.test(headerOf(req, 'cache-control') ?? '');
    const cacheOff = this.variants.has('no-cache-window');
    const cacheKey = this.cacheKey(def, params, pos.token);
    const hit = noCache || cacheOff ? null : this.cache.get(cacheKey, now);
    const owner = hit !== null && hit.owners.has(account.id);
    const hold = hit ? (owner ? 0 : SHARED_CACHE_PRICE) : holdFor(plan);
    const available = account.balance - this.heldFor(account.id);
    if (available < hold) {
      clearIdem();
      return fail(402, 'INSUFFICIENT_CREDITS', `This call must hold ${hold} credits but the balance is ${account.balance} credits${this.heldFor(account.id) > 0 ? ` (${this.heldFor(account.id)} held by calls in flight)` : ''}.`);
    }
    this.holds.set(account.id, this.heldFor(account.id) + hold);
    let released = false;
    const release = () => {
      if (!released) {
        released = true;
        this.holds.set(account.id, this.heldFor(account.id) - hold);
      }
    };

    try {
      // Scripted faults first (deterministic), else chaos on fresh calls. Never charged, except
      // as documented for drop (variant drop-charged), trickle (when fully delivered) and
      // truncate-charged.
      const scripted: FaultSpec | null = this.faults.take(endpointPath);
      const fault: ChaosFault | null = hit || scripted ? null : this.chaos.draw();
      if (fault) this.counters.chaos[fault] = (this.counters.chaos[fault] ?? 0) + 1;
      const faultName = scripted ? scripted.kind : fault ? `chaos:${fault}` : null;
      let failPage: number | null = null;
      if (fault === '429' || fault === '500' || fault === '503') {
        const page = plan.maxPages > 1 && fault !== '429' ? 1 + Math.floor(this.chaos.next() * plan.maxPages) : 1;
        if (page > 1) failPage = page;
        else {
          clearIdem();
          const f = { fault: faultName ?? undefined };
          if (fault === '429') return fail(429, 'RATE_LIMITED', 'Rate limited upstream; retry after the given delay.', { ...f, remaining: null, headers: this.retryAfter(1 + Math.floor(this.chaos.next() * 10)) });
          if (fault === '500') return fail(500, 'INTERNAL_ERROR', 'Internal error while serving the call.', f);
          if (this.chaos.next() < 0.5) return fail(503, 'UPSTREAM_ERROR', 'The network did not answer, even after internal retries.', { ...f, headers: this.retryAfter(5) });
          return fail(503, 'SERVICE_UNAVAILABLE', 'Capacity exhausted; try again later.', { ...f, remaining: null, headers: this.retryAfter(30) });
        }
      }
      if (scripted?.kind === 'status') {
        clearIdem();
        return this.sendStatusFault(res, scripted, requestId, account.balance, (status, type) => record(status, { error_type: type, fault: 'status' }));
      }
      const delay = this.opts.latencyMs + (fault === 'slow' ? this.chaos.config.slowMs : 0);
      if (delay > 0) await sleep(delay);

      /** The answer never reached the client: nothing charged, no ownership, a keyed retry pays the ceiling. */
      const undelivered = (why: string | null): void => {
        if (idemKey !== null) this.idem.set(idemScope, idemKey, { state: 'undelivered', fingerprint, at: now });
        record(499, { error_type: 'CLIENT_CLOSED_REQUEST', fault: why });
        this.counters.byStatus['499'] = (this.counters.byStatus['499'] ?? 0) + 1;
      };
      if (scripted?.kind === 'stall') {
        await this.sendStall(res);
        return undelivered('stall');
      }

      // Produce the answer.
      let data: Json;
      let pagination;
      let unavailable: string[];
      let warnings: string[];
      let charge: number;
      let reason: string;
      let labelledKeys: string[] = [];
      let produced = 0;
      let recall: { id: string; data: Json } | undefined;
      if (hit) {
        data = hit.data;
        pagination = hit.pagination;
        unavailable = hit.unavailable;
        warnings = hit.warnings;
        charge = owner ? 0 : SHARED_CACHE_PRICE;
        reason = owner ? 'cached' : 'shared_cache';
        produced = 1;
      } else {
        const r = runEngine(plan, pos.pos, { world: this.deps.world, codec: this.codec, now: this.clock.now(), isLabelled, failPage, newRecallId: () => `rcl_${randomBytes(16).toString('hex')}` });
        if (r.notFound) {
          clearIdem();
          const noSpeech = r.notFound.reason === 'no_speech';
          return fail(404, 'RESOURCE_NOT_FOUND', noSpeech ? 'The media has no speech to transcribe.' : 'Nothing was found at the identifier sent.', { reason: r.notFound.reason });
        }
        data = r.data;
        pagination = r.pagination;
        unavailable = r.unavailable;
        warnings = r.warnings;
        labelledKeys = r.labelled;
        produced = r.rows;
        recall = r.recall;
        charge = r.pageCosts.reduce((a, b) => a + b, 0);
        reason = charge > 0 ? 'miss' : 'empty';
        // Spec "Idempotency retry charging": the retry of an undelivered original pays the
        // reserved ceiling (the hold) — unless the retry returns nothing.
        if (ceilingRetry && charge > 0) {
          if (produced > 0) charge = hold;
          else {
            charge = 0;
            reason = 'empty';
          }
        }
      }
      if (ceilingRetry && hit && owner) charge = 0;

      let freeCall = false;
      if (charge > 0 && charge <= FREE_CALL_MAX_PRICE && account.freeCallsRemaining > 0) freeCall = true;
      const creditsUsed = freeCall ? 0 : charge;
      const body: Json = {
        ...base,
        ...(pagination ? { pagination } : {}),
        unavailable,
        credits_used: creditsUsed,
        credits_remaining: account.balance - creditsUsed,
        request_id: requestId,
        cached: Boolean(hit),
        idempotent_replay: false,
        charge_reason: reason,
        free_call: freeCall,
        data,
        ...(warnings.length > 0 ? { warnings } : {}),
      };

      /** The answer counts as delivered: charge, cache ownership, idempotency record, ledger 200. */
      const commit = (why: string | null): void => {
        account.balance -= creditsUsed;
        account.usedPeriod += creditsUsed;
        this.counters.credits += creditsUsed;
        if (freeCall) {
          account.freeCallsRemaining--;
          this.counters.freeCalls++;
        }
        for (const k of labelledKeys) this.labelled.add(k);
        if (recall)
          this.recalls.put(recall.id, { platform, path: def.path, storedAt: now, ttlMs: def.cacheTtlSeconds * 1000, data: recall.data, pagination, unavailable, warnings, owners: new Set([account.id]) });
        const heldBack = data.held_back as { recall_id?: unknown } | undefined;
        if (hit && typeof heldBack?.recall_id === 'string') this.recalls.share(heldBack.recall_id, account.id);
        if (hit) hit.owners.add(account.id);
        else if (produced > 0 && !cacheOff)
          this.cache.put(cacheKey, { storedAt: now, ttlMs: def.cacheTtlSeconds * 1000, data, pagination, unavailable, warnings, owners: new Set([account.id]) });
        if (idemKey !== null) this.idem.set(idemScope, idemKey, { state: 'done', fingerprint, at: now, status: 200, body });
        record(200, { credits_used: creditsUsed, charge_reason: reason, cached: Boolean(hit), free_call: freeCall, fault: why });
      };

      // Delivery.
      const wire = present(body);
      if (clientClosed || res.destroyed || req.socket.destroyed) return undelivered(faultName);
      if (fault === 'drop' || scripted?.kind === 'drop') {
        // Headers and half the body, then the socket is destroyed. Default: undelivered (not
        // charged); variant drop-charged: the service counts it as delivered.
        if (this.variants.has('drop-charged')) commit(faultName);
        else record(499, { error_type: 'CLIENT_CLOSED_REQUEST', fault: faultName });
        if (!this.variants.has('drop-charged') && idemKey !== null) this.idem.set(idemScope, idemKey, { state: 'undelivered', fingerprint, at: now });
        return this.sendDropped(res, wire);
      }
      if (scripted?.kind === 'truncate-charged') {
        commit('truncate-charged');
        return this.sendTruncated(res, wire);
      }
      if (scripted?.kind === 'trickle') {
        const whole = await this.sendTrickle(res, wire, scripted.intervalMs ?? 10_000, scripted.chunkBytes ?? 1);
        return whole ? commit('trickle') : undelivered('trickle');
      }
      commit(faultName);
      this.sendJson(res, 200, wire);
    } finally {
      release();
    }
  }

  /** Scripted `status` fault: the status, type, Retry-After (real seconds) and body as given. */
  private sendStatusFault(res: ServerResponse, f: FaultSpec, requestId: string, balance: number, rec: (status: number, type: string | null) => void): void {
    const status = f.status ?? 500;
    const headers: Record<string, string> = {};
    if (f.retryAfter !== undefined) headers['Retry-After'] = String(f.retryAfter);
    this.counters.byStatus[status] = (this.counters.byStatus[status] ?? 0) + 1;
    if (f.body !== undefined) {
      rec(status, f.type ?? null);
      const text = typeof f.body === 'string' ? f.body : JSON.stringify(f.body);
      const ct = f.contentType ?? (typeof f.body === 'string' ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8');
      res.writeHead(status, { 'Content-Type': ct, 'Content-Length': String(Buffer.byteLength(text)), 'X-Sandbox-Time-Scale': String(this.opts.timeScale), ...headers });
      res.end(text);
      return;
    }
    const type = f.type ?? 'INTERNAL_ERROR';
    rec(status, type);
    const remaining = status === 429 || type === 'SERVICE_UNAVAILABLE' ? null : balance;
    const body = presentError(this.errorBody(requestId, type, f.message ?? `Scripted fault: ${status} ${type}.`, remaining), this.variants, requestId);
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'Content-Type': f.contentType ?? 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(text)),
      'X-Sandbox-Time-Scale': String(this.opts.timeScale),
      ...headers,
    });
    res.end(text);
  }

  private cacheKey(def: EndpointDef, params: Record<string, string>, posToken: string | null): string {
    const p: Record<string, string> = {};
    const paging = new Set(['cursor', def.paging?.param, def.paging?.alt].filter(Boolean) as string[]);
    for (const [k, v] of Object.entries(params)) if (!paging.has(k) && k !== 'dry_run') p[k] = v;
    return `${def.platform}/${def.path}?${paramsHash(p)}#${posToken ?? ''}`;
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

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let s = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => {
      s += d;
      if (s.length > 1_000_000) req.destroy();
    });
    req.on('end', () => resolve(s));
    req.on('error', reject);
  });
}
