import { randomUUID } from 'node:crypto';
import type { Catalogue, CatalogueEndpoint, Envelope, ErrorEnvelope } from '../../shared/api-types';
import { KEY_PATTERN, RETRYABLE_ERROR_TYPES } from '../../shared/api-types';
import type { CallTarget, Clock, CoreStore, JournalEntry, LedgerEntry, Priority } from '../ports';
import { abortError, isAbortError, realClock } from './clock';
import { canonicalParams, normalizeEndpoint, paramsHash, redact, sha256 } from './canonical';
import {
  CatalogueIndex,
  holdOf,
  isCatalogue,
  isDryRun,
  maxPagesOf,
  priceOf,
  readCatalogueFile,
  validateParams,
  writeCatalogueFile,
  type ValidationResult,
} from './catalogue';
import { ApiError, describeApiError, errorSuffix } from './errors';
import { Emitter } from './events';
import { HttpClient, type HttpOutcome } from './http';
import { DEFAULT_LIMITS, Pacer, sharedPacer, type PacerLimits } from './pacer';
import type { ApiCore, ApiEvents, CallOptions, CallResult, CatalogueApi, Quote, WalkEstimate } from './types';
import { runWalk, resumeWalk as resumeWalkImpl } from './walker';

export interface ApiCoreOptions {
  /** service base address, without /v1 (a trailing /v1 is tolerated) */
  baseUrl: string;
  getKey: () => string | null | Promise<string | null>;
  store: CoreStore;
  clock?: Clock;
  random?: () => number;
  limits?: PacerLimits;
  /** per-attempt timeout; default 90 s (spec: a minute or more on heavy endpoints) */
  timeoutMs?: number;
  userAgent?: string;
  log?: (line: string) => void;
  /** retries after the first attempt; default 5 (spec reference loops) */
  maxRetries?: number;
  /** optional on-disk copy of the catalogue (e.g. <dataDir>/catalogue.json) */
  catalogueFile?: string;
  /** a catalogue older than this is refetched on load(); default 24 h */
  catalogueMaxAgeMs?: number;
  /** use this pacer instead of the process-wide one for the key */
  pacer?: Pacer;
}

const META_RETRIES = 3;

/** Internal surface the walker uses. */
export interface CoreInternals {
  clock: Clock;
  store: CoreStore;
  events: Emitter<ApiEvents>;
  log: (line: string) => void;
  call: <D = Record<string, unknown>>(target: CallTarget, opts?: CallOptions) => Promise<CallResult<D>>;
  endpoint: (target: CallTarget) => Promise<CatalogueEndpoint>;
  eta: (n: number, priority: Priority) => number;
}

export function createApiCore(opts: ApiCoreOptions): ApiCore {
  const clock = opts.clock ?? realClock;
  const random = opts.random ?? Math.random;
  const limits = opts.limits ?? DEFAULT_LIMITS;
  const timeoutMs = opts.timeoutMs ?? 90_000;
  const maxRetries = opts.maxRetries ?? 5;
  const baseUrl = opts.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  const store = opts.store;
  const events = new Emitter<ApiEvents>();
  const http = new HttpClient({ timeoutMs, userAgent: opts.userAgent ?? 'Loupe/0.1 (+request-core)' });
  let lastKey: string | null = null;
  const log = (line: string) => {
    if (opts.log) opts.log(redact(line, lastKey));
  };

  // ---- pacer per key -------------------------------------------------------------------
  let currentLimits = { ...limits };
  let currentPacer: Pacer = opts.pacer ?? sharedPacer(clock, `${baseUrl}|nokey`, currentLimits);
  function pacerFor(key: string): Pacer {
    if (opts.pacer) return opts.pacer;
    currentPacer = sharedPacer(clock, `${baseUrl}|${sha256(key).slice(0, 16)}`, currentLimits);
    return currentPacer;
  }

  // ---- key -----------------------------------------------------------------------------
  const warnedKeys = new Set<string>();
  async function key(): Promise<string> {
    const k = await opts.getKey();
    if (!k) {
      throw new ApiError({
        kind: 'validation',
        type: 'MISSING_API_KEY',
        message: 'No API key is set: add a key in Settings or set it for the command line (MISSING_API_KEY).',
      });
    }
    lastKey = k;
    const fp = sha256(k).slice(0, 16);
    if (!KEY_PATTERN.test(k) && !warnedKeys.has(fp)) {
      warnedKeys.add(fp);
      const message = 'The API key does not look like a service key (<prefix>_live_ or <prefix>_test_ followed by 43 characters); the service may refuse it.';
      log(`warning: ${message}`);
      events.emit('warning', { code: 'key_format', message });
    }
    return k;
  }

  // ---- balance -------------------------------------------------------------------------
  let memBalance: { creditsRemaining: number; at: number } | undefined;
  function balance(): number | null {
    if (memBalance) return memBalance.creditsRemaining;
    const b = store.getBalance();
    if (b) memBalance = b;
    return b ? b.creditsRemaining : null;
  }
  function noteBalance(v: number | null | undefined, at: number): void {
    if (typeof v !== 'number' || !Number.isFinite(v)) return;
    if (memBalance && memBalance.at > at) return; // an older answer finishing late
    memBalance = { creditsRemaining: v, at };
    store.setBalance(v, at);
    events.emit('balance', { creditsRemaining: v, at });
  }

  // ---- meta GETs (catalogue, openapi, credits): not rate counted, retried on network/5xx ----
  async function metaGet(path: string, withKey: boolean, signal?: AbortSignal): Promise<unknown> {
    const headers: Record<string, string> = {};
    if (withKey) headers['x-api-key'] = await key();
    let lastErr: ApiError | undefined;
    for (let attempt = 0; attempt <= META_RETRIES; attempt++) {
      let out: HttpOutcome;
      try {
        out = await http.get(`${baseUrl}/v1/${path}`, headers, signal);
      } catch (e) {
        throw cancelled(e);
      }
      if (!out.failure && out.status !== null && out.status < 400 && out.json !== undefined) return out.json;
      const env = asErrorEnvelope(out.json);
      const type = env?.error.type;
      const retryable = !!out.failure || (out.status !== null && out.status >= 500) || (type !== undefined && RETRYABLE_ERROR_TYPES.has(type));
      if (env) {
        lastErr = new ApiError({
          kind: 'api',
          type,
          status: out.status ?? undefined,
          requestId: env.request_id,
          message: describeApiError(type ?? 'ERROR', redact(env.error.message ?? '', lastKey), env.request_id, out.status ?? undefined),
        });
      } else {
        lastErr = new ApiError({
          kind: 'network',
          status: out.status ?? undefined,
          message: `Could not read /v1/${path}: ${out.failure?.message ?? `HTTP ${out.status}`}.`,
        });
      }
      if (!retryable) throw lastErr;
      if (attempt < META_RETRIES) await sleep(backoff(attempt, retryAfterOf(out), random), signal);
    }
    throw new ApiError({
      kind: 'gave_up',
      type: lastErr?.type,
      status: lastErr?.status,
      requestId: lastErr?.requestId,
      message: `Gave up reading /v1/${path} after ${META_RETRIES} retries: ${lastErr?.message ?? 'no answer'}`,
    });
  }

  async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
    try {
      await clock.sleep(ms, signal);
    } catch (e) {
      throw cancelled(e);
    }
  }

  // ---- catalogue -------------------------------------------------------------------------
  let index: CatalogueIndex | undefined;
  let indexAt: number | null = null;
  let loading: Promise<Catalogue> | undefined;
  let openapiDoc: Record<string, unknown> | undefined;
  const maxAge = opts.catalogueMaxAgeMs ?? 24 * 3600_000;

  const catalogue: CatalogueApi = {
    async load(o?: { force?: boolean }): Promise<Catalogue> {
      if (!o?.force && index && indexAt !== null && clock.now() - indexAt < maxAge) return index.record;
      if (!o?.force && !index && opts.catalogueFile) {
        const f = readCatalogueFile(opts.catalogueFile);
        if (f && clock.now() - f.fetchedAt < maxAge) {
          index = new CatalogueIndex(f.catalogue);
          indexAt = f.fetchedAt;
          return f.catalogue;
        }
      }
      if (!loading) {
        loading = (async () => {
          try {
            const j = await metaGet('endpoints', false);
            if (!isCatalogue(j)) throw new ApiError({ kind: 'network', message: 'The catalogue at /v1/endpoints had an unexpected shape.' });
            index = new CatalogueIndex(j);
            indexAt = clock.now();
            if (opts.catalogueFile) writeCatalogueFile(opts.catalogueFile, indexAt, j);
            return j;
          } finally {
            loading = undefined;
          }
        })();
      }
      return loading;
    },
    async openapi(o?: { force?: boolean }) {
      if (openapiDoc && !o?.force) return openapiDoc;
      const j = await metaGet('openapi.json', false);
      if (!j || typeof j !== 'object') throw new ApiError({ kind: 'network', message: 'The OpenAPI document had an unexpected shape.' });
      openapiDoc = j as Record<string, unknown>;
      return openapiDoc;
    },
    find(platform: string, path: string) {
      return index?.find(platform, path);
    },
    list(platform?: string) {
      return index ? index.list(platform) : [];
    },
    loadedAt() {
      return indexAt;
    },
  };

  async function lookup(target: CallTarget): Promise<{ ok: true; ep: CatalogueEndpoint } | { ok: false; message: string }> {
    await catalogue.load();
    const idx = index as CatalogueIndex;
    const platform = String(target.platform);
    if (!idx.platforms.includes(platform))
      return { ok: false, message: `Unknown network '${platform}': the catalogue serves ${idx.platforms.join(', ')}.` };
    const ep = idx.find(platform, target.endpoint);
    if (!ep)
      return { ok: false, message: `Unknown endpoint '${normalizeEndpoint(platform, target.endpoint)}' on ${platform}; see the catalogue for the paths it serves.` };
    return { ok: true, ep };
  }

  async function validate(target: CallTarget): Promise<ValidationResult> {
    const l = await lookup(target);
    if (!l.ok) return l;
    return validateParams(l.ep, target.params);
  }

  async function endpointOf(target: CallTarget): Promise<CatalogueEndpoint> {
    const v = await validate(target);
    if (!v.ok) throw new ApiError({ kind: 'validation', message: v.message });
    return v.endpoint;
  }

  // ---- credits -------------------------------------------------------------------------
  async function credits(): Promise<Record<string, unknown>> {
    const j = await metaGet('credits', true);
    const obj = (j && typeof j === 'object' ? j : {}) as Record<string, unknown>;
    const b = pickBalance(obj);
    if (b !== null) noteBalance(b, clock.now());
    return obj;
  }
  let balanceProbe: Promise<void> | undefined;

  // ---- the call pipeline ------------------------------------------------------------------
  let heldInFlight = 0;

  async function call<D = Record<string, unknown>>(target: CallTarget, o: CallOptions = {}): Promise<CallResult<D>> {
    const ep = await endpointOf(target);
    const platform = String(target.platform);
    const endpoint = normalizeEndpoint(platform, ep.path);
    const params = { ...target.params };
    const canonical = canonicalParams(params);
    const hash = paramsHash(`${platform}/${endpoint}?${canonical}`);
    const dry = isDryRun(params);
    const source = o.source ?? 'app';
    const walkId = o.walkId ?? null;
    const priority = o.priority ?? 'interactive';
    if (o.signal?.aborted) throw cancelled(abortError());

    // archive-first: the exact call answered inside the endpoint's cache window costs nothing
    if (!o.fresh && !dry && ep.cache_ttl_seconds > 0) {
      const since = clock.now() - ep.cache_ttl_seconds * 1000;
      const hit = store.findFreshResponse(platform, endpoint, hash, since);
      if (hit) {
        return {
          envelope: hit.envelope as Envelope<D>,
          fromArchive: true,
          callId: hit.callId,
          idempotencyKey: null,
          attempts: 0,
          creditsUsed: 0,
          items: [],
          newItems: 0,
        };
      }
    }

    const k = await key();
    const pacer = pacerFor(k);

    // hold check: never cause our own 402
    const hold = holdOf(ep, params);
    if (hold > 0) {
      if (balance() === null) {
        // Unknown balance (first call ever): ask /v1/credits once (free, not rate counted).
        balanceProbe ??= credits().then(
          () => undefined,
          () => undefined,
        );
        await balanceProbe;
      }
      const bal = balance();
      if (bal !== null && heldInFlight + hold > bal) {
        const others = heldInFlight > 0 ? ` with ${heldInFlight} more held by calls in flight` : '';
        throw new ApiError({
          kind: 'insufficient_local',
          type: 'INSUFFICIENT_CREDITS',
          message: `Out of credits: this call holds ${hold}, balance is ${bal}${others}; nothing was sent.`,
        });
      }
    }

    // idempotency journal: written before the first attempt; reused for the same opKey
    const opKey = o.opKey ?? `call:${randomUUID()}`;
    const prior: JournalEntry | undefined = o.opKey ? store.findJournal(opKey) : undefined;
    // pending (interrupted) or done (a replay is free) with the same params → same key again;
    // failed or different params → a new logical call under the same opKey and callId (the
    // journal's opKey is unique), with a new Idempotency-Key
    let journal = prior && prior.state !== 'failed' && prior.paramsHash === hash ? prior : undefined;
    if (!journal) {
      journal = {
        callId: prior?.callId ?? randomUUID(),
        opKey,
        idempotencyKey: randomUUID(),
        platform,
        endpoint,
        params: canonical,
        paramsHash: hash,
        state: 'pending',
        createdAt: clock.now(),
        finishedAt: null,
      };
      store.beginJournal(journal);
    }
    const j = journal;

    const qs = new URLSearchParams(params).toString();
    const url = `${baseUrl}/v1/${platform}/${endpoint}${qs ? `?${qs}` : ''}`;
    const headers: Record<string, string> = { 'x-api-key': k, 'Idempotency-Key': j.idempotencyKey };
    if (o.fresh) headers['cache-control'] = 'no-cache';

    heldInFlight += hold;
    let sawTransportFailure = false;
    try {
      for (let attempt = 1; ; attempt++) {
        let release: () => void;
        try {
          release = await pacer.acquire(priority, o.signal);
        } catch (e) {
          throw cancelled(e);
        }
        const startedAt = clock.now();
        let out: HttpOutcome;
        try {
          out = await http.get(url, headers, o.signal, o.timeoutMs);
        } catch (e) {
          release();
          throw cancelled(e);
        }
        release();
        const durationMs = Math.max(0, clock.now() - startedAt) || out.durationMs;

        const okEnv = asSuccessEnvelope(out.json);
        const errEnv = okEnv ? undefined : asErrorEnvelope(out.json);
        const status = out.status;
        const errorType = okEnv ? null : errEnv ? String(errEnv.error.type) : null;
        const requestId = okEnv?.request_id ?? errEnv?.request_id ?? out.headers['x-request-id'] ?? null;
        const creditsUsed = okEnv && typeof okEnv.credits_used === 'number' ? okEnv.credits_used : 0;
        const creditsRemaining = okEnv?.credits_remaining ?? errEnv?.credits_remaining ?? null;

        // Decide: success, retry, or fail.
        let retryable: boolean;
        let transport = false;
        if (okEnv) retryable = false;
        else if (errEnv) retryable = RETRYABLE_ERROR_TYPES.has(String(errEnv.error.type));
        else {
          // no envelope: connection failure, mid-body drop, bad JSON, or a non-JSON answer
          transport = true;
          retryable = status === null || status >= 500 || status < 400 || !!out.failure;
          if (status !== null && status >= 400 && status < 500 && !out.failure) retryable = false;
        }
        if (transport) sawTransportFailure = true;
        const willRetry = retryable && attempt <= maxRetries;
        const retryAfterS = retryAfterOf(out);
        const waitMs = willRetry ? retryDelay(attempt - 1, retryAfterS, random) : null;

        const entry: LedgerEntry = {
          callId: j.callId,
          attempt,
          startedAt,
          durationMs,
          platform,
          endpoint,
          params: canonical,
          paramsHash: hash,
          idempotencyKey: j.idempotencyKey,
          requestId,
          status,
          errorType: errorType ?? (out.failure ? `NETWORK_${out.failure.reason.toUpperCase()}` : null),
          creditsUsed,
          creditsRemaining,
          chargeReason: okEnv?.charge_reason ?? null,
          cached: okEnv?.cached ?? false,
          freeCall: okEnv?.free_call ?? false,
          idempotentReplay: okEnv?.idempotent_replay ?? false,
          source,
          walkId,
          dryRun: dry,
        };
        store.recordAttempt(entry);
        noteBalance(creditsRemaining, clock.now());
        events.emit('attempt', {
          callId: j.callId,
          attempt,
          platform,
          endpoint,
          status,
          errorType: entry.errorType,
          requestId,
          creditsUsed,
          durationMs,
          retryInMs: waitMs,
          walkId,
        });

        if (okEnv) {
          const env = okEnv as Envelope<D>;
          let items: CallResult['items'] = [];
          let newItems = 0;
          if (!dry) {
            const r = store.storeResponse(
              { callId: j.callId, platform, endpoint, paramsHash: hash, fetchedAt: clock.now(), envelope: okEnv },
              source,
              walkId,
            );
            items = r.items;
            newItems = r.newItems;
          }
          store.finishJournal(j.callId, 'done', clock.now());
          return {
            envelope: env,
            fromArchive: false,
            callId: j.callId,
            idempotencyKey: j.idempotencyKey,
            attempts: attempt,
            creditsUsed: okEnv.idempotent_replay ? 0 : creditsUsed,
            items,
            newItems,
          };
        }

        const where = `${platform}/${endpoint}`;
        if (waitMs !== null) {
          const label = errorType ?? `network (${out.failure?.reason ?? `HTTP ${status}`})`;
          log(`${where}: attempt ${attempt} failed with ${label}${requestId ? ` [${requestId}]` : ''}; retrying in ${Math.round(waitMs)} ms`);
          if (errorType === 'RATE_LIMITED') {
            const until = clock.now() + waitMs;
            pacer.pause(until);
            events.emit('rate-limited', { type: errorType, retryAfterMs: waitMs, until, platform, endpoint });
          } else if (errorType === 'CONCURRENCY_LIMIT') {
            events.emit('rate-limited', { type: errorType, retryAfterMs: waitMs, until: clock.now() + waitMs, platform, endpoint });
          }
          await sleep(waitMs, o.signal);
          continue;
        }

        // final failure
        if (retryable) {
          // retries exhausted; a transport failure may have been charged server-side, so the
          // journal stays pending: the same opKey later reuses the key and replays for free
          if (!sawTransportFailure) store.finishJournal(j.callId, 'failed', clock.now());
          const what = errEnv
            ? describeApiError(String(errEnv.error.type), redact(errEnv.error.message ?? '', k), requestId ?? undefined, status ?? undefined)
            : `No usable answer from the service (${out.failure?.message ?? `HTTP ${status}`})${errorSuffix(undefined, requestId ?? undefined)}`;
          throw new ApiError({
            kind: 'gave_up',
            type: errorType ?? undefined,
            status: status ?? undefined,
            requestId: requestId ?? undefined,
            retryAfter: retryAfterS,
            attempts: attempt,
            message: `Gave up after ${attempt - 1} retries on ${where}: ${what.replace(/\.$/, '')}.`,
          });
        }
        store.finishJournal(j.callId, 'failed', clock.now());
        if (errEnv) {
          const type = String(errEnv.error.type);
          let message = describeApiError(type, redact(errEnv.error.message ?? '', k), requestId ?? undefined, status ?? undefined);
          if (type === 'INSUFFICIENT_CREDITS') {
            const bal = creditsRemaining ?? balance();
            message = `Out of credits: this call holds ${hold}${bal !== null ? `, balance is ${bal}` : ''}${errorSuffix(type, requestId ?? undefined)}`;
          }
          throw new ApiError({ kind: 'api', type, status: status ?? undefined, requestId: requestId ?? undefined, attempts: attempt, message });
        }
        throw new ApiError({
          kind: 'api',
          status: status ?? undefined,
          requestId: requestId ?? undefined,
          attempts: attempt,
          message: `The service refused the call to ${where} with HTTP ${status} and no error envelope${errorSuffix(undefined, requestId ?? undefined)}.`,
        });
      }
    } finally {
      heldInFlight -= hold;
    }
  }

  async function quote(target: CallTarget, o: Omit<CallOptions, 'fresh' | 'opKey'> = {}): Promise<Quote> {
    // dry runs never come from the archive and never send Cache-Control (they are free anyway)
    const r = await call<Record<string, unknown>>({ ...target, params: { ...target.params, dry_run: '1' } }, { ...o, fresh: false });
    const d = r.envelope.data;
    const dr = d.dry_run as { credits_min?: unknown; credits_max?: unknown } | undefined;
    if (dr && typeof dr.credits_min === 'number' && typeof dr.credits_max === 'number')
      return { credits_min: dr.credits_min, credits_max: dr.credits_max, requestId: r.envelope.request_id };
    const est = d.estimate as Quote['estimate'] | undefined;
    if (est && typeof est.base_credits === 'number') {
      return {
        credits_min: est.base_credits + (est.label_credits_min ?? 0),
        credits_max: est.base_credits + (est.label_credits_max ?? 0),
        estimate: est,
        requestId: r.envelope.request_id,
      };
    }
    throw new ApiError({ kind: 'api', requestId: r.envelope.request_id, message: `The price quote had neither data.dry_run nor data.estimate (request ${r.envelope.request_id}).` });
  }

  async function estimateWalk(target: CallTarget, o: { pages: number; maxPages?: number; priority?: Priority }): Promise<WalkEstimate> {
    const ep = await endpointOf(target);
    const p = priceOf(ep);
    const mp = o.maxPages ?? maxPagesOf(target.params);
    const requests = Math.max(0, Math.ceil(o.pages));
    return {
      creditsMin: requests * p.min * mp,
      creditsMax: requests * p.max * mp,
      requests,
      etaMs: currentPacer.eta(requests, o.priority ?? 'background'),
    };
  }

  const internals: CoreInternals = {
    clock,
    store,
    events,
    log,
    call,
    endpoint: endpointOf,
    eta: (n, p) => currentPacer.eta(n, p),
  };

  const core: ApiCore = {
    catalogue,
    validate,
    call,
    quote,
    estimateWalk,
    walk: (target, o) => runWalk(internals, target, o ?? {}),
    resumeWalk: (walkId, o) => resumeWalkImpl(internals, walkId, o ?? {}),
    credits,
    balance,
    pacer: {
      stats: () => currentPacer.stats(),
      eta: (n, p) => currentPacer.eta(n, p ?? 'interactive'),
    },
    setLimits(l: PacerLimits) {
      currentLimits = { ...l };
      currentPacer.setLimits(l);
    },
    events,
    close: () => http.close(),
  };
  return core;
}

// ---- helpers --------------------------------------------------------------------------------

function cancelled(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  if (isAbortError(e)) return new ApiError({ kind: 'cancelled', message: 'Cancelled.' });
  return new ApiError({ kind: 'network', message: `Unexpected failure: ${e instanceof Error ? e.message : String(e)}.` });
}

function asSuccessEnvelope(j: unknown): Envelope | undefined {
  if (!j || typeof j !== 'object') return undefined;
  const o = j as Record<string, unknown>;
  if (o.success !== true || !o.data || typeof o.data !== 'object') return undefined;
  return o as unknown as Envelope;
}

function asErrorEnvelope(j: unknown): ErrorEnvelope | undefined {
  if (!j || typeof j !== 'object') return undefined;
  const o = j as Record<string, unknown>;
  const err = o.error as Record<string, unknown> | undefined;
  if (o.success !== false || !err || typeof err.type !== 'string') return undefined;
  return o as unknown as ErrorEnvelope;
}

/** Retry-After in seconds (integer or HTTP date), or undefined. */
function retryAfterOf(out: HttpOutcome): number | undefined {
  const h = out.headers['retry-after'];
  if (!h) return undefined;
  const n = Number(h);
  if (Number.isFinite(n) && n >= 0) return n;
  const d = Date.parse(h);
  if (Number.isFinite(d)) return Math.max(0, (d - Date.now()) / 1000);
  return undefined;
}

/**
 * Wait before retry number `retry` (0-based). With Retry-After: at least that, plus a small
 * jitter (up to 10% + 100 ms, at most 1 s) so paused workers do not all return at once.
 * Without: exponential backoff 0.5 s·2^n with ±50% jitter, capped at 30 s.
 */
export function retryDelay(retry: number, retryAfterS: number | undefined, random: () => number): number {
  if (retryAfterS !== undefined) {
    const base = retryAfterS * 1000;
    return Math.round(base + random() * Math.min(1000, 100 + base * 0.1));
  }
  return backoff(retry, undefined, random);
}

function backoff(retry: number, retryAfterS: number | undefined, random: () => number): number {
  if (retryAfterS !== undefined) return retryDelay(retry, retryAfterS, random);
  const base = Math.min(30_000, 500 * 2 ** retry);
  return Math.round(base * (0.5 + random()));
}

/** A balance figure from GET /v1/credits, whose fields the spec does not show. */
function pickBalance(o: Record<string, unknown>): number | null {
  const cands = [o, (o.data ?? {}) as Record<string, unknown>];
  for (const c of cands) {
    for (const f of ['credits_remaining', 'balance', 'remaining', 'credits']) {
      const v = c[f];
      if (typeof v === 'number' && Number.isFinite(v)) return v;
    }
  }
  return null;
}
