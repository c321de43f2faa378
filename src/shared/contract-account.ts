/**
 * The contract's account part: the app, API keys, settings, the balance and the sandbox panel.
 * Inputs as zod schemas (their types by z.infer), outputs as types. Re-exported by contract.ts.
 */
import { z } from 'zod';
import { patchOf } from './patch';
import { settingBounds, settingSpec, REMOTE_IMAGES, THEMES, type Bounds } from './settings';
import { alertEmailSchema } from './alert-email';

export const emptyInput = z.object({}).default({});

export interface AppInfo {
  version: string;
  /** true when talking to the built-in emulator (synthetic data) */
  sandbox: boolean;
  baseUrl: string;
  keySet: boolean;
  activeKeyName: string | null;
  /** where keys live: 'keyring' | 'safeStorage' | 'env' | 'memory' | 'unavailable' */
  secretBackend: string;
  /** human sentence when the OS keychain is unavailable (no plaintext fallback) */
  secretBackendMessage: string | null;
  dataDir: string;
  /** the door serving this UI (the CLI composes the same app: 'cli') */
  door: 'electron' | 'web' | 'cli';
  /** the name annotations are made under now (Settings' author name, else LOUPE_AUTHOR, else the OS user name) */
  author: string | null;
  /** the OS user name (the default author) */
  osUser: string | null;
  /**
   * The service's clock, which every time Loupe records follows (issue 27 #3): `now` on it,
   * read at `at` on this computer's clock. Relative times ("3 h ago") count from it.
   */
  serviceClock?: { now: number; at: number };
}

export interface KeyInfo {
  name: string;
  active: boolean;
  addedAt: number;
  /** false when the value did not look like a service key when added */
  looksValid: boolean;
  /** 'live' | 'test' | 'unknown' — from the key's format, never the key itself */
  mode: string;
  /** rotation: gets no new work while another key can take it */
  retiring?: boolean;
  /** the service refused it (INVALID_API_KEY / API_KEY_REVOKED): out of the pool until replaced */
  refused?: string | null;
  /** when the ledger last recorded a call made with it (ms), or null */
  lastUsedAt?: number | null;
}

const keyName = z.string().min(1).max(64);
/** the only input that ever carries a key; it goes straight to the secret store */
export const keysAddInput = z.object({ name: keyName, key: z.string().min(1).max(512), activate: z.boolean().default(true) });
export const keyNameInput = z.object({ name: keyName });
/** rotation (spec Authentication 9): a retiring key gets no new work while another key can take it */
export const keysRetireInput = z.object({ name: keyName, retiring: z.boolean().default(true) });

/** A whole number within a setting's bounds (the settings table, src/shared/settings.ts). */
function whole(b: Bounds) {
  let n = z.number().int();
  if (b.min !== undefined) n = n.min(b.min);
  if (b.max !== undefined) n = n.max(b.max);
  return n;
}

/** Every stored setting, as `settings.get` answers it; `settings.update` takes any part of it. Bounds: the settings table. */
export const settingsSchema = z.object({
  /** null → sandbox (built-in emulator) unless a key is set, then the production base URL */
  baseUrl: z.string().url().nullable(),
  rateLimit: z.object({ requests: whole(settingBounds('rateLimit')), windowSeconds: whole(settingSpec('rateLimit')?.windowBounds ?? {}) }),
  maxInFlight: whole(settingBounds('maxInFlight')),
  /** ask for confirmation when a run's estimate exceeds this many credits */
  askAboveCredits: whole(settingBounds('askAboveCredits')),
  /** the longest single wait (the service's Retry-After or a backoff) sat through; beyond it work stops, resumable */
  maxWaitSeconds: whole(settingBounds('maxWaitSeconds')),
  /** absolute deadline of one attempt (headers and body); the spec asks for a minute or more on heavy endpoints */
  attemptTimeoutSeconds: whole(settingBounds('attemptTimeoutSeconds')),
  theme: z.enum(THEMES),
  /** pictures from other hosts (avatars, thumbnails): fetched only on a click, or at once */
  remoteImages: z.enum(REMOTE_IMAGES),
  /** your name on annotations and in dataset bundles; null: the OS user name */
  authorName: z
    .string()
    .trim()
    .min(1)
    .max(settingBounds('authorName').max ?? 120)
    .nullable(),
  /** a run's alerts also posted here as Slack-compatible JSON (issue 27 #1); null: inbox and desktop only */
  alertWebhookUrl: z
    .string()
    .url()
    .refine((u) => /^https?:\/\//i.test(u), 'A webhook address starts with https:// (or http://).')
    .nullable(),
  /** a run's alerts also e-mailed through this SMTP server (issue 27 #1); its password is in the OS keychain, never here */
  alertEmail: alertEmailSchema.nullable(),
});
export type Settings = z.infer<typeof settingsSchema>;
/** any of the settings, each only when named (src/shared/patch.ts: no defaults, no unknown setting) */
export const settingsUpdateInput = patchOf(settingsSchema);

export interface BalanceInfo {
  creditsRemaining: number | null;
  freeCallsRemaining: number | null;
  at: number | null;
}

/** The in-process sandbox, as the Sandbox panel shows it (null when the app talks to a real service). */
export interface SandboxState {
  /** the emulator's address (its admin routes sit beside /v1 on it, loopback only) */
  url: string;
  /** the service's clock, ms since epoch, read at `at` (the app's clock) */
  now: number;
  at: number;
  /** sandbox seconds per real second */
  timeScale: number;
  /** the demo account's balance */
  balance: number | null;
  /** share of requests the sandbox answers with a fault (429/500/503/drop), 0 = off */
  faultRate: number;
  requests: number;
  creditsCharged: number;
}

export const sandboxAdvanceInput = z.object({
  seconds: z
    .number()
    .int()
    .min(1)
    .max(365 * 86_400),
});
export const sandboxBalanceInput = z.object({ balance: z.number().int().min(0).max(1_000_000_000) });
export const sandboxFaultsInput = z.object({ rate: z.number().min(0).max(0.9) });
