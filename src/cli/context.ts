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
import { join } from 'node:path';
import { createApiCore, type ApiCore } from '../core/api';
import { openArchiveIn, type Archive, type ArchiveMode } from '../core/archive';
import { archivePath, defaultDataDir, settingsPath } from '../core/paths';
import type { CoreStore } from '../core/ports';
import { KeyRing, KeyringSecretStore, SettingsFile } from '../core/secrets';
import type { Settings } from '../shared/contract';
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

/** `LOUPE_RATE_LIMIT` = `<count>/<seconds>s` (e.g. `60/60s`), `LOUPE_MAX_IN_FLIGHT` = n. */
export function limitsFromEnv(env: NodeJS.ProcessEnv, s: Settings): { requests: number; windowSeconds: number; maxInFlight: number } {
  let requests = s.rateLimit.requests;
  let windowSeconds = s.rateLimit.windowSeconds;
  let maxInFlight = s.maxInFlight;
  if (env.LOUPE_RATE_LIMIT) {
    const m = /^\s*(\d+)\s*\/\s*(\d+)\s*s?\s*$/.exec(env.LOUPE_RATE_LIMIT);
    if (!m) throw new UsageError(`LOUPE_RATE_LIMIT must look like 60/60s (requests/seconds), not "${env.LOUPE_RATE_LIMIT}".`);
    requests = Number(m[1]);
    windowSeconds = Number(m[2]);
    if (requests < 1 || windowSeconds < 1) throw new UsageError('LOUPE_RATE_LIMIT needs at least 1 request per at least 1 second.');
  }
  if (env.LOUPE_MAX_IN_FLIGHT) {
    const n = Number(env.LOUPE_MAX_IN_FLIGHT);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`LOUPE_MAX_IN_FLIGHT must be a whole number ≥ 1, not "${env.LOUPE_MAX_IN_FLIGHT}".`);
    maxInFlight = n;
  }
  return { requests, windowSeconds, maxInFlight };
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
  const dataDir = defaultDataDir(env, g.dataDir);
  const settings = new SettingsFile(settingsPath(dataDir));
  const keys = new KeyRing({ store: new KeyringSecretStore(), settings, envKey: env.LOUPE_API_KEY ?? null });
  let archive: Archive | null = null;
  let core: ApiCore | null = null;
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
      const s = settings.read().app;
      const limits = limitsFromEnv(env, s);
      const configured =
        g.baseUrl !== undefined
          ? checkBaseUrl(g.baseUrl, '--base-url')
          : env.LOUPE_BASE_URL !== undefined && env.LOUPE_BASE_URL !== ''
            ? checkBaseUrl(env.LOUPE_BASE_URL, 'LOUPE_BASE_URL')
            : s.baseUrl
              ? checkBaseUrl(s.baseUrl, `The base URL in ${settingsPath(dataDir)}`)
              : null;
      // the archive first: a folder that cannot be written stops a writing command here, before
      // the sandbox starts or anything is sent
      const store = mode === 'read' ? readingStore(ctx.archive()) : ctx.archive();
      let baseUrl: string;
      let keySource: Pick<Parameters<typeof createApiCore>[0], 'getKey' | 'getKeys'>;
      if (configured) {
        baseUrl = configured;
        // the pool: LOUPE_API_KEY (one key or several, comma-separated), else every stored key
        keySource = { getKeys: () => keys.poolKeys() };
      } else {
        const sb = await startSandbox({ port: 0 });
        stopSandbox = () => sb.close();
        baseUrl = sb.url;
        keySource = { getKey: () => sb.key };
        ctx.sandbox = true;
        log('No base URL set (--base-url or LOUPE_BASE_URL): using the in-process sandbox — synthetic data.');
      }
      core = createApiCore({
        baseUrl,
        ...keySource,
        // every Loupe process using this data folder paces each key together (no self-caused 429)
        paceFile: join(dataDir, 'pacing.db'),
        store,
        limits,
        // in a read-only folder the cache is read; writing it fails quietly (it is a cache)
        catalogueFile: ctx.sandbox ? undefined : join(dataDir, 'catalogue.json'),
        userAgent: 'Loupe-CLI/0.1.0',
      });
      // e.g. "The API key does not look like a service key…", shown before the first call
      core.events.on('warning', (w) => log(`Warning: ${w.message}`));
      core.events.on('key-refused', (r) => {
        try {
          keys.markRefused(r.name, r.type);
        } catch {
          /* read-only settings: out of this process's pool all the same */
        }
      });
      return core;
    },
    async close() {
      if (core) await core.close().catch(() => {});
      if (stopSandbox) await stopSandbox().catch(() => {});
      archive?.close();
    },
  };
  return ctx;
}
