/**
 * What every `loupe` command shares: the data folder, settings, keys, the archive, and the
 * request core pointed at the right service (a configured base URL, else an in-process sandbox).
 *
 * Commands that only read (walks, export, columns, endpoints, credits, watch list/history,
 * archive check) run in 'read' mode: the archive is opened so that nothing in the data folder is
 * written when it is read-only (src/core/archive/open.ts). Every other command runs in 'write'
 * mode: a data folder or archive that cannot be written stops it with a StorageError (exit 6)
 * before anything is sent to the service.
 */
import type { ApiCore } from '../core/api';
import { realClock } from '../core/api/clock';
import { openArchiveIn, type Archive, type ArchiveMode } from '../core/archive';
import { archivePath, defaultDataDir, settingsPath } from '../core/paths';
import type { CoreStore } from '../core/ports';
import { KeyRing, KeyringSecretStore, SettingsFile } from '../core/secrets';
import { sandboxOnDemand } from '../core/compose';
import { createServiceLink, type ServiceLink } from '../core/service-link';
import type { Settings } from '../shared/contract';
import { envValue, pacingLimits, readEnvironment, SettingValueError, type EnvironmentSettings } from '../shared/settings';
import { LoupeError } from '../shared/errors';
import { startSandbox } from '../sandbox';

/** A mistake on the command line: kind validation, exit 2 (src/shared/errors.ts). */
export class UsageError extends LoupeError {
  constructor(message: string) {
    super('validation', message);
    this.name = 'UsageError';
  }
}

export interface GlobalOptions {
  baseUrl?: string;
  dataDir?: string;
}

export interface CliContext {
  dataDir: string;
  /** the archive file of this data folder */
  archiveFile: string;
  /** 'read' for commands that only read (see the header) */
  mode: ArchiveMode;
  settings: SettingsFile;
  keys: KeyRing;
  archive(): Archive;
  /** the request core; starts the in-process sandbox when no base URL is configured */
  api(): Promise<ApiCore>;
  /** true once api() chose the in-process sandbox */
  sandbox: boolean;
  close(): Promise<void>;
}

/**
 * `LOUPE_RATE_LIMIT` = `<count>/<seconds>s` (e.g. `60/60s`), `LOUPE_MAX_IN_FLIGHT` = n: the
 * settings table's reading (src/shared/settings.ts), a bad value as a usage error (exit 2).
 */
export function limitsFromEnv(env: NodeJS.ProcessEnv, s: Settings): { requests: number; windowSeconds: number; maxInFlight: number } {
  return pacingLimits(s, environment(env));
}

/** The environment through the settings table; a value that does not fit is a usage error. */
function environment(env: NodeJS.ProcessEnv): EnvironmentSettings {
  try {
    return readEnvironment(env);
  } catch (e) {
    if (e instanceof SettingValueError) throw new UsageError(e.message);
    throw e;
  }
}

/**
 * The service base URL, checked: an absolute http(s) URL, else a usage error naming where it came
 * from (at once: nothing is sent, nothing retried). A value that looks like an API key pasted in
 * the wrong place is not echoed.
 */
export function checkBaseUrl(value: string, where: string): string {
  const shown = /_(live|test)_[A-Za-z0-9_-]{16,}/.test(value) ? 'a value that looks like an API key (not shown)' : `"${value}"`;
  let u: URL | null = null;
  try {
    u = new URL(value.trim());
  } catch {
    u = null;
  }
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname)
    throw new UsageError(`${where} must be an http:// or https:// URL such as https://api.example.com, not ${shown}.`);
  return value.trim();
}

/**
 * The store the request core gets in 'read' mode: the archive, except that remembering the last
 * known balance is skipped when the archive cannot be written (it is a memo; `credits` still
 * prints the balance). Every other write fails as the archive does (StorageError, exit 6).
 */
function readingStore(a: Archive): CoreStore {
  if (!a.readonly) return a;
  return {
    findJournal: (k) => a.findJournal(k),
    beginJournal: (e) => a.beginJournal(e),
    finishJournal: (id, st, at) => a.finishJournal(id, st, at),
    pendingJournal: () => a.pendingJournal(),
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

export function createContext(
  g: GlobalOptions,
  env: NodeJS.ProcessEnv = process.env,
  log: (s: string) => void = () => {},
  mode: ArchiveMode = 'write',
): CliContext {
  // the data folder as every door finds it (src/core/paths.ts: --data-dir, else LOUPE_HOME, …)
  const dataDir = defaultDataDir(env, g.dataDir);
  const settings = new SettingsFile(settingsPath(dataDir));
  // the OS keyring (src/core/compose.ts pickSecretStore says why the CLI takes it as is)
  const keys = new KeyRing({ store: new KeyringSecretStore(), settings, envKey: envValue(env, 'apiKey') ?? null });
  let archive: Archive | null = null;
  let core: ApiCore | null = null;
  let link: ServiceLink | null = null;
  let stopSandbox: (() => Promise<void>) | null = null;
  const ctx: CliContext = {
    dataDir,
    archiveFile: archivePath(dataDir),
    mode,
    settings,
    keys,
    sandbox: false,
    archive() {
      archive ??= openArchiveIn(mode, archivePath(dataDir));
      return archive;
    },
    async api() {
      if (core) return core;
      const e = environment(env);
      const s = settings.read().app;
      const configured =
        g.baseUrl !== undefined
          ? checkBaseUrl(g.baseUrl, '--base-url')
          : e.baseUrl !== undefined
            ? checkBaseUrl(e.baseUrl, 'LOUPE_BASE_URL')
            : s.baseUrl
              ? checkBaseUrl(s.baseUrl, `The base URL in ${settingsPath(dataDir)}`)
              : null;
      // the archive first: a folder that cannot be written stops a writing command here, before
      // the sandbox starts or anything is sent
      const a = ctx.archive();
      // the request core from the composition's service link (src/core/service-link.ts): the
      // configured service with the key pool (LOUPE_API_KEY, one key or several, else every stored
      // key), else the in-process sandbox; every Loupe process using this data folder paces each
      // key together (pacing.db); in a read-only folder the catalogue cache is read, writing it
      // fails quietly (it is a cache)
      link = createServiceLink({
        dataDir,
        doorBaseUrl: configured,
        sandboxWithoutBaseUrl: true,
        sandbox: async () => {
          const sb = await sandboxOnDemand(startSandbox, e.sandboxSeed).start();
          stopSandbox = () => sb.close();
          ctx.sandbox = true;
          log('No base URL set (--base-url or LOUPE_BASE_URL): using the in-process sandbox — synthetic data.');
          return sb;
        },
        keys,
        settingsFile: settings,
        archive: a,
        store: mode === 'read' ? readingStore(a) : a,
        clock: realClock,
        userAgent: 'Loupe-CLI/0.1.0',
        log: () => {},
        // e.g. "The API key does not look like a service key…", shown before the first call
        emit: (ev) => {
          if (ev.type === 'notice' && ev.level === 'warning') log(`Warning: ${ev.message}`);
        },
        limits: (st) => pacingLimits(st, e),
        walksRunning: () => false,
        walkProgress: () => {},
      });
      core = await link.api();
      return core;
    },
    async close() {
      if (link) await link.close().catch(() => {});
      if (stopSandbox) await stopSandbox().catch(() => {});
      archive?.close();
    },
  };
  return ctx;
}
