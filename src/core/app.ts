/**
 * The composition root: one implementation of the whole contract (src/shared/contract.ts) over
 * the archive (SQLite), the request core (HTTP to the service or the sandbox), exports, keys and
 * settings. The three doors (Electron IPC, the web host, the CLI) all use this — see docs/doors.md.
 *
 * Which service is used (decided per call, so Settings changes apply at once):
 *   1. a base URL given by the door (LOUPE_BASE_URL / --base-url) or set in Settings → that service,
 *      with the active key (LOUPE_API_KEY wins over stored keys);
 *   2. otherwise, when the app started with no key at all, or still has none → the built-in sandbox
 *      (synthetic data; the sandbox's own demo key; AppInfo.sandbox = true). A key added while the
 *      sandbox runs is stored and used from the next start (or at once if a base URL is set);
 *   3. otherwise → PRODUCTION_BASE_URL with the active key.
 *
 * Errors leave through src/core/bridge.ts as BridgeErrors: never a stack, never the key.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Catalogue, CatalogueEndpoint } from '../shared/api-types';
import { labelFieldSpec, labelValueProblem } from '../shared/labels';
import type {
  AppInfo,
  BalanceInfo,
  CallResult,
  ExportJob,
  ItemDetail,
  KeyInfo,
  LedgerRow,
  LoupeEvent,
  LoupeImpl,
  MethodName,
  MethodParsedInput,
  SandboxState,
  Settings,
  Target,
  Unsubscribe,
  UsageSummary,
  WalkInfo,
} from '../shared/contract';
import type { LibraryQuery } from '../shared/query';
import { createApiCore, type ApiCore, type WalkResult } from './api';
import { canonicalParams, normalizeEndpoint, paramsHash } from './api/canonical';
import { realClock } from './api/clock';
import { openArchive, type Archive } from './archive';
import { lastUsedByKey } from './archive/ledger-keys';
import { AppError, toBridgeError, type AppHandle } from './bridge';
import { CSV_COLUMNS } from './export';
import { analysisMethods } from './methods/analysis';
import { networkMethods } from './analysis/network-methods';
import { exportAny, exportOptionsError } from './export/formats';
import { archivePath, settingsPath } from './paths';
import type { Clock, ExportRow, WalkState } from './ports';
import { KeyRing, SettingsFile, type SecretStore } from './secrets';

export { AppError } from './bridge';
export type { AppHandle } from './bridge';

export const APP_VERSION = '0.1.0';

/**
 * The service's address is not published in the spec (it writes `{base_url}`). This placeholder
 * (reserved `.invalid` TLD: it can never resolve) is used only when a key is set and no base URL
 * was configured; calls then fail with a network error that says to set the base URL in Settings.
 */
export const PRODUCTION_BASE_URL = 'https://api.social-data.invalid';

/** What the CLI and the doors need to run a sandbox on demand. */
export interface SandboxRef {
  url: string;
  key: string;
}

// ───────────────────────────── watchlists (a later helper's service) ─────────────────────────────

export type WatchMethodName = Extract<MethodName, `watchlists.${string}`>;
export type WatchService = { [K in WatchMethodName]: LoupeImpl[K] } & { close?(): void | Promise<void> };
export interface WatchDeps {
  /** the request core of the current service (changes when Settings change the service) */
  api(): Promise<ApiCore>;
  archive: Archive;
  settings(): Settings;
  emit(e: LoupeEvent): void;
  clock: Clock;
  dataDir: string;
}
const WATCH_METHODS: readonly WatchMethodName[] = [
  'watchlists.list',
  'watchlists.create',
  'watchlists.update',
  'watchlists.remove',
  'watchlists.addWatch',
  'watchlists.estimate',
  'watchlists.run',
  'watchlists.history',
  'watchlists.markSeen',
  'watchlists.planImport',
  'watchlists.import',
];

export interface CreateAppOptions {
  dataDir: string;
  /** LOUPE_BASE_URL / --base-url: wins over Settings; null → Settings, then the sandbox */
  baseUrl?: string | null;
  secrets: SecretStore;
  /** LOUPE_API_KEY: wins over stored keys, never persisted */
  envKey?: string | null;
  /** a running sandbox, or a function that starts one the first time it is needed */
  sandbox?: SandboxRef | (() => Promise<SandboxRef>);
  clock?: Clock;
  door: 'electron' | 'web';
  /** the watchlist service, built with the app's parts */
  watch?: (deps: WatchDeps) => WatchService;
  /** web door: the URL a finished export downloads from */
  downloadUrl?: (exportId: string) => string;
  version?: string;
  /** diagnostic lines (never contain a key) */
  log?: (line: string) => void;
}

export interface LoupeApp extends AppHandle {
  /** resolves once the archive is open and settings are read (rejects on a too-new archive) */
  ready: Promise<void>;
  archive: Archive;
  keys: KeyRing;
  /** the request core currently in use (built on first use) */
  api(): Promise<ApiCore>;
}

interface Conn {
  baseUrl: string;
  sandbox: boolean;
  core: ApiCore;
  off: Array<() => void>;
}

interface WalkJob {
  info: WalkInfo;
  abort: AbortController;
  done: Promise<void>;
}

interface ExportJobState {
  job: ExportJob;
  abort: AbortController;
  done: Promise<void>;
}

function parseParams(s: string): Record<string, string> {
  try {
    const v: unknown = JSON.parse(s);
    if (v && typeof v === 'object' && !Array.isArray(v)) return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, String(x)]));
  } catch {}
  return {};
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

export function createApp(opts: CreateAppOptions): LoupeApp {
  const clock = opts.clock ?? realClock;
  const dataDir = opts.dataDir;
  const log = opts.log ?? (() => {});
  mkdirSync(dataDir, { recursive: true });
  const settingsFile = new SettingsFile(settingsPath(dataDir));
  const keys = new KeyRing({ store: opts.secrets, settings: settingsFile, envKey: opts.envKey ?? null, now: () => clock.now() });
  const archive = openArchive(archivePath(dataDir), { clock: () => clock.now() });
  const exportsDir = join(dataDir, 'exports');
  const doorBaseUrl = opts.baseUrl && opts.baseUrl.trim() ? opts.baseUrl.trim() : null;

  // sticky for this run: started with no service and no key → the sandbox stays in use
  const startedInSandbox = !doorBaseUrl && !settingsFile.read().app.baseUrl && !keys.hasKey();

  const listeners = new Set<(e: LoupeEvent) => void>();
  const emit = (e: LoupeEvent) => {
    for (const l of [...listeners]) {
      try {
        l(e);
      } catch {}
    }
  };

  let freeCallsRemaining: number | null = null;
  let freeRefresh: Promise<unknown> | null = null;
  let balanceAt: number | null = archive.getBalance()?.at ?? null;
  let fromArchiveCount = 0;
  let closed = false;

  // ───────── service connection ─────────
  let sandboxRef: SandboxRef | null = typeof opts.sandbox === 'object' ? opts.sandbox : null;
  let sandboxStarting: Promise<SandboxRef> | null = null;
  async function sandbox(): Promise<SandboxRef> {
    if (sandboxRef) return sandboxRef;
    if (typeof opts.sandbox !== 'function')
      throw new AppError('validation', 'No service is configured: add an API key and set the service base URL in Settings.');
    sandboxStarting ??= opts.sandbox().then((s) => (sandboxRef = s));
    return sandboxStarting;
  }

  function wantedService(): { sandbox: true } | { sandbox: false; baseUrl: string } {
    const configured = doorBaseUrl ?? settingsFile.read().app.baseUrl;
    if (configured) return { sandbox: false, baseUrl: configured };
    if (startedInSandbox || !keys.hasKey()) return { sandbox: true };
    return { sandbox: false, baseUrl: PRODUCTION_BASE_URL };
  }

  let conn: Conn | null = null;
  let connecting: Promise<Conn> | null = null;

  function limitsOf(s: Settings) {
    return { requests: s.rateLimit.requests, windowSeconds: s.rateLimit.windowSeconds, maxInFlight: s.maxInFlight };
  }

  async function connect(): Promise<Conn> {
    const want = wantedService();
    const sb = want.sandbox ? await sandbox() : null;
    const baseUrl = sb ? sb.url : (want as { baseUrl: string }).baseUrl;
    if (conn && conn.baseUrl === baseUrl) return conn;
    const switching = conn !== null;
    if (conn) {
      if ([...walks.values()].some((w) => w.info.status === 'running'))
        throw new AppError('validation', 'Walks are running on the previous service; cancel them before switching service.');
      const old = conn;
      conn = null;
      old.off.forEach((f) => f());
      await old.core.close().catch(() => {});
      // the balance and free calls were the previous service's: unknown until this one answers
      // (issue 14 #6: a stale balance after a base-URL switch)
      balanceAt = null;
      freeCallsRemaining = null;
      // the archive keeps one last-known balance; the new core must not hold calls against the
      // previous service's number (it probes the new one, free, before its first charged call)
      try {
        archive.db.prepare('DELETE FROM balance').run();
      } catch {
        /* a read-only archive: the refresh below overwrites it when the service answers */
      }
      emit({ type: 'balance', balance: { creditsRemaining: null, freeCallsRemaining: null, at: null } });
    }
    const core = createApiCore({
      baseUrl,
      // the sandbox's demo key, or every stored key (the pool: issue 15), paced with every other
      // Loupe process using this data folder (pacing.db)
      ...(sb ? { getKey: () => sb.key } : { getKeys: () => keys.poolKeys() }),
      paceFile: join(dataDir, 'pacing.db'),
      store: archive,
      clock,
      limits: limitsOf(settingsFile.read().app),
      maxWaitMs: settingsFile.read().app.maxWaitSeconds * 1000,
      timeoutMs: settingsFile.read().app.attemptTimeoutSeconds * 1000,
      catalogueFile: sb ? undefined : join(dataDir, 'catalogue.json'),
      userAgent: `Loupe/${opts.version ?? APP_VERSION} (${opts.door})`,
      log,
    });
    const off = [
      core.events.on('balance', (b) => {
        balanceAt = b.at;
        emit({ type: 'balance', balance: { creditsRemaining: b.creditsRemaining, freeCallsRemaining, at: b.at } });
        // while free calls remain, a charged answer may have used one: re-read them from
        // GET /v1/credits (free, not rate counted), at most once per half second
        if (freeCallsRemaining !== null && freeCallsRemaining > 0 && !freeRefresh) {
          freeRefresh = clock.sleep(500).then(
            () => impl['credits.refresh']({}).then(() => undefined, () => undefined).finally(() => (freeRefresh = null)),
            () => (freeRefresh = null),
          );
        }
      }),
      core.events.on('rate-limited', (r) => {
        const secs = Math.max(1, Math.ceil(r.retryAfterMs / 1000));
        const what = r.type === 'CONCURRENCY_LIMIT' ? 'Too many requests in flight on this key' : 'Rate limited by the service';
        emit({ type: 'rate-limited', retryInMs: r.retryAfterMs, message: `${what} — retrying in ${secs} s` });
      }),
      core.events.on('walk-progress', (p) => {
        const job = walks.get(p.walkId);
        if (!job) return;
        Object.assign(job.info, {
          pagesDone: p.pagesDone,
          itemsSeen: p.itemsSeen,
          newItems: job.baseNew + p.newItems,
          creditsSpent: p.creditsSpent,
          etaMs: p.etaMs,
          updatedAt: clock.now(),
        });
        emit({ type: 'walk-progress', walk: { ...job.info } });
      }),
      core.events.on('warning', (w) => emit({ type: 'notice', level: 'warning', message: w.message })),
      // a key the service refused stays out of the pool until it is replaced (Settings shows why)
      core.events.on('key-refused', (r) => {
        try {
          keys.markRefused(r.name, r.type);
        } catch {
          /* a read-only settings file: the key is out of this process's pool all the same */
        }
      }),
    ];
    conn = { baseUrl, sandbox: !!sb, core, off };
    // read the new service's balance right away (GET /v1/credits: free, not rate counted)
    if (switching) void impl['credits.refresh']({}).catch(() => {});
    return conn;
  }

  async function api(): Promise<ApiCore> {
    if (closed) throw new AppError('internal', 'Loupe is shutting down.');
    if (conn && !connecting) {
      const want = wantedService();
      if (want.sandbox ? conn.sandbox : conn.baseUrl === want.baseUrl) return conn.core;
    }
    connecting ??= connect().finally(() => (connecting = null));
    return (await connecting).core;
  }

  /** each key's last call from the ledger, so a rotation can be confirmed before the old key is revoked */
  function withLastUse(list: KeyInfo[]): KeyInfo[] {
    let used: Map<string, number>;
    try {
      used = lastUsedByKey(archive.db);
    } catch {
      return list; // an archive that cannot be read now: the list without it
    }
    return list.map((k) => ({ ...k, lastUsedAt: used.get(k.name) ?? null }));
  }

  // ───────── walks ─────────
  const walks = new Map<string, WalkJob & { baseNew: number }>();

  function infoOf(s: WalkState): WalkInfo {
    const live = walks.get(s.walkId);
    if (live) return { ...live.info };
    return {
      walkId: s.walkId,
      platform: s.platform,
      endpoint: s.endpoint,
      params: parseParams(s.params),
      source: s.source,
      // interrupted = its process is gone (quit, crash): resumable; running = live in another
      // Loupe process (the CLI, a cron watch run)
      status: s.status === 'interrupted' ? 'paused' : s.status,
      pagesDone: s.pagesDone,
      itemsSeen: s.itemsSeen,
      newItems: 0,
      creditsSpent: s.creditsSpent,
      stopReason: s.status === 'interrupted' ? 'interrupted' : s.stopReason,
      error: s.error,
      etaMs: null,
      createdAt: s.createdAt,
      updatedAt: s.updatedAt,
    };
  }

  /** A walk's failure in the terms the UI offers the way out by (kind, the API's type, retryAt). */
  function errorFields(e: unknown): Pick<WalkInfo, 'errorKind' | 'errorType' | 'retryAt'> {
    if (!e) return { errorKind: null, errorType: null, retryAt: null };
    const b = toBridgeError(e);
    const retryAt = typeof (e as { retryAt?: unknown }).retryAt === 'number' ? (e as { retryAt: number }).retryAt : null;
    return { errorKind: b.kind, errorType: b.type ?? null, retryAt };
  }

  function settle(job: WalkJob & { baseNew: number }, r: WalkResult): void {
    Object.assign(job.info, {
      status: r.status,
      stopReason: r.stopReason,
      pagesDone: r.pagesDone,
      itemsSeen: r.itemsSeen,
      creditsSpent: r.creditsSpent,
      newItems: job.baseNew + r.newItems,
      error: r.error ? r.error.message : null,
      ...errorFields(r.error),
      etaMs: null,
      updatedAt: clock.now(),
    });
    emit({ type: 'walk-progress', walk: { ...job.info } });
  }

  function runWalkJob(info: WalkInfo, baseNew: number, run: (signal: AbortSignal) => Promise<WalkResult>): WalkInfo {
    const abort = new AbortController();
    const job = { info, abort, baseNew, done: Promise.resolve() };
    walks.set(info.walkId, job);
    job.done = run(abort.signal).then(
      (r) => settle(job, r),
      (e: unknown) => {
        const cancelled = abort.signal.aborted;
        Object.assign(job.info, {
          status: cancelled ? 'cancelled' : 'failed',
          stopReason: cancelled ? 'cancelled' : 'error',
          error: e instanceof Error ? e.message : String(e),
          ...(cancelled ? errorFields(undefined) : errorFields(e)),
          etaMs: null,
          updatedAt: clock.now(),
        });
        emit({ type: 'walk-progress', walk: { ...job.info } });
      },
    );
    emit({ type: 'walk-progress', walk: { ...info } });
    return { ...info };
  }

  // ───────── exports ─────────
  const exportJobs = new Map<string, ExportJobState>();

  function exportQuery(i: MethodParsedInput<'export.start'>): LibraryQuery {
    if (i.watchlistId) return { ...(i.query ?? {}), source: { type: 'watchlist', id: i.watchlistId } };
    return i.query ?? {};
  }

  function* itemRows(items: NonNullable<MethodParsedInput<'export.start'>['items']>): Generator<ExportRow> {
    for (const ref of items) {
      const it = archive.getItem(ref.platform, ref.kind, ref.id);
      if (!it) continue;
      yield { platform: it.platform, kind: it.kind, id: it.id, record: it.record, firstSeenAt: it.firstSeenAt, lastSeenAt: it.lastSeenAt, tags: it.tags, note: it.note, overrides: it.overrides };
    }
  }

  function exportFileName(i: MethodParsedInput<'export.start'>, id: string): string {
    const ext = i.format;
    if (i.fileName) return /\.[A-Za-z0-9]{1,5}$/.test(i.fileName) ? i.fileName : `${i.fileName}.${ext}`;
    const stamp = new Date(clock.now()).toISOString().slice(0, 19).replace(/[:T]/g, '-');
    return `loupe-${stamp}-${id.slice(0, 8)}.${ext}`;
  }

  // ───────── helpers ─────────
  function balanceInfo(): BalanceInfo {
    const creditsRemaining = conn ? conn.core.balance() : (archive.getBalance()?.creditsRemaining ?? null);
    return { creditsRemaining, freeCallsRemaining, at: balanceAt };
  }

  function toTarget(t: Target) {
    return { platform: t.platform, endpoint: t.endpoint, params: { ...t.params } };
  }

  async function findEndpoint(core: ApiCore, t: Target): Promise<CatalogueEndpoint> {
    await core.catalogue.load();
    const ep = core.catalogue.find(t.platform, t.endpoint);
    if (!ep) throw new AppError('validation', `The catalogue has no endpoint "${normalizeEndpoint(t.platform, t.endpoint)}" on ${t.platform}.`, 'UNKNOWN_ENDPOINT');
    return ep;
  }

  /** The exact call is already archived inside its cache window (then it costs nothing). */
  function inArchive(t: Target, ep: CatalogueEndpoint): boolean {
    if (!ep.cache_ttl_seconds || ep.cache_ttl_seconds <= 0) return false;
    const endpoint = normalizeEndpoint(t.platform, ep.path);
    const hash = paramsHash(`${t.platform}/${endpoint}?${canonicalParams(t.params)}`);
    return !!archive.findFreshResponse(t.platform, endpoint, hash, clock.now() - ep.cache_ttl_seconds * 1000);
  }

  function ledgerRow(e: ReturnType<Archive['listLedger']>[number]): LedgerRow {
    return {
      id: e.id ?? 0,
      at: e.startedAt,
      platform: e.platform,
      endpoint: e.endpoint,
      params: parseParams(e.params),
      status: e.status,
      errorType: e.errorType,
      requestId: e.requestId,
      creditsUsed: e.creditsUsed,
      creditsRemaining: e.creditsRemaining,
      chargeReason: e.chargeReason,
      cached: e.cached,
      freeCall: e.freeCall,
      idempotentReplay: e.idempotentReplay,
      dryRun: e.dryRun,
      fromArchive: false,
      source: e.source,
      durationMs: e.durationMs,
      keyName: e.keyName ?? null,
    };
  }

  const watchService: WatchService | null = opts.watch
    ? opts.watch({ api, archive, settings: () => settingsFile.read().app, emit, clock, dataDir })
    : null;

  function noWatch(): never {
    throw new AppError('not_available', 'Watchlists are not available yet in this build.');
  }

  // ───────── the Sandbox panel (issue 14 #9) ─────────
  // The app talks to the built-in emulator like any service; these drive the emulator's own
  // loopback admin routes (docs/sandbox.md) so a newcomer can move its clock, set its balance and
  // turn faults on from the app. Never used against a real service.
  let sandboxFaultRate = 0;
  let sandboxStartBalance: number | null = null;
  async function currentSandbox(): Promise<SandboxRef> {
    if (!wantedService().sandbox) throw new AppError('not_available', 'The Sandbox panel works only while Loupe runs on the built-in sandbox.');
    return sandbox();
  }
  async function sandboxAdmin(route: string, body?: unknown): Promise<Record<string, unknown>> {
    const sb = await currentSandbox();
    const r = await fetch(`${sb.url}/__admin/${route}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const j = (await r.json()) as Record<string, unknown>;
    if (!r.ok) throw new AppError('validation', `The sandbox refused ${route}: ${String((j.error as { message?: string } | undefined)?.message ?? r.status)}`);
    return j;
  }
  async function sandboxState(): Promise<SandboxState> {
    const sb = await currentSandbox();
    const [c, st] = await Promise.all([sandboxAdmin('clock'), sandboxAdmin('stats')]);
    let balance: number | null = null;
    try {
      balance = (await impl['credits.refresh']({})).creditsRemaining;
    } catch {
      /* the balance shows as unknown */
    }
    if (sandboxStartBalance === null && balance !== null && Number(st.requests ?? 0) === 0) sandboxStartBalance = balance;
    return {
      url: sb.url,
      now: Number(c.now),
      at: Date.now(),
      timeScale: Number(c.time_scale ?? 1),
      balance,
      faultRate: sandboxFaultRate,
      requests: Number(st.requests ?? 0),
      creditsCharged: Number(st.credits_charged ?? 0),
    };
  }

  // ───────── the contract ─────────
  const impl: LoupeImpl = {
    async 'app.info'(): Promise<AppInfo> {
      const want = wantedService();
      const avail = await opts.secrets.available();
      const sb = want.sandbox ? await sandbox().catch(() => null) : null;
      return {
        version: opts.version ?? APP_VERSION,
        sandbox: want.sandbox,
        baseUrl: want.sandbox ? (sb?.url ?? '') : want.baseUrl,
        keySet: want.sandbox ? true : keys.hasKey(),
        activeKeyName: want.sandbox ? 'sandbox demo key' : keys.activeName(),
        secretBackend: keys.fromEnv ? 'env' : avail.ok ? opts.secrets.backend : 'unavailable',
        secretBackendMessage: avail.ok ? null : avail.message,
        dataDir,
        door: opts.door,
      };
    },

    async 'keys.list'() {
      return withLastUse(keys.list());
    },
    async 'keys.retire'(i) {
      return withLastUse(keys.retire(i.name, i.retiring));
    },
    async 'keys.add'(i) {
      const r = await keys.add(i.name, i.key, i.activate);
      const extra = startedInSandbox && !doorBaseUrl && !settingsFile.read().app.baseUrl
        ? 'Loupe is running on the built-in sandbox; the key is used from the next start, or at once if you set the service base URL.'
        : null;
      return { name: r.name, warning: [r.warning, extra].filter(Boolean).join(' ') || null };
    },
    async 'keys.use'(i) {
      return withLastUse(keys.use(i.name));
    },
    async 'keys.remove'(i) {
      return keys.remove(i.name);
    },

    async 'settings.get'() {
      return settingsFile.read().app;
    },
    async 'settings.update'(patch) {
      const next = settingsFile.update((d) => {
        if (patch.baseUrl !== undefined) d.app.baseUrl = patch.baseUrl ? patch.baseUrl.replace(/\/+$/, '') : null;
        if (patch.rateLimit) d.app.rateLimit = patch.rateLimit;
        if (patch.maxInFlight !== undefined) d.app.maxInFlight = patch.maxInFlight;
        if (patch.askAboveCredits !== undefined) d.app.askAboveCredits = patch.askAboveCredits;
        if (patch.maxWaitSeconds !== undefined) d.app.maxWaitSeconds = patch.maxWaitSeconds;
        if (patch.attemptTimeoutSeconds !== undefined) d.app.attemptTimeoutSeconds = patch.attemptTimeoutSeconds;
        if (patch.theme) d.app.theme = patch.theme;
      }).app;
      if (conn && (patch.rateLimit || patch.maxInFlight !== undefined)) conn.core.setLimits(limitsOf(next));
      if (conn) conn.core.setWaits({ maxWaitMs: next.maxWaitSeconds * 1000, timeoutMs: next.attemptTimeoutSeconds * 1000 });
      return next;
    },

    async 'credits.get'() {
      return balanceInfo();
    },
    async 'credits.refresh'() {
      const core = await api();
      const raw = await core.credits();
      const free = num(raw.free_calls_remaining) ?? num((raw.data as Record<string, unknown> | undefined)?.free_calls_remaining);
      if (free !== null) freeCallsRemaining = free;
      balanceAt = clock.now();
      const b = balanceInfo();
      emit({ type: 'balance', balance: b });
      return b;
    },

    async 'catalogue.get'(i): Promise<Catalogue> {
      return (await api()).catalogue.load({ force: i.force });
    },
    async 'catalogue.endpoint'(i) {
      const core = await api();
      await core.catalogue.load();
      return core.catalogue.find(i.platform, i.endpoint) ?? null;
    },

    async 'api.quote'(t) {
      const core = await api();
      const ep = await findEndpoint(core, t);
      const balance = core.balance();
      if (inArchive(t, ep)) return { creditsMin: 0, creditsMax: 0, servedFromArchive: true, balance };
      const q = await core.quote(toTarget(t), { source: 'quote' });
      return {
        creditsMin: q.credits_min,
        creditsMax: q.credits_max,
        ...(q.estimate ? { estimate: q.estimate } : {}),
        servedFromArchive: false,
        balance: core.balance(),
      };
    },
    async 'api.estimateWalk'(i) {
      const core = await api();
      const e = await core.estimateWalk(toTarget(i.target), { pages: i.pages });
      return { ...e, balance: core.balance(), needsConfirmation: e.creditsMax > settingsFile.read().app.askAboveCredits };
    },
    async 'api.call'(i): Promise<CallResult> {
      // `save` is accepted for the contract's sake: every answer is archived (ledger and provenance need it)
      const core = await api();
      const r = await core.call(toTarget(i.target), { source: i.source, fresh: i.fresh, priority: 'interactive' });
      if (r.fromArchive) fromArchiveCount++;
      return { envelope: r.envelope, fromArchive: r.fromArchive, callId: r.callId, newItems: r.newItems };
    },

    async 'walks.start'(i) {
      const core = await api();
      const ep = await findEndpoint(core, i.target);
      const walkId = randomUUID();
      const now = clock.now();
      const info: WalkInfo = {
        walkId,
        platform: i.target.platform,
        endpoint: normalizeEndpoint(i.target.platform, ep.path),
        params: { ...i.target.params },
        source: i.source,
        status: 'running',
        pagesDone: 0,
        itemsSeen: 0,
        newItems: 0,
        creditsSpent: 0,
        stopReason: null,
        error: null,
        etaMs: i.maxPages ? core.pacer.eta(i.maxPages, 'background') : null,
        createdAt: now,
        updatedAt: now,
      };
      return runWalkJob(info, 0, (signal) =>
        core.walk(toTarget(i.target), { walkId, source: i.source, maxPages: i.maxPages, maxCredits: i.maxCredits, signal, priority: 'background' }),
      );
    },
    async 'walks.cancel'(i) {
      const job = walks.get(i.walkId);
      if (job && job.info.status === 'running') {
        job.abort.abort();
        await job.done;
        return { ...job.info };
      }
      const s = archive.getWalk(i.walkId);
      if (!s) throw new AppError('not_found', `No walk with id ${i.walkId}.`);
      return infoOf(s);
    },
    async 'walks.resume'(i) {
      const live = walks.get(i.walkId);
      if (live && live.info.status === 'running') return { ...live.info };
      const s = archive.getWalk(i.walkId);
      if (!s) throw new AppError('not_found', `No walk with id ${i.walkId}.`);
      if (s.status === 'done') return infoOf(s);
      const core = await api();
      const prev = infoOf(s);
      // maxPages on resume counts MORE pages ("fetch 5 more"); the walker counts pages in total
      const maxPages = i.maxPages !== undefined ? s.pagesDone + i.maxPages : undefined;
      const maxCredits = i.maxCredits !== undefined ? s.creditsSpent + i.maxCredits : undefined;
      const info: WalkInfo = { ...prev, status: 'running', stopReason: null, error: null, errorKind: null, errorType: null, retryAt: null, etaMs: maxPages ? core.pacer.eta(maxPages - s.pagesDone, 'background') : null, updatedAt: clock.now() };
      return runWalkJob(info, prev.newItems, (signal) =>
        core.resumeWalk(i.walkId, { maxPages, maxCredits, signal, priority: 'background' }),
      );
    },
    async 'walks.get'(i) {
      const live = walks.get(i.walkId);
      if (live) return { ...live.info };
      const s = archive.getWalk(i.walkId);
      return s ? infoOf(s) : null;
    },
    async 'walks.list'() {
      const byId = new Map<string, WalkInfo>();
      for (const s of archive.listWalks()) byId.set(s.walkId, infoOf(s));
      for (const [id, j] of walks) byId.set(id, { ...j.info });
      return [...byId.values()].sort((a, b) => b.updatedAt - a.updatedAt);
    },

    async 'library.query'(q) {
      return archive.query(q);
    },
    async 'library.count'(q) {
      return archive.count(q);
    },
    async 'library.item'(ref): Promise<ItemDetail | null> {
      return archive.getItem(ref.platform, ref.kind, ref.id) ?? null;
    },
    async 'library.volume'(i) {
      return archive.volumeOverTime(i.query, i.bucket);
    },
    async 'library.engagement'(i) {
      return archive.engagementOverTime(i.query, i.bucket, i.field as 'views' | 'likes' | 'comments' | 'shares' | 'saves');
    },
    async 'library.labelDistribution'(i) {
      return archive.labelDistribution(i.query, i.family, i.field);
    },
    async 'library.topAuthors'(i) {
      return archive.topAuthors(i.query, i.limit);
    },
    async 'library.tags'() {
      return archive.listTags();
    },
    async 'library.tag'(i) {
      for (const ref of i.items) {
        if (i.remove) archive.removeTag(ref, i.tag);
        else archive.addTag(ref, i.tag);
      }
    },
    async 'library.tagQuery'(i) {
      return archive.tagQuery(i.query, i.tag);
    },
    async 'library.note'(i) {
      archive.setNote(i.item, i.note);
    },
    async 'library.override'(i) {
      if (i.clear) archive.clearOverride(i.item, i.family, i.field);
      else {
        // an override is a value the service itself could have given (issue 14 #4: no "banana")
        const spec = labelFieldSpec(i.family, i.field);
        const seen = spec?.type === 'text' && spec.seenOnly ? archive.labelDistribution({}, i.family, i.field).map((s) => s.bucket) : undefined;
        const problem = labelValueProblem(i.family, i.field, i.value, seen);
        if (problem) throw new AppError('validation', `Not a label value: ${problem}`);
        archive.overrideLabel(i.item, i.family, i.field, i.value);
      }
    },
    async 'library.saveResultSet'(i) {
      const rs = archive.saveResultSet(i.name, i.query, { note: i.note ?? null });
      return { id: rs.id };
    },
    async 'library.resultSets'() {
      return archive.listResultSets().map((r) => ({ id: r.id, name: r.name, query: r.query, note: r.note, createdAt: r.createdAt }));
    },

    async 'export.start'(i) {
      const exportId = randomUUID();
      const bad = exportOptionsError(i);
      if (bad) throw new AppError('validation', bad);
      mkdirSync(exportsDir, { recursive: true });
      const out = join(exportsDir, exportFileName(i, exportId));
      const query = exportQuery(i);
      const total = i.items ? i.items.length : archive.count({ ...query, limit: undefined, after: undefined });
      const job: ExportJob = { exportId, status: 'running', rows: 0, total, path: null, downloadUrl: null, error: null };
      const abort = new AbortController();
      const rows = i.items ? itemRows(i.items) : archive.iterateExportRows(query);
      const state: ExportJobState = { job, abort, done: Promise.resolve() };
      exportJobs.set(exportId, state);
      state.done = exportAny(rows, {
        format: i.format,
        out,
        bom: i.bom,
        columns: i.columns,
        network: i.network,
        pseudonymiseIn: i.pseudonymise ? dataDir : null,
        archiveDb: archive.db,
        query: i.items ? undefined : query,
        signal: abort.signal,
        total,
        onProgress: (n) => {
          job.rows = n;
          emit({ type: 'export-progress', job: { ...job } });
        },
      }).then(
        (r) => {
          Object.assign(job, { status: 'done', rows: r.rows, path: r.path, summary: r.summary, downloadUrl: opts.downloadUrl ? opts.downloadUrl(exportId) : null });
          emit({ type: 'export-progress', job: { ...job } });
        },
        (e: unknown) => {
          Object.assign(job, { status: abort.signal.aborted ? 'cancelled' : 'failed', error: abort.signal.aborted ? null : e instanceof Error ? e.message : String(e) });
          emit({ type: 'export-progress', job: { ...job } });
        },
      );
      emit({ type: 'export-progress', job: { ...job } });
      return { ...job };
    },
    async 'export.get'(i) {
      const s = exportJobs.get(i.exportId);
      return s ? { ...s.job } : null;
    },
    async 'export.cancel'(i) {
      const s = exportJobs.get(i.exportId);
      if (!s) return null;
      if (s.job.status === 'running') {
        s.abort.abort();
        await s.done;
      }
      return { ...s.job };
    },
    async 'export.columns'() {
      return [...CSV_COLUMNS];
    },

    async 'usage.summary'(i): Promise<UsageSummary> {
      const range = i.since !== undefined ? { since: i.since } : {};
      const u = archive.usageSummary(range);
      return {
        balance: balanceInfo(),
        charged: u.charged,
        notCharged: { ...u.notCharged, fromArchive: u.notCharged.fromArchive + fromArchiveCount },
        perDay: archive.creditsPerDay(range),
        perSource: archive.creditsPerSource(range),
        perEndpoint: archive.creditsPerEndpoint(range),
      };
    },
    async 'usage.ledger'(i) {
      return archive.listLedger({ limit: i.limit, beforeId: i.beforeId }).map(ledgerRow);
    },

    async 'sandbox.state'() {
      if (!wantedService().sandbox) return null;
      return sandboxState();
    },
    async 'sandbox.advance'(i) {
      await sandboxAdmin('clock/advance', { seconds: i.seconds });
      emit({ type: 'notice', level: 'info', message: `Sandbox clock moved ${i.seconds >= 86_400 ? `${+(i.seconds / 86_400).toFixed(2)} day(s)` : `${+(i.seconds / 3600).toFixed(2)} hour(s)`} forward: new posts appear; cache windows may have passed.` });
      return sandboxState();
    },
    async 'sandbox.setBalance'(i) {
      await sandboxAdmin('balance', { balance: i.balance });
      return sandboxState();
    },
    async 'sandbox.faults'(i) {
      await sandboxAdmin('chaos', { rate: i.rate });
      sandboxFaultRate = i.rate;
      return sandboxState();
    },
    async 'sandbox.reset'() {
      await sandboxAdmin('chaos', { rate: 0 });
      sandboxFaultRate = 0;
      await sandboxAdmin('faults/clear', {});
      await sandboxAdmin('balance', { balance: sandboxStartBalance ?? 10_000 });
      return sandboxState();
    },

    ...analysisMethods(archive),
    ...networkMethods({ archive, dataDir }),

    ...(Object.fromEntries(
      WATCH_METHODS.map((m) => [
        m,
        async (input: never) => {
          if (!watchService) noWatch();
          return (watchService[m] as (i: never) => Promise<unknown>)(input);
        },
      ]),
    ) as Pick<LoupeImpl, WatchMethodName>),
  };

  return {
    impl,
    archive,
    keys,
    api,
    ready: Promise.resolve(),
    events: {
      on(listener: (e: LoupeEvent) => void): Unsubscribe {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
    secrets: () => keys.secrets(),
    async close() {
      if (closed) return;
      closed = true;
      for (const j of walks.values()) if (j.info.status === 'running') j.abort.abort();
      for (const s of exportJobs.values()) if (s.job.status === 'running') s.abort.abort();
      await Promise.allSettled([...walks.values()].map((j) => j.done));
      await Promise.allSettled([...exportJobs.values()].map((s) => s.done));
      await watchService?.close?.();
      if (conn) {
        conn.off.forEach((f) => f());
        await conn.core.close().catch(() => {});
        conn = null;
      }
      listeners.clear();
      archive.close();
    },
  };
}
