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
  /**
   * Where each account's window starts under the readings that give an owner a window of its own
   * (`cache-window-purchase`, `cache-window-slides`): its purchase, or its last free repeat. Under
   * the default reading the window is the entry's (`storedAt`, the fetch) and this is not read.
   */
  ownedFrom: Map<string, number>;
}

/**
 * Where an owner's cache window starts (docs/sandbox.md "Spec variants"): `fetch` — the shared
 * entry's, from its fetch (default); `purchase` — the account's own, from its purchase; `slides` —
 * the account's own, restarted by each free repeat (an owner read or a replay).
 */
export type WindowStart = 'fetch' | 'purchase' | 'slides';

export class ResponseCache {
  private readonly map = new Map<string, CachedAnswer>();
  /**
   * The entry a call of `account` reads, and whether the account owns it now: under `fetch` while
   * the entry lives; under `purchase` / `slides` while the account's own window runs (the entry is
   * kept for it after its shared life ends, when a non-owner no longer sees it).
   */
  lookup(key: string, now: number, account: string, start: WindowStart): { entry: CachedAnswer; owner: boolean } | null {
    const e = this.map.get(key);
    if (!e) return null;
    const shared = now - e.storedAt < e.ttlMs;
    if (start === 'fetch') {
      if (!shared) {
        this.map.delete(key);
        return null;
      }
      return { entry: e, owner: e.owners.has(account) };
    }
    const from = e.ownedFrom.get(account);
    if (from !== undefined && now - from < e.ttlMs) return { entry: e, owner: true };
    if (shared) return { entry: e, owner: false };
    if (![...e.ownedFrom.values()].some((t) => now - t < e.ttlMs)) this.map.delete(key);
    return null;
  }
  /** A read of a cached answer: the account owns it now; its own window opens at a purchase, and under `slides` at every repeat. */
  read(e: CachedAnswer, account: string, owner: boolean, now: number, start: WindowStart): void {
    e.owners.add(account);
    if (start === 'slides' || (start === 'purchase' && !owner)) e.ownedFrom.set(account, now);
  }
  /** `slides`: a replay is a free repeat too, and restarts a window the account still holds. */
  slide(key: string, account: string, now: number): void {
    const e = this.map.get(key);
    const from = e?.ownedFrom.get(account);
    if (e && from !== undefined && now - from < e.ttlMs) e.ownedFrom.set(account, now);
  }
  /**
   * A fresh fetch's answer, owned by the account that fetched it. Under `purchase` / `slides` the
   * windows other accounts still hold on the answer it replaces stay theirs (their purchase was not
   * undone by someone else's fetch); under `fetch` the entry, and its owners, are replaced.
   */
  store(key: string, page: StoredPage, account: string, start: WindowStart): void {
    const e: CachedAnswer = { ...page, owners: new Set([account]), ownedFrom: new Map([[account, page.storedAt]]) };
    const old = this.map.get(key);
    if (old && start !== 'fetch')
      for (const [a, t] of old.ownedFrom)
        if (!e.ownedFrom.has(a) && page.storedAt - t < old.ttlMs) {
          e.ownedFrom.set(a, t);
          e.owners.add(a);
        }
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
