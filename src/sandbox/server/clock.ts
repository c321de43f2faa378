/**
 * Sandbox clock: sandbox time = epoch + (real elapsed × timeScale) + advanced offset.
 * Every time-based rule (rate window, cache windows, cursor expiry, world growth) reads this.
 * `Retry-After` values are converted back to REAL seconds with `toRealSeconds`.
 */
export class SandboxClock {
  private readonly realStart: number;
  private offsetMs = 0;
  constructor(
    readonly epoch: number,
    readonly timeScale: number,
    private readonly realNow: () => number = Date.now,
  ) {
    if (!(timeScale > 0)) throw new Error('timeScale must be > 0');
    this.realStart = realNow();
  }
  /** Sandbox time, ms since 1970. */
  now(): number {
    return Math.floor(this.epoch + (this.realNow() - this.realStart) * this.timeScale + this.offsetMs);
  }
  /** Jump sandbox time forward (sandbox seconds). */
  advance(seconds: number): void {
    if (!(seconds >= 0)) throw new Error('advance: seconds must be >= 0');
    this.offsetMs += seconds * 1000;
  }
  /** Sandbox seconds → real seconds for Retry-After: ceil, at least 1. */
  toRealSeconds(sandboxSeconds: number): number {
    return Math.max(1, Math.ceil(sandboxSeconds / this.timeScale - 1e-9));
  }
}
