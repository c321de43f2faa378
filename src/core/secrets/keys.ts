/**
 * Several named API keys, one active (spec "Authentication": up to 25 keys per account, names up to
 * 64 characters; all keys draw on one balance, rate limits count per key).
 *
 * - The values live in a SecretStore (OS keychain, Electron safeStorage, or memory in tests).
 * - Names, which one is active, when each was added and whether it looked like a service key live
 *   in settings.json. Never the key.
 * - Every stored key is in the pool the request core spreads work over (issue 15), except keys
 *   marked retiring (rotation: no new work while another key can take it) and keys the service
 *   refused (INVALID_API_KEY / API_KEY_REVOKED), which stay out until replaced.
 * - `LOUPE_API_KEY` in the environment (one key, or several separated by commas) wins over every
 *   stored key while it is set and is never written anywhere; it shows in the list as
 *   `LOUPE_API_KEY (environment)`, or `LOUPE_API_KEY #1`, `#2`, … for several.
 * - Values read or added in this process are cached in memory so a walk does not hit the keychain
 *   on every page; `secrets()` exposes them to the error redactor only.
 */
import { KEY_PATTERN } from '../../shared/api-types';
import type { KeyInfo } from '../../shared/contract';
import type { PoolKey } from '../api';
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
  private readonly envKeys: string[];
  private readonly now: () => number;
  private readonly cache = new Map<string, string>();

  constructor(opts: KeyRingOptions) {
    this.store = opts.store;
    this.settings = opts.settings;
    this.envKeys = [
      ...new Set(
        (opts.envKey ?? '')
          .split(',')
          .map((k) => k.trim())
          .filter((k) => k.length > 0),
      ),
    ];
    this.envKey = this.envKeys[0] ?? null;
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

  /** the names LOUPE_API_KEY's keys go by (in the list and the ledger) */
  private envName(i: number): string {
    return this.envKeys.length === 1 ? ENV_KEY_NAME : `LOUPE_API_KEY #${i + 1}`;
  }

  list(): KeyInfo[] {
    const d = this.settings.read();
    const out: KeyInfo[] = [];
    this.envKeys.forEach((k, i) => {
      out.push({
        name: this.envName(i),
        active: true,
        addedAt: 0,
        looksValid: KEY_PATTERN.test(k),
        mode: keyMode(k),
        retiring: false,
        refused: null,
      });
    });
    for (const k of d.keys) {
      out.push({
        name: k.name,
        active: !this.envKey && !k.retiring && !k.refused,
        addedAt: k.addedAt,
        looksValid: k.looksValid,
        mode: k.mode,
        retiring: k.retiring === true,
        refused: k.refused ? k.refused.type : null,
      });
    }
    return out;
  }

  /** the key named first for display: the environment's, else the preferred stored key in the pool */
  activeName(): string | null {
    if (this.envKey) return this.envName(0);
    const d = this.settings.read();
    const usable = d.keys.filter((k) => !k.refused);
    const pick = usable.find((k) => k.name === d.activeKey && !k.retiring) ?? usable.find((k) => !k.retiring) ?? usable[0];
    return pick ? pick.name : null;
  }

  /** how many keys the pool has now (the environment's, else the stored keys the service did not refuse) */
  poolSize(): number {
    if (this.envKey) return this.envKeys.length;
    return this.settings.read().keys.filter((k) => !k.refused).length;
  }

  hasKey(): boolean {
    return this.activeName() !== null;
  }

  private async value(name: string): Promise<string | null> {
    const cached = this.cache.get(name);
    if (cached) return cached;
    const v = await this.store.get(name);
    if (v) this.cache.set(name, v);
    return v;
  }

  /** The first key's value, or null. Only the request core may call this. */
  async activeKey(): Promise<string | null> {
    if (this.envKey) return this.envKey;
    const name = this.activeName();
    return name ? this.value(name) : null;
  }

  /**
   * The pool for the request core: the environment's keys while LOUPE_API_KEY is set, else every
   * stored key the service has not refused (retiring ones flagged). Only the request core may call this.
   */
  async poolKeys(): Promise<PoolKey[]> {
    if (this.envKey) return this.envKeys.map((key, i) => ({ name: this.envName(i), key }));
    const out: PoolKey[] = [];
    for (const k of this.settings.read().keys) {
      if (k.refused) continue;
      const v = await this.value(k.name);
      if (v) out.push({ name: k.name, key: v, ...(k.retiring ? { retiring: true } : {}) });
    }
    return out;
  }

  /** Rotation: a retiring key gets no new work while another key can take it (`false` puts it back). */
  retire(name: string, retiring = true): KeyInfo[] {
    if (this.envKey && this.envKeys.some((_, i) => this.envName(i) === name))
      throw new SecretError('validation', 'Keys from LOUPE_API_KEY are not stored by Loupe; change the environment variable instead.');
    const d = this.settings.read();
    if (!d.keys.some((k) => k.name === name)) throw new SecretError('not_found', `No key named "${name}".`);
    this.settings.update((s) => {
      for (const k of s.keys) if (k.name === name) k.retiring = retiring || undefined;
    });
    return this.list();
  }

  /** The service refused a stored key: it stays out of the pool until it is replaced (added again). */
  markRefused(name: string | null, type: string): void {
    if (!name) return;
    const d = this.settings.read();
    if (!d.keys.some((k) => k.name === name)) return; // an environment key: this process only
    this.settings.update((s) => {
      for (const k of s.keys) if (k.name === name) k.refused = { type, at: this.now() };
    });
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
    // a replaced key starts clean (not refused); `activate = false` stores it retiring: out of use until `use`
    const meta: KeyMeta = { name: n, addedAt: this.now(), looksValid, mode: keyMode(v), ...(activate ? {} : { retiring: true }) };
    this.settings.update((d) => {
      d.keys = d.keys.filter((k) => k.name !== n);
      d.keys.push(meta);
      if (activate || !d.activeKey) d.activeKey = n;
    });

    const warnings: string[] = [];
    if (!looksValid)
      warnings.push(
        'This does not look like a service key (<prefix>_live_ or <prefix>_test_ followed by 43 characters); it was saved anyway.',
      );
    if (replacing) warnings.push(`The key previously named "${n}" was replaced.`);
    if (this.envKey) warnings.push('LOUPE_API_KEY is set in the environment and is used instead while it is set.');
    return { name: n, warning: warnings.length ? warnings.join(' ') : null };
  }

  /** Puts a key (back) into use: not retiring, and named first. */
  use(name: string): KeyInfo[] {
    if (this.envKey && this.envKeys.some((_, i) => this.envName(i) === name)) return this.list();
    const d = this.settings.read();
    if (!d.keys.some((k) => k.name === name)) throw new SecretError('not_found', `No key named "${name}".`);
    this.settings.update((s) => {
      s.activeKey = name;
      for (const k of s.keys) if (k.name === name) delete k.retiring;
    });
    return this.list();
  }

  async remove(name: string): Promise<KeyInfo[]> {
    if (this.envKey && this.envKeys.some((_, i) => this.envName(i) === name))
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
    out.push(...this.envKeys);
    return out;
  }
}
