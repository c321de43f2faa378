/**
 * The key pool (spec "Authentication" 7–9: up to 25 keys per account, every key calls every
 * endpoint, all draw on one balance, rate limits count per key; revocation takes effect on the next
 * request; rotation is issue → roll out → confirm use → revoke).
 *
 * - One pacer per key (60 per sliding 60 s, 10 in flight), shared by every core in the process and,
 *   through the pace book, by every Loupe process using the data folder.
 * - Each attempt takes a slot on the key that can start soonest (least busy first), so work spreads
 *   over the keys; an attempt that must replay an earlier one (same Idempotency-Key) is pinned to
 *   the key that sent it — the only way a replay is free under every reading of the spec.
 * - A key marked retiring gets no new work while another key can take it (rotation: its own replays
 *   still go to it).
 * - A key the service refuses (401 INVALID_API_KEY / API_KEY_REVOKED) leaves the pool for this
 *   process at once, with a clear message; the attempt moves to another key.
 */
import type { Clock, Priority } from '../ports';
import { abortError } from './clock';
import { sha256 } from './canonical';
import type { PaceBook } from './pace-book';
import { Pacer, type PacerLimits, type PacerStats, type Release } from './pacer';

export interface PoolKey {
  /** the key's name (recorded in the ledger; never the key); null for an unnamed single key */
  name: string | null;
  key: string;
  retiring?: boolean;
}

export interface Slot {
  name: string | null;
  key: string;
  pacer: Pacer;
  release: Release;
}

export interface KeyPoolOptions {
  clock: Clock;
  baseUrl: string;
  getKeys: () => Promise<PoolKey[]>;
  limits: () => PacerLimits;
  book: PaceBook;
  leaseMs: () => number;
  /** one pacer for every key (tests and benchmarks that measure a pacer directly) */
  pacer?: Pacer;
}

/** In-process pacers per (clock, book, key fingerprint): every core in the process shares them. */
const registry = new WeakMap<Clock, WeakMap<PaceBook, Map<string, Pacer>>>();

function pacerOf(clock: Clock, book: PaceBook, id: string, limits: PacerLimits, leaseMs: () => number): Pacer {
  let byBook = registry.get(clock);
  if (!byBook) registry.set(clock, (byBook = new WeakMap()));
  let m = byBook.get(book);
  if (!m) byBook.set(book, (m = new Map()));
  let p = m.get(id);
  if (!p) m.set(id, (p = new Pacer(clock, limits, { book, bookKey: id, leaseMs })));
  else {
    const l = p.limits;
    if (l.requests !== limits.requests || l.windowSeconds !== limits.windowSeconds || l.maxInFlight !== limits.maxInFlight)
      p.setLimits(limits);
  }
  return p;
}

export interface Member extends PoolKey {
  pacer: Pacer;
}

export class PinnedKeyGone extends Error {
  constructor(name: string | null) {
    super(`The key ${name ?? ''} that sent the earlier attempt is no longer in the pool.`);
    this.name = 'PinnedKeyGone';
  }
}

export class KeyPool {
  /** refused by the service in this process: name (or fingerprint for unnamed keys) → error type */
  private readonly refused = new Map<string, string>();
  private lastMembers: Member[] = [];
  /** sha256 of each key seen: the pool is read on every attempt, a key is hashed once */
  private readonly hashes = new Map<string, string>();

  constructor(private readonly o: KeyPoolOptions) {}

  private hash(key: string): string {
    let h = this.hashes.get(key);
    if (h === undefined) this.hashes.set(key, (h = sha256(key)));
    return h;
  }

  private idOf(k: PoolKey): string {
    return k.name ?? `#${this.hash(k.key).slice(0, 16)}`;
  }

  private pacerFor(key: string): Pacer {
    if (this.o.pacer) return this.o.pacer;
    return pacerOf(this.o.clock, this.o.book, `${this.o.baseUrl}|${this.hash(key).slice(0, 16)}`, this.o.limits(), this.o.leaseMs);
  }

  /** The usable keys now (the door's list minus keys the service refused in this process). */
  async members(): Promise<Member[]> {
    const keys = await this.o.getKeys();
    const seen = new Set<string>();
    const out: Member[] = [];
    for (const k of keys) {
      if (!k.key || this.refused.has(this.idOf(k))) continue;
      const fp = this.hash(k.key);
      if (seen.has(fp)) continue; // the same key under two names is one key to the service
      seen.add(fp);
      out.push({ ...k, pacer: this.pacerFor(k.key) });
    }
    this.lastMembers = out;
    return out;
  }

  /** every key value in the pool: for redacting text, nothing else */
  secrets(): string[] {
    return this.lastMembers.map((m) => m.key);
  }

  /** A key the service refused leaves the pool (this process); returns whether others remain. */
  refuse(name: string | null, key: string, type: string): boolean {
    this.refused.set(this.idOf({ name, key }), type);
    this.lastMembers = this.lastMembers.filter((m) => m.key !== key);
    return this.lastMembers.length > 0;
  }

  /** the pacers of the keys last seen (stats, estimates) */
  pacers(): Pacer[] {
    if (this.o.pacer) return [this.o.pacer];
    return this.lastMembers.map((m) => m.pacer);
  }

  /** keys other than `name` that could start before `before` (clock ms) */
  othersUsableBefore(key: string, before: number): boolean {
    if (this.o.pacer) return false; // one pacer for every key: a pause stops them all
    return this.lastMembers.some((m) => m.key !== key && (m.pacer.stats().pausedUntil ?? 0) < before);
  }

  /**
   * A slot on the key that can start soonest. `pin` (a key's name or value) ties the attempt to the
   * key that sent an earlier attempt under the same Idempotency-Key; PinnedKeyGone when it left.
   */
  async acquire(priority: Priority, signal: AbortSignal | undefined, pin?: { name: string | null; key: string }): Promise<Slot> {
    if (signal?.aborted) throw abortError();
    const all = await this.members();
    if (pin) {
      const m = all.find((x) => x.key === pin.key);
      if (!m) throw new PinnedKeyGone(pin.name);
      const release = await m.pacer.acquire(priority, signal);
      return { name: m.name, key: m.key, pacer: m.pacer, release };
    }
    if (all.length === 0) return Promise.reject(new NoKeys(this.refused.size > 0 ? [...this.refused.entries()] : []));
    let cands = all.filter((m) => !m.retiring);
    if (cands.length === 0) cands = all;
    if (cands.length === 1 || this.o.pacer) {
      const m = cands[0];
      const release = await m.pacer.acquire(priority, signal);
      return { name: m.name, key: m.key, pacer: m.pacer, release };
    }
    // least busy first: a free slot now, without queueing
    const now = this.o.clock.now();
    const ranked = cands.map((m) => ({ m, s: m.pacer.stats() })).sort((a, b) => busy(a.s, now) - busy(b.s, now));
    for (const { m } of ranked) {
      const release = m.pacer.tryAcquire(priority);
      if (release) return { name: m.name, key: m.key, pacer: m.pacer, release };
    }
    // none free: wait on every key at once; the first slot wins, the others are given back unsent
    return new Promise<Slot>((resolve, reject) => {
      const race = new AbortController();
      const onAbort = () => race.abort();
      signal?.addEventListener('abort', onAbort, { once: true });
      let won = false;
      let pending = ranked.length;
      for (const { m } of ranked) {
        m.pacer.acquire(priority, race.signal).then(
          (release) => {
            if (won) {
              release({ unsent: true });
              return;
            }
            won = true;
            signal?.removeEventListener('abort', onAbort);
            race.abort();
            resolve({ name: m.name, key: m.key, pacer: m.pacer, release });
          },
          (e) => {
            if (--pending === 0 && !won) {
              signal?.removeEventListener('abort', onAbort);
              reject(e);
            }
          },
        );
      }
    });
  }

  /** Aggregate stats over the pool: limits are the sums (what the pool can do together). */
  stats(): PacerStats & { keys: number } {
    const ps = this.pacers();
    if (ps.length === 0) {
      return {
        inFlight: 0,
        queued: { interactive: 0, background: 0 },
        startsInWindow: 0,
        limits: this.o.limits(),
        pausedUntil: null,
        totalStarts: 0,
        avgDurationMs: 1000,
        keys: 0,
      };
    }
    const ss = ps.map((p) => p.stats());
    const paused = ss.every((s) => s.pausedUntil !== null) ? Math.min(...ss.map((s) => s.pausedUntil as number)) : null;
    const l = ss[0].limits;
    return {
      inFlight: sum(ss.map((s) => s.inFlight)),
      queued: { interactive: sum(ss.map((s) => s.queued.interactive)), background: sum(ss.map((s) => s.queued.background)) },
      startsInWindow: sum(ss.map((s) => s.startsInWindow)),
      limits: { requests: l.requests * ps.length, windowSeconds: l.windowSeconds, maxInFlight: l.maxInFlight * ps.length },
      pausedUntil: paused,
      totalStarts: sum(ss.map((s) => s.totalStarts)),
      avgDurationMs: Math.round(sum(ss.map((s) => s.avgDurationMs)) / ss.length),
      keys: ps.length,
    };
  }

  /** ms until n more requests finished, spread evenly over the pool's keys */
  eta(n: number, priority: Priority): number {
    const ps = this.pacers();
    // no key seen yet: what one key with nothing in flight would take
    if (ps.length === 0) return new Pacer(this.o.clock, this.o.limits()).eta(n, priority);
    // the keys share the work evenly: the busiest key's share is when the last of it ends (one
    // key's estimate, not one per key: walks ask for it on every page)
    const each = Math.ceil(n / ps.length);
    const now = this.o.clock.now();
    const busiest = ps.map((p) => ({ p, b: busy(p.stats(), now) })).sort((a, b) => b.b - a.b)[0].p;
    return busiest.eta(each, priority);
  }

  setLimits(l: PacerLimits): void {
    for (const p of this.pacers()) p.setLimits(l);
  }
}

export class NoKeys extends Error {
  constructor(readonly refused: Array<[string, string]>) {
    super(
      refused.length
        ? `Every API key was refused by the service (${refused.map(([n, t]) => `${n.startsWith('#') ? 'the key' : `"${n}"`}: ${t}`).join(', ')}); add a valid key in Settings or LOUPE_API_KEY.`
        : 'No API key is set: add a key in Settings or set LOUPE_API_KEY for the command line (MISSING_API_KEY).',
    );
    this.name = 'NoKeys';
  }
}

function busy(s: PacerStats, now: number): number {
  const paused = s.pausedUntil !== null && s.pausedUntil > now ? 1e9 + (s.pausedUntil - now) : 0;
  return paused + s.startsInWindow + s.inFlight * 2 + s.queued.interactive + s.queued.background;
}

function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}
