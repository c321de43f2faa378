/**
 * Per-key limits (spec "Limits"): 60 requests in a sliding 60 s of SANDBOX time, 10 in flight.
 * Rejected requests do not enter the window (a real sliding-window limiter records only
 * admitted requests), so a client that keeps retrying does not extend its own penalty.
 */
export const RATE_LIMIT = 60;
export const RATE_WINDOW_MS = 60_000;
export const CONCURRENCY = 10;

export class RateLimiter {
  private readonly windows = new Map<string, number[]>();
  private readonly inFlight = new Map<string, number>();

  /** Try to admit a request at sandbox time `now`. On refusal: sandbox seconds until a slot frees. */
  admit(key: string, now: number): { ok: true } | { ok: false; retryAfterSandboxSeconds: number } {
    const w = this.prune(key, now);
    if (w.length >= RATE_LIMIT) {
      const oldest = w[0];
      return { ok: false, retryAfterSandboxSeconds: Math.max(1, (oldest + RATE_WINDOW_MS - now) / 1000) };
    }
    w.push(now);
    return { ok: true };
  }

  count(key: string, now: number): number {
    return this.prune(key, now).length;
  }

  tryEnter(key: string): boolean {
    const n = this.inFlight.get(key) ?? 0;
    if (n >= CONCURRENCY) return false;
    this.inFlight.set(key, n + 1);
    return true;
  }

  leave(key: string): void {
    const n = this.inFlight.get(key) ?? 0;
    if (n <= 1) this.inFlight.delete(key);
    else this.inFlight.set(key, n - 1);
  }

  get totalInFlight(): number {
    let t = 0;
    for (const n of this.inFlight.values()) t += n;
    return t;
  }

  private prune(key: string, now: number): number[] {
    let w = this.windows.get(key);
    if (!w) {
      w = [];
      this.windows.set(key, w);
    }
    while (w.length > 0 && w[0] <= now - RATE_WINDOW_MS) w.shift();
    return w;
  }
}
