/**
 * What every `loupe` command shares: the data folder, settings, keys, the archive, and the
 * request core pointed at the right service (a configured base URL, else an in-process sandbox).
 */
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { createApiCore, type ApiCore } from '../core/api';
import { openArchive, type Archive } from '../core/archive';
import { archivePath, defaultDataDir, settingsPath } from '../core/paths';
import { KeyRing, KeyringSecretStore, SettingsFile } from '../core/secrets';
import type { Settings } from '../shared/contract';
import { startSandbox } from '../sandbox';

export class UsageError extends Error {
  readonly exitCode = 2;
}

export interface GlobalOptions {
  baseUrl?: string;
  dataDir?: string;
}

export interface CliContext {
  dataDir: string;
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

export function createContext(g: GlobalOptions, env: NodeJS.ProcessEnv = process.env, log: (s: string) => void = () => {}): CliContext {
  const dataDir = defaultDataDir(env, g.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const settings = new SettingsFile(settingsPath(dataDir));
  const keys = new KeyRing({ store: new KeyringSecretStore(), settings, envKey: env.LOUPE_API_KEY ?? null });
  let archive: Archive | null = null;
  let core: ApiCore | null = null;
  let stopSandbox: (() => Promise<void>) | null = null;
  const ctx: CliContext = {
    dataDir,
    settings,
    keys,
    sandbox: false,
    archive() {
      archive ??= openArchive(archivePath(dataDir));
      return archive;
    },
    async api() {
      if (core) return core;
      const s = settings.read().app;
      const limits = limitsFromEnv(env, s);
      const configured = g.baseUrl ?? env.LOUPE_BASE_URL ?? s.baseUrl ?? null;
      let baseUrl: string;
      let getKey: () => string | null | Promise<string | null>;
      if (configured) {
        baseUrl = configured;
        getKey = () => keys.activeKey();
      } else {
        const sb = await startSandbox({ port: 0 });
        stopSandbox = () => sb.close();
        baseUrl = sb.url;
        getKey = () => sb.key;
        ctx.sandbox = true;
        log('No base URL set (--base-url or LOUPE_BASE_URL): using the in-process sandbox — synthetic data.');
      }
      core = createApiCore({
        baseUrl,
        getKey,
        store: ctx.archive(),
        limits,
        catalogueFile: ctx.sandbox ? undefined : join(dataDir, 'catalogue.json'),
        userAgent: 'Loupe-CLI/0.1.0',
      });
      // e.g. "The API key does not look like a service key…", shown before the first call
      core.events.on('warning', (w) => log(`Warning: ${w.message}`));
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
