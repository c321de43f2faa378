/**
 * The run's shared budget counter. Every page of every watch reserves its HOLD (the most
 * the call can cost: listed price, or the top of a metered range, × max_pages) before it
 * is sent, and settles to what it actually cost when it returns. A page whose hold does not
 * fit in what is left (limit − spent − reserved) is never sent, so the run can never spend
 * more than its limit, even with many watches in flight at once.
 *
 * When a hold does not fit but other pages are still in flight, the caller waits for them
 * to settle (actual costs are often far below holds) before giving up.
 */
export class SharedBudget {
  private spentValue = 0;
  private reservedValue = 0;
  private waiters: Array<() => void> = [];

  /** `limit` null = no limit. */
  constructor(readonly limit: number | null) {}

  get spent(): number {
    return this.spentValue;
  }
  get reserved(): number {
    return this.reservedValue;
  }
  get remaining(): number | null {
    return this.limit === null ? null : Math.max(0, this.limit - this.spentValue - this.reservedValue);
  }

  fits(hold: number): boolean {
    return this.limit === null || this.spentValue + this.reservedValue + hold <= this.limit;
  }

  /** Reserve `hold`; false when it can never fit (nothing else in flight) or the signal aborted. */
  async reserve(hold: number, signal?: AbortSignal): Promise<boolean> {
    for (;;) {
      if (signal?.aborted) return false;
      if (this.fits(hold)) {
        this.reservedValue += hold;
        return true;
      }
      if (this.reservedValue === 0) return false;
      await new Promise<void>((resolve) => {
        const done = () => {
          signal?.removeEventListener('abort', done);
          resolve();
        };
        this.waiters.push(done);
        signal?.addEventListener('abort', done, { once: true });
      });
    }
  }

  /** The page finished: release its hold and count what it really cost. */
  settle(hold: number, actual: number): void {
    this.reservedValue = Math.max(0, this.reservedValue - hold);
    this.spentValue += Math.max(0, actual);
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}
