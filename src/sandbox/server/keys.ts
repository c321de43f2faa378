/**
 * Accounts and API keys (spec "Authentication"). Only SHA-256 hashes of keys are stored.
 * Key format: `<prefix>_live_` or `<prefix>_test_` + 43 URL-safe chars (32 random bytes, base64url).
 */
import { createHash, randomBytes } from 'node:crypto';

export const MAX_KEYS_PER_ACCOUNT = 25;
export const MAX_KEY_NAME = 64;

export interface Account {
  id: string;
  balance: number;
  freeCallsRemaining: number;
  /** Credits charged since period start. */
  usedPeriod: number;
  periodStart: number;
  plan: string;
}

export interface KeyRecord {
  hash: string;
  account: string;
  name: string;
  revoked: boolean;
  createdAt: number;
}

export type AuthResult =
  | { ok: true; key: KeyRecord; account: Account }
  | { ok: false; type: 'MISSING_API_KEY' | 'INVALID_API_KEY' | 'API_KEY_REVOKED'; message: string };

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export class KeyStore {
  readonly accounts = new Map<string, Account>();
  private readonly keys = new Map<string, KeyRecord>();
  private readonly pattern: RegExp;
  private accountSeq = 0;

  constructor(
    readonly prefix: string,
    private readonly now: () => number,
  ) {
    if (!/^[a-z][a-z0-9]*$/.test(prefix)) throw new Error('keyPrefix must be lowercase letters/digits');
    this.pattern = new RegExp(`^${prefix}_(live|test)_[A-Za-z0-9_-]{43}$`);
  }

  createAccount(opts: { balance?: number; freeCalls?: number; plan?: string } = {}): Account {
    const id = `acct_${++this.accountSeq}`;
    const a: Account = {
      id,
      balance: opts.balance ?? 10_000,
      freeCallsRemaining: opts.freeCalls ?? 10,
      usedPeriod: 0,
      periodStart: this.now(),
      plan: opts.plan ?? 'paid',
    };
    this.accounts.set(id, a);
    return a;
  }

  /** Returns the plaintext key (shown once). Throws when the account has 25 active keys or the name is bad. */
  createKey(accountId: string, name = 'key', mode: 'live' | 'test' = 'live'): string {
    if (!this.accounts.has(accountId)) throw new Error(`unknown account ${accountId}`);
    if (!name || name.length > MAX_KEY_NAME) throw new Error('key name is required, at most 64 characters');
    const active = [...this.keys.values()].filter((k) => k.account === accountId && !k.revoked).length;
    if (active >= MAX_KEYS_PER_ACCOUNT) throw new Error('An account can hold at most 25 keys.');
    const key = `${this.prefix}_${mode}_${randomBytes(32).toString('base64url')}`;
    this.keys.set(hashKey(key), { hash: hashKey(key), account: accountId, name, revoked: false, createdAt: this.now() });
    return key;
  }

  revoke(key: string): boolean {
    const rec = this.keys.get(hashKey(key));
    if (!rec) return false;
    rec.revoked = true;
    return true;
  }

  get keyCount(): number {
    return this.keys.size;
  }

  authenticate(header: string | undefined): AuthResult {
    if (header === undefined || header.trim() === '')
      return { ok: false, type: 'MISSING_API_KEY', message: 'No API key was sent. Send your key in the x-api-key header.' };
    const key = header.trim();
    if (!this.pattern.test(key)) return { ok: false, type: 'INVALID_API_KEY', message: 'The x-api-key value is not a valid API key.' };
    const rec = this.keys.get(hashKey(key));
    if (!rec) return { ok: false, type: 'INVALID_API_KEY', message: 'The API key does not match any key.' };
    if (rec.revoked) return { ok: false, type: 'API_KEY_REVOKED', message: 'This API key has been revoked.' };
    const account = this.accounts.get(rec.account);
    if (!account) return { ok: false, type: 'INVALID_API_KEY', message: 'The API key does not match any key.' };
    return { ok: true, key: rec, account };
  }
}
