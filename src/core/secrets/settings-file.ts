/**
 * The non-secret settings file (`<dataDir>/settings.json`, see src/core/paths.ts): key names and
 * which one is active, pacing, budgets, theme. Never a key: the values live in a SecretStore.
 *
 * Every read goes to disk (the desktop app, the web host and the CLI may share one data folder),
 * every write is atomic (temp file + rename, mode 0600). A file that is not valid JSON is moved
 * aside to `settings.json.corrupt-<time>` on the next write and defaults are used meanwhile.
 *
 * Format (version 1):
 *   { "version": 1,
 *     "keys": [{ "name", "addedAt", "looksValid", "mode", "retiring"?, "refused"? }],
 *     "activeKey": "name" | null,
 *     "app": { "baseUrl", "rateLimit": { "requests", "windowSeconds" }, "maxInFlight", "askAboveCredits", "theme" } }
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Settings } from '../../shared/contract';
import { alertEmailSchema } from '../../shared/alert-email';
import { settingBounds, storedDefaults, REMOTE_IMAGES, THEMES, type RemoteImages, type Theme } from '../../shared/settings';

export interface KeyMeta {
  name: string;
  addedAt: number;
  looksValid: boolean;
  mode: 'live' | 'test' | 'unknown';
  /** rotation: no new work goes to it while another key can take it */
  retiring?: boolean;
  /** the service refused it (INVALID_API_KEY / API_KEY_REVOKED): out of the pool until replaced */
  refused?: { type: string; at: number } | null;
}

export interface SettingsData {
  version: 1;
  keys: KeyMeta[];
  activeKey: string | null;
  app: Settings;
}

/**
 * Defaults. Pacing sits just under the service limits (spec "Limits": 60 requests in a sliding
 * 60 s and 10 in flight per key) so Loupe's own pacer, not a 429, is what normally holds a walk back.
 */
export const DEFAULT_SETTINGS: Settings = storedDefaults(); // the settings table (src/shared/settings.ts)

function defaults(): SettingsData {
  return { version: 1, keys: [], activeKey: null, app: structuredClone(DEFAULT_SETTINGS) };
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Accepts whatever is on disk and keeps only well-formed parts (a hand-edited file never crashes the app). */
function normalise(raw: unknown): SettingsData {
  const d = defaults();
  if (!isObj(raw)) return d;
  if (Array.isArray(raw.keys)) {
    const seen = new Set<string>();
    for (const k of raw.keys) {
      if (!isObj(k) || typeof k.name !== 'string' || !k.name || seen.has(k.name)) continue;
      seen.add(k.name);
      d.keys.push({
        name: k.name,
        addedAt: typeof k.addedAt === 'number' ? k.addedAt : 0,
        looksValid: k.looksValid === true,
        mode: k.mode === 'live' || k.mode === 'test' ? k.mode : 'unknown',
        ...(k.retiring === true ? { retiring: true } : {}),
        ...(isObj(k.refused) && typeof k.refused.type === 'string' && typeof k.refused.at === 'number'
          ? { refused: { type: k.refused.type, at: k.refused.at } }
          : {}),
      });
    }
  }
  if (typeof raw.activeKey === 'string' && d.keys.some((k) => k.name === raw.activeKey)) d.activeKey = raw.activeKey;
  const a = isObj(raw.app) ? raw.app : {};
  if (a.baseUrl === null || (typeof a.baseUrl === 'string' && /^https?:\/\//.test(a.baseUrl))) d.app.baseUrl = a.baseUrl as string | null;
  if (isObj(a.rateLimit) && typeof a.rateLimit.requests === 'number' && typeof a.rateLimit.windowSeconds === 'number')
    d.app.rateLimit = { requests: a.rateLimit.requests, windowSeconds: a.rateLimit.windowSeconds };
  if (typeof a.maxInFlight === 'number') d.app.maxInFlight = a.maxInFlight;
  if (typeof a.askAboveCredits === 'number') d.app.askAboveCredits = a.askAboveCredits;
  if (typeof a.maxWaitSeconds === 'number' && a.maxWaitSeconds >= (settingBounds('maxWaitSeconds').min ?? 1))
    d.app.maxWaitSeconds = a.maxWaitSeconds;
  if (typeof a.attemptTimeoutSeconds === 'number' && a.attemptTimeoutSeconds >= (settingBounds('attemptTimeoutSeconds').min ?? 5))
    d.app.attemptTimeoutSeconds = a.attemptTimeoutSeconds;
  if (THEMES.includes(a.theme as Theme)) d.app.theme = a.theme as Theme;
  if (REMOTE_IMAGES.includes(a.remoteImages as RemoteImages)) d.app.remoteImages = a.remoteImages as RemoteImages;
  if (a.alertWebhookUrl === null || (typeof a.alertWebhookUrl === 'string' && /^https?:\/\//i.test(a.alertWebhookUrl)))
    d.app.alertWebhookUrl = a.alertWebhookUrl as string | null;
  // the SMTP settings only when whole and valid (a hand-edited file never half-configures e-mail)
  if (a.alertEmail === null) d.app.alertEmail = null;
  else if (a.alertEmail !== undefined) {
    const e = alertEmailSchema.safeParse(a.alertEmail);
    if (e.success) d.app.alertEmail = e.data;
  }
  if (typeof a.authorName === 'string' && a.authorName.trim())
    d.app.authorName = a.authorName.trim().slice(0, settingBounds('authorName').max ?? 120);
  return d;
}

export class SettingsFile {
  constructor(readonly path: string) {}

  private load(): { data: SettingsData; corrupt: boolean } {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch {
      return { data: defaults(), corrupt: false };
    }
    try {
      return { data: normalise(JSON.parse(text)), corrupt: false };
    } catch {
      return { data: defaults(), corrupt: true };
    }
  }

  read(): SettingsData {
    return this.load().data;
  }

  /** Read-modify-write in one step. `fn` mutates the data it is given. */
  update(fn: (d: SettingsData) => void): SettingsData {
    const { data, corrupt } = this.load();
    fn(data);
    mkdirSync(dirname(this.path), { recursive: true });
    if (corrupt) {
      try {
        renameSync(this.path, `${this.path}.corrupt-${Date.now()}`);
      } catch {}
    }
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(data, null, 2) + '\n', { mode: 0o600 });
    renameSync(tmp, this.path);
    return data;
  }
}
