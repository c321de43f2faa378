/**
 * What every `loupe` command shares: one composed app — the same createApp/composeApp as the
 * desktop app and the web host (src/core/compose.ts, docs/doors.md) — over the data folder, with
 * its archive, keys, settings, watchlist service and request core, pointed at the right service (a
 * configured base URL, else the in-process sandbox: the CLI's rule, even with a key). Commands
 * call the contract's methods (`call`), the local doors' (`local`: an export to a path) and the
 * archive file's maintenance (`maintain`).
 *
 * Commands that only read (walks, export, columns, endpoints, credits, watch list/history,
 * archive check) run in 'read' mode: the archive is opened so that nothing in the data folder is
 * written when it is read-only (createApp's archiveMode, src/core/archive/open.ts). Every other
 * command runs in 'write' mode: a data folder or archive that cannot be written stops it with a
 * StorageError (exit 6) before anything is sent to the service.
 */
import type { ArchiveMode, Composed, DoorSetup } from '../core/compose';
import type { LoupeApp } from '../core/app';
import { archivePath, defaultDataDir, settingsPath } from '../core/paths';
import type { LoupeEvent, LoupeImpl, MethodInput, MethodName, MethodParsedInput, Settings, Unsubscribe } from '../shared/contract';
import type { LocalDoor, LocalInput, LocalName, LocalOutput } from '../shared/contract-local';
import type { MaintenanceEvent, MaintenanceInput, MaintenanceName, MaintenanceOutput } from '../shared/contract-maintenance';
import { envValue, numberDefault, pacingLimits, readEnvironment, SettingValueError, type EnvironmentSettings } from '../shared/settings';
import { LoupeError } from '../shared/errors';
import type { SandboxHandle } from '../sandbox';

type Runtime = typeof import('./context-runtime');
let runtime: Runtime | null = null;

/**
 * Loads the context's heavy half (./context-runtime.ts: the core, the sandbox, the schemas). A
 * command's preAction awaits it; `--help` and `--version` never do, so they start at once.
 */
export async function loadRuntime(): Promise<Runtime> {
  return (runtime ??= await import('./context-runtime'));
}

function rt(): Runtime {
  if (!runtime) throw new Error('The command runtime was not loaded (loadRuntime) before the context was used.');
  return runtime;
}

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
  /** the contract's events of the composed app (built on first use: it opens the archive in this command's mode) */
  on(listener: (e: LoupeEvent) => void): Unsubscribe;
  /**
   * A contract method of the composed app, its input checked by the contract's schema as every
   * door checks it (defaults filled in; a misfit is a usage error, exit 2); its failures are
   * thrown as they are (the exit code comes from their kind).
   */
  call<K extends MethodName>(method: K, input: MethodInput<K>): ReturnType<LoupeImpl[K]>;
  /**
   * A local door's method of the composed app (src/shared/contract-local.ts: what names a path on
   * this machine, never on the web door), its input checked by its schema (a misfit: exit 2).
   */
  local<K extends LocalName>(method: K, input: LocalInput<K>, door?: LocalDoor): Promise<LocalOutput<K>>;
  /**
   * A maintenance method over the archive file as it is (src/shared/contract-maintenance.ts: check,
   * recover, copy), where no app is composed; its input checked by its schema (a misfit: exit 2).
   */
  maintain<K extends MaintenanceName>(
    method: K,
    input: MaintenanceInput<K>,
    door?: { onEvent?: (e: MaintenanceEvent) => void; signal?: AbortSignal },
  ): Promise<MaintenanceOutput<K>>;
  /**
   * connects the app to its service: checks the environment and the base URL first (a usage
   * error, exit 2), starts the in-process sandbox when no base URL is configured. Call it before a
   * contract method that reaches the service, so a bad base URL is refused before anything is sent.
   * Every command that sends requests goes through it: it also reads a sandbox's own clock (a
   * loopback sandbox moved ahead), so the first answers are dated on the service's clock.
   */
  api(): Promise<void>;
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
 * The composition's setup (doorSetup) for this command line. An environment value that does not
 * fit the settings table is refused by api() (exit 2), as before; a command that never reaches
 * the service (walks, library, export…) still runs, so the setup falls back to the variables it
 * can read as they are.
 */
function cliSetup(g: GlobalOptions, env: NodeJS.ProcessEnv): DoorSetup {
  try {
    return rt().doorSetup({ dataDir: g.dataDir, baseUrl: g.baseUrl ?? null }, env);
  } catch (e) {
    if (!(e instanceof SettingValueError)) throw e;
    return {
      dataDir: defaultDataDir(env, g.dataDir),
      baseUrl: g.baseUrl ?? envValue(env, 'baseUrl') ?? null,
      envKey: envValue(env, 'apiKey') ?? null,
      env: { sandboxSeed: numberDefault('sandboxSeed') },
    };
  }
}

/** An input parsed by its schema; a misfit is a usage error (exit 2) in the schema's words. */
function usageChecked<T>(parse: () => T): T {
  try {
    return parse();
  } catch (e) {
    throw new UsageError(rt().toBridgeError(e).message);
  }
}

/** The maintenance methods over the archive file (CliContext.maintain). */
function maintainer(archiveFile: string): CliContext['maintain'] {
  return (method, input, door) => {
    const { maintenanceImpl, parseMaintenanceInput } = rt();
    return maintenanceImpl(archiveFile, door)[method](usageChecked(() => parseMaintenanceInput(method, input)));
  };
}

/**
 * The request core built, then the service's clock read: the times the answers are stored at
 * (first_seen_at, metric readings, cache windows) are on it, so a sandbox's own clock, moved or
 * scaled, is read before the first request (a no-op on a real service; docs/watchlists.md "One
 * clock"). Unreadable, the clock stays as it is and the command goes on.
 */
async function connectOn(app: LoupeApp, log: (s: string) => void): Promise<void> {
  await app.api();
  await app
    .syncClock()
    .catch((err: unknown) => log(`Warning: could not read the sandbox's clock: ${err instanceof Error ? err.message : String(err)}`));
}

export function createContext(
  g: GlobalOptions,
  env: NodeJS.ProcessEnv = process.env,
  log: (s: string) => void = () => {},
  mode: ArchiveMode = 'write',
): CliContext {
  // the data folder as every door finds it (doorSetup: --data-dir, else LOUPE_HOME, …)
  const { composeApp, pickSecretStoreOnUse, parseInput, onDemandWatchFactory } = rt();
  const setup = cliSetup(g, env);
  const dataDir = setup.dataDir;
  let composed: Composed<SandboxHandle> | null = null;
  let connected = false;
  const app = (): LoupeApp => {
    if (composed) return composed.app;
    // the same composition as the other doors: the archive in this command's mode (a folder that
    // cannot be written stops a writing command here, before the sandbox starts or anything is
    // sent), the key pool (LOUPE_API_KEY, one key or several, else every stored key) in the
    // keyring-else-none store, paced with every Loupe process using this data folder (pacing.db);
    // in a read-only folder the catalogue cache is read, writing it fails quietly (it is a cache)
    const c = composeApp({
      setup,
      startSandbox: async (o) => {
        const { startSandbox } = await import('../sandbox');
        const sb = await startSandbox(o);
        ctx.sandbox = true;
        log('No base URL set (--base-url or LOUPE_BASE_URL): using the in-process sandbox — synthetic data.');
        return sb;
      },
      secrets: pickSecretStoreOnUse(),
      door: 'cli',
      archiveMode: mode,
      sandboxWithoutBaseUrl: true,
      watch: onDemandWatchFactory(),
    });
    // e.g. "The API key does not look like a service key…", shown before the first call
    c.app.events.on((ev) => {
      if (ev.type === 'notice' && ev.level === 'warning') log(`Warning: ${ev.message}`);
    });
    if (c.app.archive.note) log(c.app.archive.note); // opened otherwise than as usual: a full disk (open.ts)
    return (composed = c).app;
  };
  const ctx: CliContext = {
    dataDir,
    archiveFile: archivePath(dataDir),
    mode,
    sandbox: false,
    on: (listener) => app().events.on(listener),
    call<K extends MethodName>(method: K, input: MethodInput<K>): ReturnType<LoupeImpl[K]> {
      const parsed: MethodParsedInput<K> = usageChecked(() => parseInput(method, input));
      const fn: LoupeImpl[K] = app().impl[method];
      return fn(parsed) as ReturnType<LoupeImpl[K]>;
    },
    local(method, input, door) {
      return app().local[method](
        usageChecked(() => rt().parseLocalInput(method, input)),
        door,
      );
    },
    maintain: maintainer(archivePath(dataDir)),
    async api() {
      if (connected) return;
      const e = environment(env);
      // the base URL is checked at once (nothing sent, nothing retried); the service link then
      // takes the flag or LOUPE_BASE_URL as the door's, else the one in Settings (settings.get,
      // settings.json as every door reads it), else the sandbox
      if (g.baseUrl !== undefined) checkBaseUrl(g.baseUrl, '--base-url');
      else if (e.baseUrl !== undefined) checkBaseUrl(e.baseUrl, 'LOUPE_BASE_URL');
      else {
        const stored = (await ctx.call('settings.get', {})).baseUrl;
        if (stored) checkBaseUrl(stored, `The base URL in ${settingsPath(dataDir)}`);
      }
      await connectOn(app(), log);
      connected = true;
    },
    async close() {
      if (composed) await composed.close().catch(() => {});
    },
  };
  return ctx;
}
