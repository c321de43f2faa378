/**
 * startHost: the web door in one call — brings the data folder's archive up to date (migrations due
 * run in a worker thread, reported through onArchiveProgress), composes the app (src/core/app.ts) for a data folder,
 * starts the built-in sandbox when no key and no base URL are configured (src/core/compose.ts), and serves the built
 * renderer plus the contract on 127.0.0.1 (src/host/server.ts, docs/doors.md).
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CreateAppOptions } from '../core/app';
import type { OnMigrationProgress } from '../core/archive/prepare';
import { composeApp, pickSecretStoreOnUse, prepareDoor } from '../core/compose';
import { appWatchFactory } from '../core/watch';
import { defaultDataDir } from '../core/paths';
import type { SecretStore } from '../core/secrets';
import type { EnvironmentSettings } from '../shared/settings';
import { startSandbox, type SandboxOptions } from '../sandbox';
import { startHostServer } from './server';

export interface StartHostOptions {
  /** 0 (default) = a free port */
  port?: number;
  /** default: LOUPE_HOME, else the platform's user-data folder (src/core/paths.ts) */
  dataDir?: string;
  /** the service base URL (LOUPE_BASE_URL); null/absent → settings, then the sandbox */
  baseUrl?: string | null;
  /** LOUPE_API_KEY: wins over stored keys, never persisted */
  envKey?: string | null;
  /** default: the OS keyring (never plaintext; unavailable → keys cannot be stored) */
  secrets?: SecretStore;
  /** the renderer build; default <repo>/out/renderer */
  staticDir?: string;
  /** what the environment sets (src/shared/settings.ts: pacing, the sandbox's seed); default: nothing */
  environment?: EnvironmentSettings;
  /** options of the in-process sandbox, when it is used (seed, balance, timeScale…); win over the environment's seed */
  sandbox?: Partial<SandboxOptions>;
  /** fixed token (tests); default 32 random bytes */
  token?: string;
  clock?: CreateAppOptions['clock'];
  watch?: CreateAppOptions['watch'];
  /** hears the archive's migrations when an older archive is brought up to date at start (a worker thread) */
  onArchiveProgress?: OnMigrationProgress;
}

export type SandboxHandle = Awaited<ReturnType<typeof startSandbox>>;

export interface Host {
  /** the page URL with the session token: http://127.0.0.1:<port>/?token=… */
  url: string;
  origin: string;
  port: number;
  token: string;
  dataDir: string;
  /** the in-process sandbox when the app uses it (null until first needed, or when a service is configured) */
  sandbox(): SandboxHandle | null;
  close(): Promise<void>;
}

function repoRoot(): string {
  try {
    return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
  } catch {
    return process.cwd();
  }
}

export function defaultStaticDir(): string {
  const a = join(repoRoot(), 'out', 'renderer');
  return existsSync(a) ? a : join(process.cwd(), 'out', 'renderer');
}

export async function startHost(opts: StartHostOptions = {}): Promise<Host> {
  const dataDir = resolve(opts.dataDir ?? defaultDataDir());
  const token = opts.token ?? randomBytes(32).toString('base64url');
  // secret-store selection and the sandbox on demand: the one composition (src/core/compose.ts)
  // the OS keyring, probed in the background rather than before serving (~0.5 s on a loaded Linux
  // machine without a keychain: issue 30's "serving < 1 s after start"); the same store and
  // sentence pickSecretStore gives once the probe is in
  const secrets = opts.secrets ?? pickSecretStoreOnUse();
  void secrets.available();
  // an archive written by an older Loupe is migrated first, in a worker thread (src/core/archive/prepare.ts)
  await prepareDoor({ dataDir }, { onProgress: opts.onArchiveProgress });
  const composed = composeApp({
    setup: { dataDir, baseUrl: opts.baseUrl ?? null, envKey: opts.envKey ?? null, env: opts.environment ?? { sandboxSeed: 1 } },
    startSandbox: (o) => startSandbox({ ...o, ...opts.sandbox }),
    secrets,
    door: 'web',
    clock: opts.clock,
    watch: opts.watch ?? appWatchFactory(),
    downloadUrl: (exportId) => `/api/exports/${encodeURIComponent(exportId)}?token=${encodeURIComponent(token)}`,
  });
  const app = composed.app;
  let server;
  try {
    await app.ready;
    server = await startHostServer({
      app,
      token,
      port: opts.port ?? 0,
      staticDir: opts.staticDir ?? defaultStaticDir(),
      exportsDir: join(dataDir, 'exports'),
    });
  } catch (e) {
    await composed.close().catch(() => {});
    throw e;
  }
  const srv = server;
  return {
    url: `${srv.origin}/?token=${token}`,
    origin: srv.origin,
    port: srv.port,
    token,
    dataDir,
    sandbox: () => composed.sandbox(),
    async close() {
      await srv.close();
      await composed.close();
    },
  };
}
