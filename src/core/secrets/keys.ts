/**
 * Several named API keys, one active (spec "Authentication": up to 25 keys per account, names up to
 * 64 characters; all keys draw on one balance, rate limits count per key).
 *
 * - The values live in a SecretStore (OS keychain, Electron safeStorage, or memory in tests).
 * - Names, which one is active, when each was added and whether it looked like a service key live
 *   in settings.json. Never the key.
 * - `LOUPE_API_KEY` in the environment wins over every stored key while it is set and is never
 *   written anywhere; it shows in the list as a pseudo-entry named `LOUPE_API_KEY (environment)`.
 * - Values read or added in this process are cached in memory so a walk does not hit the keychain
 *   on every page; `secrets()` exposes them to the error redactor only.
 */
import { KEY_PATTERN } from '../../shared/api-types';
import type { KeyInfo } from '../../shared/contract';
import type { KeyMeta, SettingsFile } from './settings-file';
import { SecretError, type SecretStore } from './types';

export const MAX_KEYS = 25;
export const MAX_KEY_NAME = 64;
export const ENV_KEY_NAME = 'LOUPE_API_KEY (environment)';

export function keyMode(key: string): 'live' | 'test' | 'unknown' {
  const m = KEY_PATTERN.exec(key);
  return m ? (m[1] as 'live' | 'test') : 'unknown';
}

export interface KeyRingOptions {
  store: SecretStore;
  settings: SettingsFile;
  /** the value of LOUPE_API_KEY, if set (empty string counts as unset) */
  envKey?: string | null;
  now?: () => number;
}

export class KeyRing {
  readonly store: SecretStore;
  private readonly settings: SettingsFile;
  private readonly envKey: string | null;
  private readonly now: () => number;
  private readonly cache = new Map<string, string>();

  constructor(opts: KeyRingOptions) {
    this.store = opts.store;
    this.settings = opts.settings;
    this.envKey = opts.envKey && opts.envKey.trim() ? opts.envKey.trim() : null;
    this.now = opts.now ?? Date.now;
  }

  /** true when LOUPE_API_KEY is set (it wins over stored keys) */
  get fromEnv(): boolean {
    return this.envKey !== null;
  }

  /** 'env' when LOUPE_API_KEY wins, else the store's backend name */
  backend(): string {
    return this.envKey ? 'env' : this.store.backend;
  }

  list(): KeyInfo[] {
    const d = this.settings.read();
    const out: KeyInfo[] = [];
    if (this.envKey) {
      out.push({ name: ENV_KEY_NAME, active: true, addedAt: 0, looksValid: KEY_PATTERN.test(this.envKey), mode: keyMode(this.envKey) });
    }
    for (const k of d.keys) {
      out.push({ name: k.name, active: !this.envKey && d.activeKey === k.name, addedAt: k.addedAt, looksValid: k.looksValid, mode: k.mode });
    }
    return out;
  }

  activeName(): string | null {
    if (this.envKey) return ENV_KEY_NAME;
    return this.settings.read().activeKey;
  }

  hasKey(): boolean {
    return this.activeName() !== null;
  }

  /** The active key's value, or null. Only the request core may call this. */
  async activeKey(): Promise<string | null> {
    if (this.envKey) return this.envKey;
    const name = this.settings.read().activeKey;
    if (!name) return null;
    const cached = this.cache.get(name);
    if (cached) return cached;
    const v = await this.store.get(name);
    if (v) this.cache.set(name, v);
    return v;
  }

  /** Stores a key. Never returns or logs it. */
  async add(name: string, key: string, activate = true): Promise<{ name: string; warning: string | null }> {
    const n = name.trim();
    const v = key.trim();
    if (!n) throw new SecretError('validation', 'A key needs a name.');
    if (n.length > MAX_KEY_NAME) throw new SecretError('validation', `A key name is at most ${MAX_KEY_NAME} characters.`);
    if (n === ENV_KEY_NAME) throw new SecretError('validation', `"${ENV_KEY_NAME}" is reserved for the environment variable.`);
    if (!v) throw new SecretError('validation', 'The key is empty.');
    if (/\s/.test(v)) throw new SecretError('validation', 'The key contains spaces or line breaks; paste the key alone.');
    const before = this.settings.read();
    const replacing = before.keys.some((k) => k.name === n);
    if (!replacing && before.keys.length >= MAX_KEYS)
      throw new SecretError('validation', `At most ${MAX_KEYS} keys can be stored (the service allows 25 per account); remove one first.`);

    const avail = await this.store.available();
    if (!avail.ok) throw new SecretError('secrets_unavailable', avail.message ?? 'No secure key storage is available.');
    await this.store.set(n, v); // value first: metadata never points at a key that was not saved
    this.cache.set(n, v);

    const looksValid = KEY_PATTERN.test(v);
    const meta: KeyMeta = { name: n, addedAt: this.now(), looksValid, mode: keyMode(v) };
    this.settings.update((d) => {
      d.keys = d.keys.filter((k) => k.name !== n);
      d.keys.push(meta);
      if (activate || !d.activeKey) d.activeKey = n;
    });

    const warnings: string[] = [];
    if (!looksValid)
      warnings.push('This does not look like a service key (<prefix>_live_ or <prefix>_test_ followed by 43 characters); it was saved anyway.');
    if (replacing) warnings.push(`The key previously named "${n}" was replaced.`);
    if (this.envKey) warnings.push('LOUPE_API_KEY is set in the environment and is used instead while it is set.');
    return { name: n, warning: warnings.length ? warnings.join(' ') : null };
  }

  use(name: string): KeyInfo[] {
    if (name === ENV_KEY_NAME && this.envKey) return this.list();
    const d = this.settings.read();
    if (!d.keys.some((k) => k.name === name)) throw new SecretError('not_found', `No key named "${name}".`);
    this.settings.update((s) => {
      s.activeKey = name;
    });
    return this.list();
  }

  async remove(name: string): Promise<KeyInfo[]> {
    if (name === ENV_KEY_NAME && this.envKey)
      throw new SecretError('validation', 'The environment key is not stored by Loupe; unset LOUPE_API_KEY to stop using it.');
    const d = this.settings.read();
    if (!d.keys.some((k) => k.name === name)) throw new SecretError('not_found', `No key named "${name}".`);
    await this.store.delete(name);
    this.cache.delete(name);
    this.settings.update((s) => {
      s.keys = s.keys.filter((k) => k.name !== name);
      if (s.activeKey === name) {
        // the most recently added remaining key takes over (all keys share one balance)
        const next = [...s.keys].sort((a, b) => b.addedAt - a.addedAt)[0];
        s.activeKey = next ? next.name : null;
      }
    });
    return this.list();
  }

  /** Every key value this process has seen: for redacting error text, nothing else. */
  secrets(): string[] {
    const out = [...this.cache.values()];
    if (this.envKey) out.push(this.envKey);
    return out;
  }
}
