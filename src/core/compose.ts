/**
 * One composition for the three doors (Electron in src/main, the web host in src/host, the CLI in
 * src/cli): where the data folder, the service base URL, the environment's key and settings come
 * from (the settings table, src/shared/settings.ts), which secret store keeps keys, and how the
 * built-in sandbox is started on first need. Each door hands in only what is its own (Electron's
 * safeStorage, the sandbox starter — the core never imports the sandbox — its watch factory).
 * Before composing, each door awaits prepareDoor (migrations due run in a worker thread, with
 * progress).
 */
import { readEnvironment, type EnvironmentSettings, type EnvLike } from '../shared/settings';
import { createApp, type CreateAppOptions, type LoupeApp } from './app';
import { prepareArchive, type PrepareOptions, type Prepared } from './archive';

/** what a door hands composeApp and prepareDoor: the archive's mode, the migration progress printer */
export { migrationPrinter, type ArchiveMode } from './archive';
/** the watchlist service of a door that runs one command (the command line): built on first use, no scheduler */
export { onDemandWatchFactory } from './methods';
/** the archive file's maintenance where no app can be composed over it (check, recover, copy) */
export { maintenanceImpl } from './methods';
import { archivePath, defaultDataDir } from './paths';
import { KeyringSecretStore, UnavailableSecretStore, type SecretAvailability, type SecretStore } from './secrets';
import type { SandboxRef } from './service-link';

/** The flags a door was started with (they win over the environment). */
export interface DoorFlags {
  dataDir?: string;
  baseUrl?: string | null;
}

export interface DoorSetup {
  /** the flag, else LOUPE_HOME, else the platform's user-data folder (src/core/paths.ts) */
  dataDir: string;
  /** the flag, else LOUPE_BASE_URL, else null (Settings, then the sandbox) */
  baseUrl: string | null;
  /** LOUPE_API_KEY (one key or several, comma-separated), never persisted */
  envKey: string | null;
  /** everything the environment sets, checked against the settings table */
  env: EnvironmentSettings;
}

/** Reads the environment through the settings table (throws SettingValueError on a bad value). */
export function doorSetup(flags: DoorFlags = {}, env: EnvLike = process.env): DoorSetup {
  const e = readEnvironment(env);
  return {
    dataDir: defaultDataDir(env, flags.dataDir ?? e.dataDir),
    baseUrl: flags.baseUrl ?? e.baseUrl ?? null,
    envKey: e.apiKey ?? null,
    env: e,
  };
}

/**
 * Which store keeps keys, for every door: the door's preferred store when it truly encrypts
 * (Electron's safeStorage), else the OS keyring, else none — keys then cannot be stored and say
 * why (never plaintext). The CLI takes pickSecretStoreOnUse (below): the same answer, without a
 * probe at every start.
 */
export async function pickSecretStore(preferred?: { store: () => SecretStore; usable: SecretAvailability }): Promise<SecretStore> {
  if (preferred?.usable.ok) return preferred.store();
  const kr = new KeyringSecretStore();
  const ka = await kr.available();
  if (ka.ok) return kr;
  const why = `${preferred?.usable.message ?? ''} ${ka.message ?? ''}`.trim();
  return new UnavailableSecretStore(why || 'The OS keychain is not available.');
}

/**
 * pickSecretStore for a door that starts without waiting and may never need a key (the CLI): the
 * same choice, made on first use — the OS keyring, which probes the first time a key is read or
 * stored and from then on answers as none does when the probe failed (`set` refuses with the same
 * sentence pickSecretStore's UnavailableSecretStore carries; reads find nothing; never plaintext).
 */
export function pickSecretStoreOnUse(): SecretStore {
  return new KeyringSecretStore();
}

/**
 * What every door awaits before composeApp: the data folder's archive brought to the current
 * schema (src/core/archive/prepare.ts) — at once when nothing is due, else in a worker thread
 * while the door shows `onProgress` (a window, progress lines), so its event loop stays free and
 * createApp's open has nothing left to migrate. Rejects as opening the archive would have
 * (StorageError, ArchiveVersionError).
 */
export function prepareDoor(setup: Pick<DoorSetup, 'dataDir'>, opts: PrepareOptions = {}): Promise<Prepared> {
  return prepareArchive(archivePath(setup.dataDir), opts);
}

/** A sandbox the door can start (src/sandbox's startSandbox: the core never imports it). */
export type SandboxHandleLike = SandboxRef & { close(): Promise<void> };
export type StartSandbox<H extends SandboxHandleLike> = (o: { port: number; seed: number }) => Promise<H>;

/** The built-in sandbox, started once on first need with the environment's seed (LOUPE_SANDBOX_SEED). */
export function sandboxOnDemand<H extends SandboxHandleLike>(
  start: StartSandbox<H>,
  seed: number,
): { start(): Promise<H>; current(): H | null; close(): Promise<void> } {
  let handle: H | null = null;
  let starting: Promise<H> | null = null;
  return {
    start() {
      starting ??= start({ port: 0, seed }).then((h) => (handle = h));
      return starting;
    },
    current: () => handle,
    async close() {
      const h = handle ?? (starting ? await starting.catch(() => null) : null);
      if (h) await h.close();
    },
  };
}

export interface ComposeOptions<H extends SandboxHandleLike> extends Omit<
  CreateAppOptions,
  'dataDir' | 'baseUrl' | 'envKey' | 'sandbox' | 'environment'
> {
  setup: DoorSetup;
  startSandbox: StartSandbox<H>;
}

export interface Composed<H extends SandboxHandleLike> {
  app: LoupeApp;
  setup: DoorSetup;
  /** the in-process sandbox when the app uses it (null until first needed) */
  sandbox(): H | null;
  /** closes the app, then the sandbox */
  close(): Promise<void>;
}

/** The app for a door: createApp with the door's setup, the environment's pacing and the sandbox on demand. */
export function composeApp<H extends SandboxHandleLike>(o: ComposeOptions<H>): Composed<H> {
  const { setup, startSandbox, ...rest } = o;
  const sb = sandboxOnDemand(startSandbox, setup.env.sandboxSeed);
  const app = createApp({
    ...rest,
    dataDir: setup.dataDir,
    baseUrl: setup.baseUrl,
    envKey: setup.envKey,
    environment: setup.env,
    sandbox: () => sb.start(),
  });
  return {
    app,
    setup,
    sandbox: () => sb.current(),
    async close() {
      try {
        await app.close();
      } finally {
        await sb.close();
      }
    },
  };
}
