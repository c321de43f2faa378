import type { Clock, Priority } from '../ports';
import { abortError } from './clock';

export interface PacerLimits {
  /** at most this many attempt starts in any sliding window */
  requests: number;
  windowSeconds: number;
  /** at most this many attempts in flight */
  maxInFlight: number;
}

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

interface Waiter {
  priority: Priority;
  seq: number;
  resolve: (release: () => void) => void;
  reject: (e: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/**
 * Client-side pacing for one API key (spec "Limits" rule 4: pace from your own counts).
 * - at most `requests` attempt starts in ANY sliding window of `windowSeconds`
 *   (every attempt counts, retries included);
 * - at most `maxInFlight` attempts in flight;
 * - interactive work is started before background work, FIFO within a priority;
 * - a RATE_LIMITED answer pauses the whole key until Retry-After (`pause`).
 *
 * The server counts a request at its ARRIVAL, which we never see: it lies somewhere between our
 * start and the moment the answer came back. So a request occupies our window from its start
 * until `windowSeconds` after its answer arrived (while it is in flight it occupies it for good).
 * A new start at s is allowed when fewer than `requests` attempts ended after s − window: every
 * earlier arrival is then at or before s − window, outside the server's window whatever the
 * latency. The cost is one round-trip per window (under 1% at 60 s); no guessed margin needed.
 */
export class Pacer {
  /** attempts that still occupy the window: start time, and end time (Infinity while in flight) */
  private starts: Array<{ start: number; end: number }> = [];
  private inFlightCount = 0;
  private queue: Waiter[] = [];
  private seq = 0;
  private pausedUntilMs = 0;
  private wakeAt: number | null = null;
  private totalStarts = 0;
  private avgMs = 1000;
  private limitsValue: PacerLimits;

  constructor(
    private readonly clock: Clock,
    limits: PacerLimits = DEFAULT_LIMITS,
  ) {
    this.limitsValue = { ...limits };
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

  private prune(now: number): void {
    const cutoff = now - this.windowMs;
    this.starts = this.starts.filter((e) => e.end > cutoff);
  }

  /** earliest time a new start is allowed by the window (given occupied entries) */
  private windowReadyAt(entries: Array<{ end: number }>, now: number): number {
    const { requests } = this.limitsValue;
    if (entries.length < requests) return now;
    const ends = entries.map((e) => e.end).sort((a, b) => a - b);
    // after the k-th smallest end leaves the window, entries.length − k remain
    const k = entries.length - requests; // index of the end that must leave
    return ends[k] + this.windowMs + 1; // Infinity while that attempt is in flight: a release pumps
  }

  /**
   * Waits for a slot. Resolves with a release function to call when the attempt
   * finished (frees the in-flight slot). The start is recorded when it resolves.
   */
  acquire(priority: Priority = 'interactive', signal?: AbortSignal): Promise<() => void> {
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

  /** Pause every start on this key until `untilMs` (clock time). */
  pause(untilMs: number): void {
    if (untilMs > this.pausedUntilMs) this.pausedUntilMs = untilMs;
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

  private pump(): void {
    for (;;) {
      const w = this.next();
      if (!w) return;
      const now = this.clock.now();
      this.prune(now);
      if (this.inFlightCount >= this.limitsValue.maxInFlight) return; // a release will pump
      let readyAt = now;
      if (this.pausedUntilMs > now) readyAt = this.pausedUntilMs;
      readyAt = Math.max(readyAt, this.windowReadyAt(this.starts, now));
      if (readyAt > now) {
        if (Number.isFinite(readyAt)) this.scheduleWake(readyAt);
        return;
      }
      this.queue.splice(this.queue.indexOf(w), 1);
      if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
      const entry = { start: now, end: Infinity };
      this.starts.push(entry);
      this.totalStarts++;
      this.inFlightCount++;
      const startedAt = now;
      let released = false;
      w.resolve(() => {
        if (released) return;
        released = true;
        this.inFlightCount--;
        entry.end = this.clock.now();
        const d = entry.end - startedAt;
        this.avgMs = this.avgMs * 0.8 + d * 0.2;
        this.pump();
      });
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
    this.prune(now);
    const w = this.limitsValue.windowSeconds * 1000;
    return {
      inFlight: this.inFlightCount,
      queued: {
        interactive: this.queue.filter((q) => q.priority === 'interactive').length,
        background: this.queue.filter((q) => q.priority === 'background').length,
      },
      startsInWindow: this.starts.filter((e) => e.start > now - w).length,
      limits: this.limits,
      pausedUntil: this.pausedUntilMs > now ? this.pausedUntilMs : null,
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
    this.prune(now);
    const { requests, maxInFlight } = this.limitsValue;
    const ahead = this.queue.filter((q) => priority === 'background' || q.priority === 'interactive').length;
    const total = ahead + n;
    // what runs now: assume half an average attempt left
    const entries = this.starts.map((e) => ({ end: Number.isFinite(e.end) ? e.end : now + this.avgMs / 2 }));
    const running: number[] = entries.filter((_, i) => !Number.isFinite(this.starts[i].end)).map((e) => e.end);
    let t = Math.max(now, this.pausedUntilMs);
    let lastFinish = now;
    void requests;
    for (let i = 0; i < total; i++) {
      t = Math.max(t, this.windowReadyAt(entries, t));
      if (running.length >= maxInFlight) {
        running.sort((a, b) => a - b);
        t = Math.max(t, running.shift() as number);
      }
      const fin = t + this.avgMs;
      entries.push({ end: fin });
      running.push(fin);
      lastFinish = Math.max(lastFinish, fin);
    }
    return Math.max(0, Math.round(lastFinish - now));
  }
}

/**
 * One pacer per (clock, base URL, key fingerprint), shared by every core in the process
 * that uses the same clock — the default real clock is a module singleton, so the desktop
 * app, the watch scheduler and a CLI run in one process all pace the same key together.
 */
const registry = new WeakMap<Clock, Map<string, Pacer>>();

export function sharedPacer(clock: Clock, id: string, limits: PacerLimits): Pacer {
  let m = registry.get(clock);
  if (!m) registry.set(clock, (m = new Map()));
  let p = m.get(id);
  if (!p) m.set(id, (p = new Pacer(clock, limits)));
  else {
    const l = p.limits;
    if (l.requests !== limits.requests || l.windowSeconds !== limits.windowSeconds || l.maxInFlight !== limits.maxInFlight)
      p.setLimits(limits);
  }
  return p;
}
