import type { Catalogue, CatalogueEndpoint } from '../../shared/api-types';
import { KEY_PATTERN, NATIVE_PAGING_PARAMS, RETRYABLE_ERROR_TYPES } from '../../shared/api-types';
import type { CallTarget, Clock, CoreStore, Priority } from '../ports';
import { realClock } from './clock';
import { canonicalParams, normalizeEndpoint, redact, sha256 } from './canonical';
import { balanceFigure } from './balance-book';
import { createCaller } from './call';
import { cancelled } from './call-errors';
import {
  CatalogueIndex,
  holdOf,
  isCatalogue,
  isDryRun,
  pagesOf,
  priceOf,
  readCatalogueFile,
  validateParams,
  writeCatalogueFile,
  type ValidationResult,
} from './catalogue';
import { ApiError, describeApiError } from './errors';
import { Emitter } from './events';
import { HttpClient, type HttpOutcome, type HttpPort } from './http';
import { DEFAULT_LIMITS, type Pacer, type PacerLimits } from './pacer';
import { KeyPool, type PoolKey } from './key-pool';
import { LEASE_MARGIN_MS, openPaceBook, type PaceBook } from './pace-book';
import { asErrorEnvelope, retryAfterOf, retryDelay } from './retry';
import type { ApiCore, ApiEvents, CallOptions, CatalogueApi, Quote, WalkEstimate } from './types';
import type { CoreInternals } from './internals';
import { runWalk, resumeWalk as resumeWalkImpl } from './walker';

export interface ApiCoreOptions {
  /** service base address, without /v1 (a trailing /v1 is tolerated) */
  baseUrl: string;
  /** one key (unnamed); or use getKeys */
  getKey?: () => string | null | Promise<string | null>;
  /** the key pool: every key of the account, named (the ledger records the name, never the key) */
  getKeys?: () => PoolKey[] | Promise<PoolKey[]>;
  /** the shared pacing file (<dataDir>/pacing.db): every process using it paces each key together */
  paceFile?: string | null;
  /** or the pace book itself (tests) */
  paceBook?: PaceBook;
  store: CoreStore;
  clock?: Clock;
  random?: () => number;
  limits?: PacerLimits;
  /** absolute deadline of one attempt (headers and body); default 90 s (spec: a minute or more on heavy endpoints) */
  timeoutMs?: number;
  /** the longest single wait (Retry-After or backoff) slept through; beyond it the call stops with `rate_wait`; default 5 min */
  maxWaitMs?: number;
  userAgent?: string;
  log?: (line: string) => void;
  /** retries after the first attempt; default 5 (spec reference loops) */
  maxRetries?: number;
  /** optional on-disk copy of the catalogue (e.g. <dataDir>/catalogue.json) */
  catalogueFile?: string;
  /** a catalogue older than this is refetched on load(); default 24 h */
  catalogueMaxAgeMs?: number;
  /** use this one pacer for every key instead of the process-wide ones (tests, benchmarks) */
  pacer?: Pacer;
  /** the HTTP transport (default: an undici client); tests wrap it to act between requests */
  http?: (defaults: HttpClient) => HttpPort;
}

const META_RETRIES = 3;

export function createApiCore(opts: ApiCoreOptions): ApiCore {
  const clock = opts.clock ?? realClock;
  const random = opts.random ?? Math.random;
  const limits = opts.limits ?? DEFAULT_LIMITS;
  const timeoutMs = opts.timeoutMs ?? 90_000;
  const maxRetries = opts.maxRetries ?? 5;
  const baseUrl = opts.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  const store = opts.store;
  const events = new Emitter<ApiEvents>();
  let attemptTimeoutMs = timeoutMs;
  const client = new HttpClient({ timeoutMs, userAgent: opts.userAgent ?? 'Loupe/0.1 (+request-core)' });
  const http: HttpPort = opts.http ? opts.http(client) : client;
  const secrets = new Set<string>();
  const scrub = (text: string): string => {
    let out = text;
    for (const s of secrets) out = redact(out, s);
    return out;
  };
  const log = (line: string) => {
    if (opts.log) opts.log(scrub(line));
  };

  // ---- the key pool: one pacer per key ---------------------------------------------------
  let currentLimits = { ...limits };
  const warnedKeys = new Set<string>();
  const getKeys = async (): Promise<PoolKey[]> => {
    let keys: PoolKey[];
    if (opts.getKeys) keys = await opts.getKeys();
    else {
      const k = opts.getKey ? await opts.getKey() : null;
      keys = k ? [{ name: null, key: k }] : [];
    }
    for (const pk of keys) {
      if (!pk.key || secrets.has(pk.key)) continue;
      secrets.add(pk.key);
      const fp = sha256(pk.key).slice(0, 16);
      if (!KEY_PATTERN.test(pk.key) && !warnedKeys.has(fp)) {
        warnedKeys.add(fp);
        const message = `The API key${pk.name ? ` "${pk.name}"` : ''} does not look like a service key (<prefix>_live_ or <prefix>_test_ followed by 43 characters); the service may refuse it.`;
        log(`warning: ${message}`);
        events.emit('warning', { code: 'key_format', message });
      }
    }
    return keys;
  };
  const paceBook = opts.paceBook ?? openPaceBook(opts.paceFile, log);
  const ownsBook = !opts.paceBook;
  const pool = new KeyPool({
    clock,
    baseUrl,
    getKeys,
    limits: () => currentLimits,
    book: paceBook,
    leaseMs: () => attemptTimeoutMs + LEASE_MARGIN_MS,
    pacer: opts.pacer,
  });

  /** a key for the free meta calls that need one (GET /v1/credits) */
  async function key(): Promise<string> {
    const ms = await pool.members();
    const m = ms.find((x) => !x.retiring) ?? ms[0];
    if (!m) {
      throw new ApiError({
        kind: 'validation',
        type: 'MISSING_API_KEY',
        message: 'No API key is set: add a key in Settings or set it for the command line (MISSING_API_KEY).',
      });
    }
    return m.key;
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
        out = await http.get(`${checkedBaseUrl()}/v1/${path}`, headers, signal, attemptTimeoutMs);
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
          message: describeApiError(type ?? 'ERROR', scrub(env.error.message ?? ''), env.request_id, out.status ?? undefined),
        });
      } else {
        lastErr = new ApiError({
          kind: 'network',
          status: out.status ?? undefined,
          message: `Could not read /v1/${path}: ${out.failure?.message ?? `HTTP ${out.status}`}.`,
        });
      }
      if (!retryable) throw lastErr;
      if (attempt < META_RETRIES) await sleep(retryDelay(attempt, retryAfterOf(out), random), signal);
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

  const warned = new Set<string>();
  async function endpointOf(target: CallTarget): Promise<CatalogueEndpoint> {
    const v = await validate(target);
    if (!v.ok) throw new ApiError({ kind: 'validation', message: v.message });
    for (const w of v.warnings) {
      const id = `${w.code}|${target.platform}/${target.endpoint}`;
      if (warned.has(id)) continue;
      warned.add(id);
      log(`warning: ${w.message}`);
      events.emit('warning', w);
    }
    return v.endpoint;
  }

  // ---- credits -------------------------------------------------------------------------
  async function credits(): Promise<Record<string, unknown>> {
    const j = await metaGet('credits', true);
    const obj = (j && typeof j === 'object' ? j : {}) as Record<string, unknown>;
    const b = balanceFigure(obj);
    if (b !== null) noteBalance(b, clock.now());
    return obj;
  }
  let balanceProbe: Promise<void> | undefined;

  // ---- holds -------------------------------------------------------------------------------
  // Collect-until-N `limit` multiplies the ceiling by a page count only the service knows: its free
  // quote (dry_run=1) tells, once per call shape (paging params left out).
  const quotedHolds = new Map<string, number>();
  async function holdFor(ep: CatalogueEndpoint, target: CallTarget): Promise<number> {
    const local = holdOf(ep, target.params);
    if (target.params.limit === undefined || !ep.paginates || isDryRun(target.params)) return local;
    const shape: Record<string, string> = { ...target.params };
    for (const p of ['cursor', ...NATIVE_PAGING_PARAMS]) delete shape[p];
    const id = `${target.platform}/${normalizeEndpoint(String(target.platform), ep.path)}?${canonicalParams(shape)}`;
    let q = quotedHolds.get(id);
    if (q === undefined) {
      try {
        q = (await quote({ ...target, params: shape })).credits_max;
        quotedHolds.set(id, q);
      } catch {
        return local;
      }
    }
    return Math.max(local, q);
  }

  let maxWaitMs = opts.maxWaitMs ?? 5 * 60_000;
  function checkedBaseUrl(): string {
    let u: URL | null = null;
    try {
      u = new URL(baseUrl);
    } catch {
      u = null;
    }
    if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:'))
      throw new ApiError({ kind: 'validation', message: `The base URL "${baseUrl}" is not an http(s) address; set it in Settings, --base-url or LOUPE_BASE_URL (e.g. https://api.example.com).` });
    return baseUrl;
  }

  const call = createCaller({
    clock,
    random,
    store,
    http,
    events,
    log,
    baseUrl: checkedBaseUrl,
    pool,
    endpointOf: async (t) => {
      const ep = await endpointOf(t);
      return ep;
    },
    holdOf: holdFor,
    balance,
    noteBalance,
    readBalance: async () => {
      try {
        return balanceFigure(await credits());
      } catch {
        return null;
      }
    },
    probeBalance: async () => {
      // Unknown balance (first call ever): ask /v1/credits once (free, not rate counted).
      balanceProbe ??= credits().then(
        () => undefined,
        () => undefined,
      );
      await balanceProbe;
    },
    maxRetries,
    maxWaitMs: () => maxWaitMs,
    timeoutMs: () => attemptTimeoutMs,
  });

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
    const params = o.maxPages !== undefined ? { ...target.params, max_pages: String(o.maxPages) } : target.params;
    const mp = pagesOf(params);
    const hold = await holdFor(ep, { ...target, params });
    const requests = Math.max(0, Math.ceil(o.pages));
    await pool.members().catch(() => []); // the keys the estimate spreads over
    return {
      creditsMin: requests * p.min * mp,
      creditsMax: requests * Math.max(hold, p.max * mp),
      requests,
      etaMs: pool.eta(requests, o.priority ?? 'background'),
    };
  }

  const internals: CoreInternals = {
    clock,
    store,
    events,
    log,
    call,
    endpoint: endpointOf,
    holdOf: holdFor,
    quote,
    restarts: new Map(),
    balance,
    eta: (n, p) => pool.eta(n, p),
  };

  const core: ApiCore = {
    catalogue,
    validate,
    call,
    quote,
    estimateWalk,
    hold: async (target) => holdFor(await endpointOf(target), target),
    walk: (target, o) => runWalk(internals, target, o ?? {}),
    resumeWalk: (walkId, o) => resumeWalkImpl(internals, walkId, o ?? {}),
    credits,
    balance,
    pacer: {
      stats: () => pool.stats(),
      eta: (n, p) => pool.eta(n, p ?? 'interactive'),
    },
    keys: {
      members: async () => (await pool.members()).map((m) => ({ name: m.name, retiring: m.retiring === true, stats: m.pacer.stats() })),
    },
    setLimits(l: PacerLimits) {
      currentLimits = { ...l };
      pool.setLimits(l);
    },
    setWaits(w: { maxWaitMs?: number; timeoutMs?: number }) {
      if (w.maxWaitMs !== undefined) maxWaitMs = w.maxWaitMs;
      if (w.timeoutMs !== undefined) attemptTimeoutMs = w.timeoutMs;
    },
    events,
    close: async () => {
      await http.close();
      if (ownsBook) paceBook.close();
    },
  };
  return core;
}
