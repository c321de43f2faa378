import type { Clock, Priority } from '../ports';
import { abortError } from './clock';
import { LEASE_MARGIN_MS, MemoryPaceBook, type PaceBook, type PaceLimits } from './pace-book';

export type PacerLimits = PaceLimits;

export const DEFAULT_LIMITS: PacerLimits = { requests: 60, windowSeconds: 60, maxInFlight: 10 };

export interface PacerStats {
  inFlight: number;
  queued: { interactive: number; background: number };
  /** starts inside the current window */
  startsInWindow: number;
  limits: PacerLimits;
  /** ms since epoch until which the whole key is paused (429), or null */
  pausedUntil: number | null;
  totalStarts: number;
  /** moving average of attempt durations, used by eta() */
  avgDurationMs: number;
}

/** called when the attempt's answer arrived; `{ unsent: true }` when the slot was taken but nothing was sent */
export type Release = (o?: { unsent?: boolean }) => void;

interface Waiter {
  priority: Priority;
  seq: number;
  resolve: (release: Release) => void;
  reject: (e: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

export interface PacerOptions {
  /** where the key's counts live (default: this process only) */
  book?: PaceBook;
  /** the key's id in the book (a fingerprint, never the key) */
  bookKey?: string;
  /** how long an attempt may stay in flight before another process stops counting it (default 90 s + margin) */
  leaseMs?: () => number;
  /** with a shared book: how often to look again when a slot can free in another process */
  pollMs?: number;
}

/**
 * Client-side pacing for one API key (spec "Limits" rule 4: pace from your own counts).
 * - at most `requests` attempt starts in ANY sliding window of `windowSeconds`
 *   (every attempt counts, retries included);
 * - at most `maxInFlight` attempts in flight;
 * - interactive work is started before background work, FIFO within a priority;
 * - a RATE_LIMITED answer pauses the whole key until Retry-After (`pause`).
 * The counts live in a PaceBook: this process's, or the data folder's shared one, so several
 * Loupe processes using one key pace it together (see pace-book.ts for the window rule).
 */
export class Pacer {
  private inFlightCount = 0;
  private queue: Waiter[] = [];
  private seq = 0;
  private wakeAt: number | null = null;
  private totalStarts = 0;
  private avgMs = 1000;
  private limitsValue: PacerLimits;
  private readonly book: PaceBook;
  private readonly bookKey: string;
  private readonly leaseMs: () => number;
  private readonly pollMs: number;

  constructor(
    private readonly clock: Clock,
    limits: PacerLimits = DEFAULT_LIMITS,
    o: PacerOptions = {},
  ) {
    this.limitsValue = { ...limits };
    this.book = o.book ?? new MemoryPaceBook();
    this.bookKey = o.bookKey ?? 'key';
    this.leaseMs = o.leaseMs ?? (() => 90_000 + LEASE_MARGIN_MS);
    this.pollMs = o.pollMs ?? 100;
  }

  get limits(): PacerLimits {
    return { ...this.limitsValue };
  }

  setLimits(l: PacerLimits): void {
    this.limitsValue = { ...l };
    this.pump();
  }

  private get windowMs(): number {
    return this.limitsValue.windowSeconds * 1000;
  }

  /**
   * Waits for a slot. Resolves with a release function to call when the attempt
   * finished (frees the in-flight slot). The start is recorded when it resolves.
   */
  acquire(priority: Priority = 'interactive', signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) return Promise.reject(abortError());
    return new Promise((resolve, reject) => {
      const w: Waiter = { priority, seq: this.seq++, resolve, reject, signal };
      if (signal) {
        w.onAbort = () => {
          const i = this.queue.indexOf(w);
          if (i >= 0) this.queue.splice(i, 1);
          reject(abortError());
          this.pump();
        };
        signal.addEventListener('abort', w.onAbort, { once: true });
      }
      this.queue.push(w);
      this.pump();
    });
  }

  /** A slot now, without waiting, when no earlier waiter of this priority or higher is queued; else null. */
  tryAcquire(priority: Priority = 'interactive'): Release | null {
    if (this.queue.some((q) => q.priority === 'interactive' || priority === 'background')) return null;
    return this.start(this.clock.now());
  }

  /** Pause every start on this key until `untilMs` (clock time). */
  pause(untilMs: number): void {
    this.book.pause(this.bookKey, untilMs);
    this.pump();
  }

  private next(): Waiter | undefined {
    let best: Waiter | undefined;
    for (const w of this.queue) {
      if (!best) best = w;
      else if (w.priority === 'interactive' && best.priority === 'background') best = w;
      else if (w.priority === best.priority && w.seq < best.seq) best = w;
    }
    return best;
  }

  /** records a start at `now` when allowed, and returns its release; else schedules a wake and returns null */
  private start(now: number): Release | null {
    const r = this.book.tryStart(this.bookKey, now, this.limitsValue, this.leaseMs());
    if (!r.ok) {
      if (Number.isFinite(r.readyAt)) this.scheduleWake(r.readyAt);
      // a slot held by another process frees without a local release: look again soon
      else if (this.book.shared) this.scheduleWake(now + this.pollMs);
      return null;
    }
    this.totalStarts++;
    this.inFlightCount++;
    const startedAt = now;
    let released = false;
    return (o) => {
      if (released) return;
      released = true;
      this.inFlightCount--;
      if (o?.unsent) {
        this.totalStarts--;
        this.book.cancel(this.bookKey, r.id);
      } else {
        const end = this.clock.now();
        this.book.end(this.bookKey, r.id, end);
        this.avgMs = this.avgMs * 0.8 + (end - startedAt) * 0.2;
      }
      this.pump();
    };
  }

  private pump(): void {
    for (;;) {
      const w = this.next();
      if (!w) return;
      const release = this.start(this.clock.now());
      if (!release) return;
      this.queue.splice(this.queue.indexOf(w), 1);
      if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
      w.resolve(release);
    }
  }

  private scheduleWake(at: number): void {
    if (this.wakeAt !== null && this.wakeAt <= at) return;
    this.wakeAt = at;
    const delay = Math.max(0, at - this.clock.now());
    void this.clock.sleep(delay).then(
      () => {
        if (this.wakeAt === at) this.wakeAt = null;
        this.pump();
      },
      () => {
        if (this.wakeAt === at) this.wakeAt = null;
      },
    );
  }

  stats(): PacerStats {
    const now = this.clock.now();
    const entries = this.book.entries(this.bookKey, now, this.windowMs);
    const paused = this.book.pausedUntil(this.bookKey, now);
    return {
      inFlight: entries.filter((e) => !Number.isFinite(e.end)).length,
      queued: {
        interactive: this.queue.filter((q) => q.priority === 'interactive').length,
        background: this.queue.filter((q) => q.priority === 'background').length,
      },
      startsInWindow: entries.filter((e) => e.start > now - this.windowMs).length,
      limits: this.limits,
      pausedUntil: paused > now ? paused : null,
      totalStarts: this.totalStarts,
      avgDurationMs: Math.round(this.avgMs),
    };
  }

  /**
   * Estimated ms until `n` more requests of `priority` have finished, given the window's
   * recent starts, the pause, the work queued ahead (all interactive work is ahead of
   * background work) and the average attempt duration.
   */
  eta(n: number, priority: Priority = 'interactive'): number {
    if (n <= 0) return 0;
    const now = this.clock.now();
    const { requests, maxInFlight } = this.limitsValue;
    const W = this.windowMs;
    const ahead = this.queue.filter((q) => priority === 'background' || q.priority === 'interactive').length;
    const total = ahead + n;
    const book = this.book.entries(this.bookKey, now, W);
    // what runs now: assume half an average attempt left
    const ends = book.map((e) => (Number.isFinite(e.end) ? e.end : now + this.avgMs / 2)).sort((a, b) => a - b);
    const running: number[] = book.filter((e) => !Number.isFinite(e.end)).map(() => now + this.avgMs / 2);
    let t = Math.max(now, this.book.pausedUntil(this.bookKey, now));
    let lastFinish = now;
    // simulate the next few windows; beyond them the pace is steady (`requests` per window), so a
    // walk of a million pages costs no more to estimate than one of a few hundred. `ends` stays
    // sorted: the window rule (windowReadyAt) is then one look-up — the `requests`-th latest end.
    const simulated = Math.min(total, 3 * requests);
    const rest = total - simulated;
    for (let i = 0; i < simulated; i++) {
      const k = ends.length - requests;
      if (k >= 0 && ends[k] > t - W) t = Math.max(t, ends[k] + W + 1);
      if (running.length >= maxInFlight) {
        running.sort((a, b) => a - b);
        t = Math.max(t, running.shift() as number);
      }
      const fin = t + this.avgMs;
      let lo = 0;
      let hi = ends.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (ends[mid] <= fin) lo = mid + 1;
        else hi = mid;
      }
      ends.splice(lo, 0, fin);
      running.push(fin);
      lastFinish = Math.max(lastFinish, fin);
    }
    if (rest > 0) lastFinish += Math.ceil(rest / requests) * W;
    return Math.max(0, Math.round(lastFinish - now));
  }
}
