/**
 * Where a key's pacing counts live (spec "Limits": 60 requests in a sliding 60 s and 10 in flight,
 * PER KEY — whoever sends them). Two books:
 *
 * - `MemoryPaceBook`: this process only (tests, and the fallback when the data folder cannot hold
 *   the shared book);
 * - `SqlitePaceBook` (`<dataDir>/pacing.db`): every Loupe process on this machine that uses the data
 *   folder — the desktop app, the web host and `loupe watch run` from cron — counts the same key's
 *   starts and in-flight attempts together, so running them at once causes no 429. An attempt in
 *   flight holds a lease that expires (the attempt deadline plus a margin): a crashed process's
 *   attempts stop occupying the in-flight limit then, and occupy the window until a window after it.
 *
 * Keys are identified by a fingerprint (a hash of base URL and key), never by the key.
 */
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { sql, Statements } from '../archive';

export interface PaceLimits {
  /** at most this many attempt starts in any sliding window */
  requests: number;
  windowSeconds: number;
  /** at most this many attempts in flight */
  maxInFlight: number;
}

/** an attempt that still occupies the window: when it started and when its answer came (Infinity while in flight) */
export interface PaceEntry {
  start: number;
  end: number;
}

export type TryStart = { ok: true; id: string } | { ok: false; readyAt: number };

export interface PaceBook {
  /** true when other processes share these counts (a slot can free without a local release) */
  readonly shared: boolean;
  /** Atomically: when a start is allowed at `now`, record it (in flight) and return its id. */
  tryStart(key: string, now: number, limits: PaceLimits, leaseMs: number): TryStart;
  /** the attempt's answer arrived (or it failed) at `now` */
  end(key: string, id: string, now: number): void;
  /** a start recorded but never sent: it leaves no trace */
  cancel(key: string, id: string): void;
  pause(key: string, until: number): void;
  pausedUntil(key: string, now: number): number;
  /** entries still occupying the window at `now` */
  entries(key: string, now: number, windowMs: number): PaceEntry[];
  close(): void;
}

/**
 * The window rule (docs/request-core.md "Pacing"). The server counts a request at its arrival,
 * somewhere between our start and its answer; so an attempt occupies the window from its start
 * until a window after its answer (for good while in flight). A start at `now` is allowed when fewer
 * than `requests` entries ended after now − window. Returns the earliest allowed time (Infinity:
 * an in-flight attempt must end first).
 */
export function windowReadyAt(entries: PaceEntry[], requests: number, windowMs: number, now: number): number {
  const live = entries.filter((e) => e.end > now - windowMs);
  if (live.length < requests) return now;
  const ends = live.map((e) => e.end).sort((a, b) => a - b);
  return ends[live.length - requests] + windowMs + 1;
}

function readyAtFor(entries: PaceEntry[], paused: number, limits: PaceLimits, now: number): number {
  const inFlight = entries.filter((e) => !Number.isFinite(e.end)).length;
  let at = Math.max(now, paused);
  if (inFlight >= limits.maxInFlight) return Infinity;
  at = Math.max(at, windowReadyAt(entries, limits.requests, limits.windowSeconds * 1000, now));
  return at;
}

export class MemoryPaceBook implements PaceBook {
  readonly shared = false;
  private readonly starts = new Map<string, Map<string, PaceEntry>>();
  private readonly pauses = new Map<string, number>();

  private of(key: string): Map<string, PaceEntry> {
    let m = this.starts.get(key);
    if (!m) this.starts.set(key, (m = new Map()));
    return m;
  }

  tryStart(key: string, now: number, limits: PaceLimits, _leaseMs: number): TryStart {
    const es = this.entries(key, now, limits.windowSeconds * 1000);
    const at = readyAtFor(es, this.pausedUntil(key, now), limits, now);
    if (at > now) return { ok: false, readyAt: at };
    const id = randomUUID();
    this.of(key).set(id, { start: now, end: Infinity });
    return { ok: true, id };
  }

  end(key: string, id: string, now: number): void {
    const e = this.of(key).get(id);
    if (e) e.end = now;
  }

  cancel(key: string, id: string): void {
    this.of(key).delete(id);
  }

  pause(key: string, until: number): void {
    if (until > (this.pauses.get(key) ?? 0)) this.pauses.set(key, until);
  }

  pausedUntil(key: string, now: number): number {
    const p = this.pauses.get(key) ?? 0;
    return p > now ? p : 0;
  }

  entries(key: string, now: number, windowMs: number): PaceEntry[] {
    const m = this.of(key);
    const out: PaceEntry[] = [];
    for (const [id, e] of m) {
      if (e.end <= now - windowMs) m.delete(id);
      else out.push(e);
    }
    return out;
  }

  close(): void {}
}

/** false when no process has this pid on this machine (true when it exists, or cannot be told) */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** extra lease beyond the attempt deadline before a silent process's attempt stops counting as in flight */
export const LEASE_MARGIN_MS = 30_000;

/**
 * The shared book: one small SQLite file beside the archive (not inside it: the archive may be
 * read-only, busy with a long write, or on another disk). WAL mode; each start is one short
 * IMMEDIATE transaction (read the key's live entries, insert when allowed), so two processes can
 * never both take the last slot.
 */
export class SqlitePaceBook implements PaceBook {
  readonly shared = true;
  private readonly db: Database.Database;
  /** the book's statements (the archive's tagged SQL over this file's own connection) */
  private readonly sql: Statements;
  private readonly startTx: (key: string, now: number, limits: PaceLimits, leaseMs: number) => TryStart;

  constructor(file: string) {
    this.db = new Database(file, { timeout: 5000 });
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS pace_starts (
        id TEXT PRIMARY KEY,
        key TEXT NOT NULL,
        pid INTEGER NOT NULL,
        start_ms INTEGER NOT NULL,
        end_ms INTEGER,
        lease_until INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS pace_starts_key ON pace_starts (key, start_ms);
      CREATE TABLE IF NOT EXISTS pace_pauses (key TEXT PRIMARY KEY, until_ms INTEGER NOT NULL);
    `);
    this.sql = new Statements(this.db);
    this.startTx = this.db.transaction((key: string, now: number, limits: PaceLimits, leaseMs: number): TryStart => {
      const es = this.read(key, now, limits.windowSeconds * 1000);
      const at = readyAtFor(es, this.pausedUntil(key, now), limits, now);
      if (at > now) return { ok: false, readyAt: at };
      const id = randomUUID();
      this.sql.insert`pace_starts`({ id, key, pid: process.pid, start_ms: now, end_ms: null, lease_until: now + leaseMs });
      return { ok: true, id };
    }).immediate;
  }

  private read(key: string, now: number, windowMs: number): PaceEntry[] {
    // an entry leaves for good a window after its end (a lapsed lease counts as its end)
    this.sql.run(
      sql`DELETE FROM pace_starts WHERE key = ${key} AND COALESCE(end_ms, CASE WHEN lease_until <= ${now} THEN lease_until END) <= ${now - windowMs}`,
    );
    const rows = this.sql.all<{ id: string; pid: number; start: number; end: number | null; lease: number }>(
      sql`SELECT id, pid, start_ms AS start, end_ms AS end, lease_until AS lease FROM pace_starts WHERE key = ${key}`,
    );
    return rows.map((r) => {
      let end = r.end;
      // an attempt of a process that is gone (killed, crashed) is in flight no longer — the service
      // freed its slot when the connection dropped — but the service counted it when it arrived:
      // it ends now, and stays in the window for a window more
      if (end === null && r.lease > now && r.pid !== process.pid && !pidAlive(r.pid)) {
        end = now;
        this.endEntry(r.id, now);
      }
      return { start: r.start, end: end ?? (r.lease <= now ? r.lease : Infinity) };
    });
  }

  tryStart(key: string, now: number, limits: PaceLimits, leaseMs: number): TryStart {
    return this.startTx(key, now, limits, leaseMs);
  }

  end(key: string, id: string, now: number): void {
    void key;
    this.endEntry(id, now);
  }

  private endEntry(id: string, now: number): void {
    this.sql.run(sql`UPDATE pace_starts SET end_ms = ${now} WHERE id = ${id} AND end_ms IS NULL`);
  }

  cancel(key: string, id: string): void {
    void key;
    this.sql.run(sql`DELETE FROM pace_starts WHERE id = ${id}`);
  }

  pause(key: string, until: number): void {
    this.sql.run(
      sql`INSERT INTO pace_pauses (key, until_ms) VALUES (${key}, ${until})
          ON CONFLICT(key) DO UPDATE SET until_ms = MAX(until_ms, excluded.until_ms)`,
    );
  }

  pausedUntil(key: string, now: number): number {
    const until = this.sql.value<number>(sql`SELECT until_ms FROM pace_pauses WHERE key = ${key}`);
    return until !== undefined && until > now ? until : 0;
  }

  entries(key: string, now: number, windowMs: number): PaceEntry[] {
    return this.read(key, now, windowMs);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/**
 * A book that uses the shared file while it works and falls back to this process's counts when it
 * cannot (a read-only or full data folder): pacing must never stop a call.
 */
export class FallbackPaceBook implements PaceBook {
  private memory = new MemoryPaceBook();
  private failed = false;
  constructor(
    private readonly primary: PaceBook,
    private readonly log: (line: string) => void,
  ) {}

  get shared(): boolean {
    return !this.failed && this.primary.shared;
  }

  private run<T>(f: (b: PaceBook) => T): T {
    if (!this.failed) {
      try {
        return f(this.primary);
      } catch (e) {
        this.failed = true;
        this.log(
          `warning: the shared pacing file cannot be used (${e instanceof Error ? e.message.split('\n')[0] : String(e)}); this process paces its keys alone, so another Loupe process using the same key at the same time may be rate limited`,
        );
      }
    }
    return f(this.memory);
  }

  tryStart(key: string, now: number, limits: PaceLimits, leaseMs: number): TryStart {
    return this.run((b) => b.tryStart(key, now, limits, leaseMs));
  }
  end(key: string, id: string, now: number): void {
    this.run((b) => b.end(key, id, now));
  }
  cancel(key: string, id: string): void {
    this.run((b) => b.cancel(key, id));
  }
  pause(key: string, until: number): void {
    this.memory.pause(key, until);
    this.run((b) => b.pause(key, until));
  }
  pausedUntil(key: string, now: number): number {
    return this.run((b) => b.pausedUntil(key, now));
  }
  entries(key: string, now: number, windowMs: number): PaceEntry[] {
    return this.run((b) => b.entries(key, now, windowMs));
  }
  close(): void {
    try {
      this.primary.close();
    } catch {
      /* closing a broken file */
    }
  }
}

/** Opens the shared book at `file`, or the in-process one (with a warning) when it cannot be opened. */
export function openPaceBook(file: string | null | undefined, log: (line: string) => void = () => {}): PaceBook {
  if (!file) return new MemoryPaceBook();
  try {
    return new FallbackPaceBook(new SqlitePaceBook(file), log);
  } catch (e) {
    log(
      `warning: the shared pacing file ${file} cannot be opened (${e instanceof Error ? e.message.split('\n')[0] : String(e)}); this process paces its keys alone`,
    );
    return new MemoryPaceBook();
  }
}
