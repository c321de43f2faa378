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
import { mkdirSync } from 'node:fs';
import type { LoupeEvent, Unsubscribe } from '../shared/contract';
import type { LocalImpl } from '../shared/contract-local';
import { pacingLimits, type EnvironmentSettings } from '../shared/settings';
import type { ApiCore } from './api';
import { realClock } from './api';
import { authorName } from './author';
import { openArchive, openArchiveIn, type Archive, type ArchiveMode } from './archive';
import type { AppHandle } from './bridge';
import { contractImpl } from './methods';
import type { AppParts } from './methods';
import { createExports } from './methods';
import { createSnapshots } from './methods';
import { createCollect } from './methods';
import { createWalks } from './methods';
import { localDoors } from './methods';
import type { WatchDeps, WatchService } from './methods';
import { archivePath, settingsPath } from './paths';
import { appNameSources, checkQueryNames, withQueryNameCheck, type QueryNames } from './query-names';
import type { Clock, CoreStore } from './ports';
import { KeyRing, SettingsFile, type SecretStore } from './secrets';
import { watchLedger } from './ledger-watch';
import { APP_VERSION, createServiceLink, type SandboxRef } from './service-link';
import { serviceClock } from './service-clock';

export { AppError } from './bridge';
export type { AppHandle } from './bridge';
export { APP_VERSION, PRODUCTION_BASE_URL, type SandboxRef } from './service-link';
export type { WatchDeps, WatchMethodName, WatchService } from './methods';

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
  door: 'electron' | 'web' | 'cli';
  /**
   * How the archive is opened (src/core/archive/open.ts): unset → created and opened as is (the
   * desktop app, the web host); 'write' → a folder or file that cannot be written stops at once
   * with a StorageError; 'read' → nothing in the data folder is written (a read-only folder works;
   * the request core then skips remembering the balance). The CLI picks it per command.
   */
  archiveMode?: ArchiveMode;
  /** true (the CLI): no base URL always means the sandbox, even with a key */
  sandboxWithoutBaseUrl?: boolean;
  /** the watchlist service, built with the app's parts */
  watch?: (deps: WatchDeps) => WatchService;
  /** web door: the URL a finished export downloads from */
  downloadUrl?: (exportId: string) => string;
  version?: string;
  /** diagnostic lines (never contain a key) */
  log?: (line: string) => void;
  /** what the environment sets for this process (src/shared/settings.ts): pacing overrides */
  environment?: Pick<EnvironmentSettings, 'rateLimit' | 'maxInFlight' | 'authorName'>;
  /**
   * How often (ms) to look for another process writing this data folder's ledger (ledger-watch.ts);
   * default 1,000 for the desktop app and the web host, off (0) for the CLI
   */
  watchOthersMs?: number;
}

export interface LoupeApp extends AppHandle {
  /** resolves once the archive is open and settings are read (rejects on a too-new archive) */
  ready: Promise<void>;
  archive: Archive;
  keys: KeyRing;
  /** the request core currently in use (built on first use) */
  api(): Promise<ApiCore>;
  /**
   * The service clock brought up to date where it can be read directly (a sandbox's own clock:
   * ServiceLink.syncClock; a no-op on a real service). A door calls it before its first request, so
   * the times the answers are stored at are on the service's clock.
   */
  syncClock(): Promise<void>;
  /** refuses (validation) a query naming a network, kind or label Loupe does not know — what every contract method checks (query-names.ts) */
  checkQuery(q: QueryNames): Promise<void>;
  /** the local doors' methods (src/shared/contract-local.ts): never on the web host's or the renderer's door */
  local: LocalImpl;
}

/**
 * The store the request core gets in 'read' mode: the archive, except that remembering the last
 * known balance is skipped when the archive cannot be written (it is a memo; the balance is still
 * answered). Every other write fails as the archive does (StorageError).
 */
function readingStore(a: Archive): CoreStore {
  if (!a.readonly) return a;
  return {
    findJournal: (k) => a.findJournal(k),
    beginJournal: (e) => a.beginJournal(e),
    finishJournal: (id, st, at) => a.finishJournal(id, st, at),
    pendingJournal: () => a.pendingJournal(),
    ensureWritable: () => a.ensureWritable(),
    journalAround: (id, from, to) => a.journalAround(id, from, to),
    ledgerHighWater: () => a.ledgerHighWater(),
    ledgerCreditsSince: (id, since) => a.ledgerCreditsSince(id, since),
    ledgerFreeSince: (id, since) => a.ledgerFreeSince(id, since),
    ledgerOfCall: (id) => a.ledgerOfCall(id),
    ledgerBetween: (id, upTo, since) => a.ledgerBetween(id, upTo, since),
    ledgerOfRequest: (p, e, h, from, to) => a.ledgerOfRequest(p, e, h, from, to),
    ledgerOfList: (p, e, params, from, to) => a.ledgerOfList(p, e, params, from, to),
    recordAttempt: (e) => a.recordAttempt(e),
    storeResponse: (r, source, walkId) => a.storeResponse(r, source, walkId),
    findFreshResponse: (p, e, h, since) => a.findFreshResponse(p, e, h, since),
    saveWalk: (w) => a.saveWalk(w),
    getWalk: (id) => a.getWalk(id),
    listWalks: (f) => a.listWalks(f),
    setBalance: () => undefined,
    getBalance: () => a.getBalance(),
  };
}

/** The core's `clock` is the service's, for every time Loupe records or compares (issue 27 #3, service-clock.ts). */
/** An event to every listener; a listener that throws stops neither the others nor the emitter. */
function emitTo(listeners: ReadonlySet<(e: LoupeEvent) => void>): (e: LoupeEvent) => void {
  return (e) => {
    for (const l of [...listeners]) {
      try {
        l(e);
      } catch {}
    }
  };
}

/** The app's `events`: a listener added to the set, removed by the returned unsubscriber. */
function subscribeTo(listeners: Set<(e: LoupeEvent) => void>): LoupeApp['events'] {
  return {
    on(listener: (e: LoupeEvent) => void): Unsubscribe {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export function createApp(opts: CreateAppOptions): LoupeApp {
  const clock = serviceClock(opts.clock ?? realClock);
  const dataDir = opts.dataDir;
  const version = opts.version ?? APP_VERSION;
  if (!opts.archiveMode) mkdirSync(dataDir, { recursive: true });
  const settingsFile = new SettingsFile(settingsPath(dataDir));
  const keys = new KeyRing({ store: opts.secrets, settings: settingsFile, envKey: opts.envKey ?? null, now: () => clock.now() });
  // who annotates: read at each write, so a change in Settings applies at once
  const author = (): string | null => authorName(settingsFile.read().app.authorName, opts.environment?.authorName);
  const archive = opts.archiveMode
    ? openArchiveIn(opts.archiveMode, archivePath(dataDir), { clock: () => clock.now(), author })
    : openArchive(archivePath(dataDir), { clock: () => clock.now(), author });

  const listeners = new Set<(e: LoupeEvent) => void>();
  const emit = emitTo(listeners);

  const api = () => service.api();
  const walks = createWalks({ archive, clock, emit, api });
  const service = createServiceLink({
    dataDir,
    doorBaseUrl: opts.baseUrl && opts.baseUrl.trim() ? opts.baseUrl.trim() : null,
    sandbox: opts.sandbox,
    sandboxWithoutBaseUrl: opts.sandboxWithoutBaseUrl,
    keys,
    settingsFile,
    archive,
    store: opts.archiveMode === 'read' ? readingStore(archive) : archive,
    clock,
    userAgent: opts.door === 'cli' ? `Loupe-CLI/${version}` : `Loupe/${version} (${opts.door})`,
    log: opts.log ?? (() => {}),
    emit,
    // the stored pacing, with LOUPE_RATE_LIMIT / LOUPE_MAX_IN_FLIGHT winning for this process
    limits: (s) => pacingLimits(s, opts.environment ?? {}),
    walksRunning: () => walks.anyRunning(),
    walkProgress: (p) => walks.progress(p),
  });
  const parts: AppParts = {
    dataDir,
    door: opts.door,
    version,
    clock,
    archive,
    keys,
    secrets: opts.secrets,
    settingsFile,
    emit,
    service,
    api,
    downloadUrl: opts.downloadUrl,
    author,
  };
  const exports = createExports(parts);
  const snapshots = createSnapshots(parts);
  const watch = opts.watch
    ? opts.watch({
        api,
        archive,
        settings: () => settingsFile.read().app,
        emit,
        clock,
        dataDir,
        syncClock: () => service.syncClock(),
        secrets: opts.secrets,
      })
    : null;
  const collect = createCollect(parts);
  // every query filter and alert is checked for unknown names first, at every door (issue 24 #8)
  const names = appNameSources(archive, api, dataDir);
  const impl = withQueryNameCheck(contractImpl(parts, { walks, exports, watch, collect, snapshots }), names);

  // the balance on screen follows other processes' spending on this data folder (issue 24 #7)
  const everyMs = opts.watchOthersMs ?? (opts.door === 'cli' ? 0 : 1000);
  const others = everyMs > 0 ? watchLedger({ archive, everyMs, onForeignWrite: () => service.afterForeignWrite() }) : null;

  let closed = false;
  return {
    impl,
    archive,
    keys,
    api,
    syncClock: () => service.syncClock(),
    checkQuery: (q) => checkQueryNames(q, names),
    local: localDoors(parts, collect, (q) => checkQueryNames(q, names)),
    ready: Promise.resolve(),
    events: subscribeTo(listeners),
    secrets: () => keys.secrets(),
    async close() {
      if (closed) return;
      closed = true;
      others?.stop();
      service.refuseNew();
      await Promise.all([walks.stop(), exports.stop(), collect.stop(), snapshots.stop()]);
      await watch?.close?.();
      await service.close();
      listeners.clear();
      archive.close();
    },
  };
}
