/**
 * Server-side state beside keys and limits: the shared response cache (with per-account
 * ownership), idempotency records, the "labelled for anyone" set and the billing ledger.
 */
import type { Pagination } from '../../shared/api-types';
import type { ChargeRecord } from './types';

/** A page kept for a while: what the cache and fit=goal's recall both store. */
interface StoredPage {
  storedAt: number;
  ttlMs: number;
  data: Record<string, unknown>;
  pagination?: Pagination;
  unavailable: string[];
  warnings: string[];
}

export interface CachedAnswer extends StoredPage {
  /** Accounts that paid for (or were given by a free call) this exact call. */
  owners: Set<string>;
}

export class ResponseCache {
  private readonly map = new Map<string, CachedAnswer>();
  get(key: string, now: number): CachedAnswer | null {
    const e = this.map.get(key);
    if (!e) return null;
    if (now - e.storedAt >= e.ttlMs) {
      this.map.delete(key);
      return null;
    }
    return e;
  }
  put(key: string, e: CachedAnswer): void {
    this.map.set(key, e);
  }
}

/** A full page stored for fit=goal's `data.held_back.recall_id` (re-read free, within the cache window). */
export interface RecallEntry extends StoredPage {
  platform: string;
  path: string;
  /** Accounts that received this recall id (the caller, and accounts given the answer from cache). */
  owners: Set<string>;
}

export type RecallLookup = { ok: true; entry: RecallEntry } | { ok: false; reason: 'recall_unknown' | 'recall_expired' };

export class RecallStore {
  private readonly map = new Map<string, RecallEntry>();
  get(id: string, account: string, platform: string, path: string, now: number): RecallLookup {
    const e = this.map.get(id);
    if (!e || !e.owners.has(account) || e.platform !== platform || e.path !== path) return { ok: false, reason: 'recall_unknown' };
    if (now - e.storedAt >= e.ttlMs) return { ok: false, reason: 'recall_expired' };
    return { ok: true, entry: e };
  }
  /** Give `account` access to a recall id it received (e.g. through a cached answer). */
  share(id: string, account: string): void {
    this.map.get(id)?.owners.add(account);
  }
  put(id: string, e: RecallEntry): void {
    this.map.set(id, e);
  }
}

export type IdemRecord =
  | { state: 'running'; fingerprint: string; at: number }
  | { state: 'done'; fingerprint: string; at: number; status: number; body: Record<string, unknown> }
  /** The original ran but its answer never reached the client (disconnect / dropped body). */
  | { state: 'undelivered'; fingerprint: string; at: number };

export const IDEM_TTL_MS = 24 * 3600_000;

export class IdempotencyStore {
  private readonly map = new Map<string, IdemRecord>();
  private k(account: string, key: string): string {
    return `${account}\u0000${key}`;
  }
  get(account: string, key: string, now: number): IdemRecord | null {
    const r = this.map.get(this.k(account, key));
    if (!r) return null;
    if (r.state !== 'running' && now - r.at > IDEM_TTL_MS) {
      this.map.delete(this.k(account, key));
      return null;
    }
    return r;
  }
  set(account: string, key: string, r: IdemRecord): void {
    this.map.set(this.k(account, key), r);
  }
  delete(account: string, key: string): void {
    this.map.delete(this.k(account, key));
  }
}

export class Ledger {
  readonly records: ChargeRecord[] = [];
  add(r: ChargeRecord): void {
    this.records.push(r);
  }
}
