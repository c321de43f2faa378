/**
 * The service the app talks to, decided on each call so Settings changes apply at once
 * (docs/doors.md): a base URL from the door or Settings → that service with the key pool; else,
 * when the app started with no key (or still has none) → the built-in sandbox, started on first
 * need; else PRODUCTION_BASE_URL. Owns the request core of that service, forwards its events as
 * contract events, and keeps the balance and free calls the UI shows.
 */
import { join } from 'node:path';
import type { BalanceInfo, LoupeEvent, Settings } from '../shared/contract';
import { createApiCore, type ApiCore } from './api';
import type { WalkProgress } from './api';
import type { Archive } from './archive';
import { AppError } from './bridge';
import { readingTime, type CoreStore } from './ports';
import type { KeyRing, SettingsFile } from './secrets';
import { datedHttp, type ServiceClock } from './service-clock';

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

export interface PaceLimits {
  requests: number;
  windowSeconds: number;
  maxInFlight: number;
}

export interface ServiceLinkOptions {
  dataDir: string;
  /** the door's base URL (already trimmed), null → Settings, then the sandbox */
  doorBaseUrl: string | null;
  sandbox?: SandboxRef | (() => Promise<SandboxRef>);
  keys: KeyRing;
  settingsFile: SettingsFile;
  archive: Archive;
  /** what the request core writes to (default: the archive; the CLI's reading commands skip the balance memo) */
  store?: CoreStore;
  /** true (the CLI): no base URL always means the sandbox, even with a key; else the app's rule */
  sandboxWithoutBaseUrl?: boolean;
  /** the service's clock: every answer's Date header tunes it; on the sandbox, its own clock sets it */
  clock: ServiceClock;
  userAgent: string;
  log: (line: string) => void;
  emit(e: LoupeEvent): void;
  /** the pacing limits for these settings (the settings table applies environment overrides) */
  limits(s: Settings): PaceLimits;
  /** true while walks run in this process (switching service is then refused) */
  walksRunning(): boolean;
  walkProgress(p: WalkProgress): void;
}

export interface ServiceLink {
  /** sticky for this run: started with no service and no key → the sandbox stays in use */
  readonly startedInSandbox: boolean;
  readonly doorBaseUrl: string | null;
  wanted(): { sandbox: true } | { sandbox: false; baseUrl: string };
  sandbox(): Promise<SandboxRef>;
  api(): Promise<ApiCore>;
  /** the core in use, if one was built */
  current(): ApiCore | null;
  balanceInfo(): BalanceInfo;
  /** GET /v1/credits (free, not rate counted): the balance and free calls, emitted as an event */
  refreshCredits(): Promise<BalanceInfo>;
  /**
   * Another process wrote the ledger or the balance (ledger-watch.ts): emits `ledger-changed`, then
   * the balance re-read from the service (or the newer reading that process stored)
   */
  afterForeignWrite(): void;
  /**
   * Brings the service clock up to date where the service's time can be read directly: on the
   * built-in sandbox, or a sandbox run on its own at a loopback base URL, its clock (GET
   * /__admin/clock, loopback, not a service request; a loopback server without it is left alone).
   * Elsewhere a no-op: a real service's clock does not jump, and its answers' Date headers keep the
   * offset.
   */
  syncClock(): Promise<void>;
  /** Settings changed: the running core takes the new limits and waits */
  applySettings(next: Settings, limitsChanged: boolean): void;
  /** the app is closing: no new request core from now on */
  refuseNew(): void;
  close(): Promise<void>;
}

interface Conn {
  baseUrl: string;
  sandbox: boolean;
  core: ApiCore;
  off: Array<() => void>;
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** A base URL on this computer (a sandbox started on its own: `npm run sandbox`), never another host. */
export function isLoopback(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
  } catch {
    return false;
  }
}

/** The service clock set from the sandbox's own (GET /__admin/clock: loopback, not a service request). */
async function readSandboxClock(url: string, clock: ServiceClock): Promise<void> {
  const at = clock.local();
  const r = await fetch(`${url}/__admin/clock`, { signal: AbortSignal.timeout(2_000) });
  if (!r.ok) return;
  const j = (await r.json()) as { now?: unknown };
  const now = num(j.now);
  if (now !== null) clock.set(now, (at + clock.local()) / 2);
}

/**
 * The built-in sandbox's clock, or that of a sandbox run on its own at a loopback address (the
 * README's `npm run sandbox`, its clock moved or scaled) when it has an admin clock: anything else
 * there is left alone; another host, never asked.
 */
async function syncSandboxClock(
  want: { sandbox: true } | { sandbox: false; baseUrl: string },
  sandbox: () => Promise<{ url: string }>,
  clock: ServiceClock,
): Promise<void> {
  if (want.sandbox) await readSandboxClock((await sandbox()).url, clock);
  else if (isLoopback(want.baseUrl)) await readSandboxClock(want.baseUrl.replace(/\/+$/, ''), clock).catch(() => undefined);
}

/** A request core's rate limits, walk progress and warnings passed on; a refused key marked. Returns the unsubscribers. */
function passOn(core: ApiCore, o: ServiceLinkOptions): Array<() => void> {
  const emit = (e: LoupeEvent) => o.emit(e);
  return [
    core.events.on('rate-limited', (r) => {
      const secs = Math.max(1, Math.ceil(r.retryAfterMs / 1000));
      const what = r.type === 'CONCURRENCY_LIMIT' ? 'Too many requests in flight on this key' : 'Rate limited by the service';
      emit({ type: 'rate-limited', retryInMs: r.retryAfterMs, message: `${what} — retrying in ${secs} s` });
    }),
    core.events.on('walk-progress', (p) => o.walkProgress(p)),
    core.events.on('warning', (w) => emit({ type: 'notice', level: 'warning', message: w.message })),
    // a key the service refused stays out of the pool until it is replaced (Settings shows why)
    core.events.on('key-refused', (r) => {
      try {
        o.keys.markRefused(r.name, r.type);
      } catch {
        /* a read-only settings file: the key is out of this process's pool all the same */
      }
    }),
  ];
}

export function createServiceLink(o: ServiceLinkOptions): ServiceLink {
  const { archive, clock, keys, settingsFile, emit } = o;
  const doorBaseUrl = o.doorBaseUrl;
  const startedInSandbox = !doorBaseUrl && !settingsFile.read().app.baseUrl && (!!o.sandboxWithoutBaseUrl || !keys.hasKey());

  let freeCallsRemaining: number | null = null;
  let freeRefresh: Promise<unknown> | null = null;
  let balanceAt: number | null = archive.getBalance()?.at ?? null;
  let closed = false;

  let sandboxRef: SandboxRef | null = typeof o.sandbox === 'object' ? o.sandbox : null;
  let sandboxStarting: Promise<SandboxRef> | null = null;
  async function sandbox(): Promise<SandboxRef> {
    if (sandboxRef) return sandboxRef;
    const start = o.sandbox;
    if (typeof start !== 'function')
      throw new AppError('validation', 'No service is configured: add an API key and set the service base URL in Settings.');
    sandboxStarting ??= start().then((s) => (sandboxRef = s));
    return sandboxStarting;
  }

  function wanted(): { sandbox: true } | { sandbox: false; baseUrl: string } {
    const configured = doorBaseUrl ?? settingsFile.read().app.baseUrl;
    if (configured) return { sandbox: false, baseUrl: configured };
    if (startedInSandbox || !keys.hasKey()) return { sandbox: true };
    return { sandbox: false, baseUrl: PRODUCTION_BASE_URL };
  }

  let conn: Conn | null = null;
  let connecting: Promise<Conn> | null = null;

  function balanceInfo(): BalanceInfo {
    // a newer reading another process stored (it spent on this data folder) wins over ours
    let stored: { creditsRemaining: number; at: number } | undefined;
    try {
      stored = archive.getBalance();
    } catch {
      stored = undefined;
    }
    if (stored && (!conn || balanceAt === null || stored.at > balanceAt))
      return { creditsRemaining: stored.creditsRemaining, freeCallsRemaining, at: stored.at };
    const creditsRemaining = conn ? conn.core.balance() : null;
    return { creditsRemaining, freeCallsRemaining, at: balanceAt };
  }

  // another process wrote the ledger or the balance: re-read the balance (free), one at a time
  let rereading: Promise<void> | null = null;
  let again = false;
  function afterForeignWrite(): void {
    emit({ type: 'ledger-changed' });
    if (rereading) {
      again = true;
      return;
    }
    rereading = (async () => {
      do {
        again = false;
        let read = false;
        if (conn && !closed)
          read = await refreshCredits().then(
            () => true,
            () => false,
          );
        // no connection yet (nothing to ask with), or the service did not answer: the reading the
        // other process stored, when it is newer
        if (!read) emit({ type: 'balance', balance: balanceInfo() });
      } while (again && !closed);
    })().finally(() => (rereading = null));
  }

  async function refreshCredits(): Promise<BalanceInfo> {
    const core = await api();
    const raw = await core.credits();
    const free = num(raw.free_calls_remaining) ?? num((raw.data as Record<string, unknown> | undefined)?.free_calls_remaining);
    if (free !== null) freeCallsRemaining = free;
    balanceAt = readingTime(clock);
    const b = balanceInfo();
    emit({ type: 'balance', balance: b });
    return b;
  }

  async function connect(): Promise<Conn> {
    const want = wanted();
    const sb = want.sandbox ? await sandbox() : null;
    const baseUrl = sb ? sb.url : (want as { baseUrl: string }).baseUrl;
    if (conn && conn.baseUrl === baseUrl) return conn;
    const switching = conn !== null;
    if (conn) {
      if (o.walksRunning())
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
        archive.clearBalance();
      } catch {
        /* a read-only archive: the refresh below overwrites it when the service answers */
      }
      emit({ type: 'balance', balance: { creditsRemaining: null, freeCallsRemaining: null, at: null } });
    }
    const s = settingsFile.read().app;
    const core = createApiCore({
      baseUrl,
      // the sandbox's demo key, or every stored key (the pool: issue 15), paced with every other
      // Loupe process using this data folder (pacing.db)
      ...(sb ? { getKey: () => sb.key } : { getKeys: () => keys.poolKeys() }),
      paceFile: join(o.dataDir, 'pacing.db'),
      store: o.store ?? archive,
      clock,
      limits: o.limits(s),
      maxWaitMs: s.maxWaitSeconds * 1000,
      timeoutMs: s.attemptTimeoutSeconds * 1000,
      catalogueFile: sb ? undefined : join(o.dataDir, 'catalogue.json'),
      userAgent: o.userAgent,
      log: o.log,
      http: (c) => datedHttp(c, clock),
    });
    const off = [
      core.events.on('balance', (b) => {
        balanceAt = b.at;
        emit({ type: 'balance', balance: { creditsRemaining: b.creditsRemaining, freeCallsRemaining, at: b.at } });
        // while free calls remain, a charged answer may have used one: re-read them from
        // GET /v1/credits (free, not rate counted), at most once per half second
        if (freeCallsRemaining !== null && freeCallsRemaining > 0 && !freeRefresh) {
          freeRefresh = clock.sleep(500).then(
            () =>
              refreshCredits()
                .then(
                  () => undefined,
                  () => undefined,
                )
                .finally(() => (freeRefresh = null)),
            () => (freeRefresh = null),
          );
        }
      }),
      ...passOn(core, o),
    ];
    conn = { baseUrl, sandbox: !!sb, core, off };
    // read the new service's balance right away (GET /v1/credits: free, not rate counted)
    if (switching) void refreshCredits().catch(() => {});
    return conn;
  }

  async function api(): Promise<ApiCore> {
    if (closed) throw new AppError('internal', 'Loupe is shutting down.');
    if (conn && !connecting) {
      const want = wanted();
      if (want.sandbox ? conn.sandbox : conn.baseUrl === want.baseUrl) return conn.core;
    }
    connecting ??= connect().finally(() => (connecting = null));
    return (await connecting).core;
  }

  return {
    startedInSandbox,
    doorBaseUrl,
    async syncClock() {
      if (!closed) await syncSandboxClock(wanted(), sandbox, clock);
    },
    wanted,
    sandbox,
    api,
    current: () => conn?.core ?? null,
    balanceInfo,
    refreshCredits,
    afterForeignWrite,
    applySettings(next, limitsChanged) {
      if (conn && limitsChanged) conn.core.setLimits(o.limits(next));
      if (conn) conn.core.setWaits({ maxWaitMs: next.maxWaitSeconds * 1000, timeoutMs: next.attemptTimeoutSeconds * 1000 });
    },
    refuseNew() {
      closed = true;
    },
    async close() {
      closed = true;
      if (conn) {
        conn.off.forEach((f) => f());
        await conn.core.close().catch(() => {});
        conn = null;
      }
    },
  };
}
