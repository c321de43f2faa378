/**
 * The settings table: every setting Loupe reads — its name, type, default, bounds, environment
 * variable, command-line flag and help — in one place. Every door reads the environment through
 * `readEnvironment` (src/core/environment.ts hands it `process.env`), so `LOUPE_RATE_LIMIT`,
 * `LOUPE_SANDBOX_SEED` and the rest mean the same in the desktop app, the web host and the CLI.
 * Stored settings (`stored: true`) live in `<dataDir>/settings.json` (src/core/secrets/settings-file.ts);
 * an environment value wins over the stored one for this process and is never written.
 *
 * Pure (no Node): the renderer may show the help text.
 */

export type SettingType = 'path' | 'url' | 'secret' | 'rate' | 'integer' | 'enum' | 'text' | 'smtp';

export interface Bounds {
  min?: number;
  max?: number;
}

export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

/** When pictures from other hosts (avatars, thumbnails) are fetched: only on a click, or at once. */
export const REMOTE_IMAGES = ['on-request', 'always'] as const;
export type RemoteImages = (typeof REMOTE_IMAGES)[number];

export interface SettingSpec {
  /** the Settings field (stored ones) or the process setting's name */
  name: string;
  type: SettingType;
  /** the default, as the user would write it (null: none) */
  default: string | number | null;
  bounds?: Bounds;
  /** a rate's window (seconds); `bounds` is then its request count */
  windowBounds?: Bounds;
  /** an enum's values */
  values?: readonly string[];
  /** the environment variable that sets it for one process */
  env?: string;
  /** the command-line flag of the CLI / web host / desktop app */
  flag?: string;
  /** kept in settings.json (changeable in the Settings view) */
  stored: boolean;
  help: string;
}

export const SETTINGS_TABLE: readonly SettingSpec[] = [
  {
    name: 'dataDir',
    type: 'path',
    default: null,
    env: 'LOUPE_HOME',
    flag: '--data-dir',
    stored: false,
    help: 'The data folder (archive, settings, exports); default: the platform’s user-data folder.',
  },
  {
    name: 'baseUrl',
    type: 'url',
    default: null,
    env: 'LOUPE_BASE_URL',
    flag: '--base-url',
    stored: true,
    help: 'The service base URL; none → the built-in sandbox until a key is set.',
  },
  {
    name: 'apiKey',
    type: 'secret',
    default: null,
    env: 'LOUPE_API_KEY',
    stored: false,
    help: 'An API key (or several, comma-separated) for this process; wins over stored keys, never written.',
  },
  {
    name: 'rateLimit',
    type: 'rate',
    default: '58/60s',
    bounds: { min: 1, max: 60 },
    windowBounds: { min: 1, max: 3600 },
    env: 'LOUPE_RATE_LIMIT',
    stored: true,
    help: 'Requests per sliding window per key, as <count>/<seconds>s; lower it when a key is shared with other tools.',
  },
  {
    name: 'maxInFlight',
    type: 'integer',
    default: 8,
    bounds: { min: 1, max: 10 },
    env: 'LOUPE_MAX_IN_FLIGHT',
    stored: true,
    help: 'Requests in flight at once per key.',
  },
  {
    name: 'askAboveCredits',
    type: 'integer',
    default: 100,
    bounds: { min: 0 },
    stored: true,
    help: 'Ask before a spend whose estimate exceeds this many credits.',
  },
  {
    name: 'maxWaitSeconds',
    type: 'integer',
    default: 300,
    bounds: { min: 1, max: 86_400 },
    stored: true,
    help: 'The longest single wait (Retry-After or a backoff) sat through; beyond it work stops, resumable.',
  },
  {
    name: 'attemptTimeoutSeconds',
    type: 'integer',
    default: 90,
    bounds: { min: 5, max: 600 },
    stored: true,
    help: 'The absolute deadline of one attempt (headers and body).',
  },
  { name: 'theme', type: 'enum', default: 'system', values: THEMES, stored: true, help: 'system, light or dark.' },
  {
    name: 'remoteImages',
    type: 'enum',
    default: 'on-request',
    values: REMOTE_IMAGES,
    stored: true,
    help: 'on-request (a picture from another host — an avatar, a thumbnail — is fetched only when you click it: the host learns nothing of what you read) or always.',
  },
  {
    name: 'authorName',
    type: 'text',
    default: null,
    bounds: { max: 120 },
    env: 'LOUPE_AUTHOR',
    stored: true,
    help: 'Your name on tags, notes, label overrides and saved sets, and in dataset bundles; default: the OS user name.',
  },
  {
    name: 'alertWebhookUrl',
    type: 'url',
    default: null,
    stored: true,
    help: 'Where a watchlist run’s alerts are also posted, as Slack-compatible JSON ({"text": …}); none: the inbox and desktop notifications only.',
  },
  {
    name: 'alertEmail',
    type: 'smtp',
    default: null,
    stored: true,
    help: 'The SMTP server a watchlist run’s alerts are also e-mailed through: host, port, security (STARTTLS, TLS, or none to localhost only), user, from, to. The password is kept in the OS keychain, never in settings.json.',
  },
  {
    name: 'sandboxSeed',
    type: 'integer',
    default: 1,
    bounds: { min: 0 },
    env: 'LOUPE_SANDBOX_SEED',
    stored: false,
    help: 'The seed of the built-in sandbox’s synthetic world (same seed, same data).',
  },
  {
    name: 'sqlite3',
    type: 'path',
    default: null,
    env: 'LOUPE_SQLITE3',
    stored: false,
    help: 'The sqlite3 program `loupe archive recover` uses; default: the one on PATH.',
  },
];

export function settingSpec(name: string): SettingSpec | undefined {
  return SETTINGS_TABLE.find((s) => s.name === name);
}

/** A setting the code names itself: its spec, or an error saying the table lacks it (a bug, not bad input). */
export function knownSetting(name: string): SettingSpec {
  const s = settingSpec(name);
  if (!s) throw new Error(`The setting "${name}" is not in SETTINGS_TABLE (src/shared/settings.ts).`);
  return s;
}

/** A numeric setting's default, checked. */
export function numberDefault(name: string): number {
  const d = knownSetting(name).default;
  if (typeof d !== 'number') throw new Error(`The setting "${name}" has no numeric default in SETTINGS_TABLE.`);
  return d;
}

/** A setting's bounds (the contract's settings schema and the settings file check values with them). */
export function settingBounds(name: string): Bounds {
  return settingSpec(name)?.bounds ?? {};
}

/** The stored settings' defaults, from the table (settings.json starts from these). */
export function storedDefaults(): {
  baseUrl: string | null;
  rateLimit: { requests: number; windowSeconds: number };
  maxInFlight: number;
  askAboveCredits: number;
  maxWaitSeconds: number;
  attemptTimeoutSeconds: number;
  theme: Theme;
  remoteImages: RemoteImages;
  authorName: string | null;
  alertWebhookUrl: string | null;
  alertEmail: null;
} {
  const d = (name: string) => knownSetting(name).default;
  return {
    baseUrl: d('baseUrl') as string | null,
    rateLimit: parseRate(d('rateLimit') as string),
    maxInFlight: d('maxInFlight') as number,
    askAboveCredits: d('askAboveCredits') as number,
    maxWaitSeconds: d('maxWaitSeconds') as number,
    attemptTimeoutSeconds: d('attemptTimeoutSeconds') as number,
    theme: d('theme') as Theme,
    remoteImages: d('remoteImages') as RemoteImages,
    authorName: d('authorName') as string | null,
    alertWebhookUrl: d('alertWebhookUrl') as string | null,
    alertEmail: null,
  };
}

/** A value in the environment that does not fit its setting; the message names the variable and the value. */
export class SettingValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingValueError';
  }
}

export type EnvLike = Readonly<Record<string, string | undefined>>;

/** What the environment sets for this process (absent: not set; the stored setting or default applies). */
export interface EnvironmentSettings {
  dataDir?: string;
  baseUrl?: string;
  apiKey?: string;
  rateLimit?: { requests: number; windowSeconds: number };
  maxInFlight?: number;
  sandboxSeed: number;
  sqlite3?: string;
  /** LOUPE_AUTHOR: the annotating person's name for this process */
  authorName?: string;
}

/** `LOUPE_RATE_LIMIT` = `<count>/<seconds>s` (e.g. `60/60s`). */
export function parseRate(value: string, where = 'LOUPE_RATE_LIMIT'): { requests: number; windowSeconds: number } {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*s?\s*$/.exec(value);
  if (!m) throw new SettingValueError(`${where} must look like 60/60s (requests/seconds), not "${value}".`);
  const requests = Number(m[1]);
  const windowSeconds = Number(m[2]);
  if (requests < 1 || windowSeconds < 1) throw new SettingValueError(`${where} needs at least 1 request per at least 1 second.`);
  return { requests, windowSeconds };
}

/** A whole number within the setting's bounds (`min` only: "≥ min"). */
function parseWhole(spec: SettingSpec, value: string): number {
  const n = Number(value);
  const min = spec.bounds?.min ?? 0;
  if (!Number.isInteger(n) || n < min) throw new SettingValueError(`${spec.env} must be a whole number ≥ ${min}, not "${value}".`);
  return n;
}

/** One setting's raw environment value by its table name, unchecked (empty counts as unset). */
export function envValue(env: EnvLike, name: string): string | undefined {
  const v = env[settingSpec(name)?.env ?? ''];
  return v === undefined || v === '' ? undefined : v;
}

/** The environment's settings, checked against the table. Empty values count as unset. */
export function readEnvironment(env: EnvLike): EnvironmentSettings {
  const get = (name: string): string | undefined => envValue(env, name);
  const out: EnvironmentSettings = { sandboxSeed: numberDefault('sandboxSeed') };
  const home = get('dataDir');
  if (home !== undefined) out.dataDir = home;
  const base = get('baseUrl');
  if (base !== undefined) out.baseUrl = base;
  const key = get('apiKey');
  if (key !== undefined) out.apiKey = key;
  const rate = get('rateLimit');
  if (rate !== undefined) out.rateLimit = parseRate(rate);
  const inFlight = get('maxInFlight');
  if (inFlight !== undefined) out.maxInFlight = parseWhole(knownSetting('maxInFlight'), inFlight);
  const seed = get('sandboxSeed');
  if (seed !== undefined) out.sandboxSeed = parseWhole(knownSetting('sandboxSeed'), seed);
  const sqlite3 = get('sqlite3');
  if (sqlite3 !== undefined) out.sqlite3 = sqlite3;
  const author = get('authorName')?.trim();
  if (author) out.authorName = author.slice(0, settingBounds('authorName').max);
  return out;
}

/** The pacing limits: the stored settings, with the environment's overrides for this process. */
export function pacingLimits(
  s: { rateLimit: { requests: number; windowSeconds: number }; maxInFlight: number },
  e: Pick<EnvironmentSettings, 'rateLimit' | 'maxInFlight'>,
): { requests: number; windowSeconds: number; maxInFlight: number } {
  const rate = e.rateLimit ?? s.rateLimit;
  return { requests: rate.requests, windowSeconds: rate.windowSeconds, maxInFlight: e.maxInFlight ?? s.maxInFlight };
}
