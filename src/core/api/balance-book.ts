/**
 * What the balance says about a lost answer (docs/request-core.md, "Which Idempotency-Key a retry
 * uses"): this core's clean balance readings and the credits it recorded since, so that
 * (balance before) − (balance now) − (recorded in between) is what a lost attempt cost — read only
 * when nothing else of this core was in flight at either end.
 */

/** A balance figure from GET /v1/credits, whose fields the spec does not show. */
export function balanceFigure(o: Record<string, unknown>): number | null {
  const cands = [o, (o.data ?? {}) as Record<string, unknown>];
  for (const c of cands) {
    for (const f of ['credits_remaining', 'balance', 'remaining', 'credits']) {
      const v = c[f];
      if (typeof v === 'number' && Number.isFinite(v)) return v;
    }
  }
  return null;
}

/** A balance the service reported, with the credits this core had recorded by then. */
export interface BalanceMark {
  value: number;
  recorded: number;
  /** no attempt of this core was in flight when it was read (it reflects every recorded charge and no other) */
  clean: boolean;
  /**
   * other lost attempts may have moved the balance since (an earlier process left several pending):
   * only a movement of 0 can be read (none of them was charged); any other is not this one's alone
   */
  shared?: boolean;
}

/** A lost answer whose fate the service has not told us yet. */
export interface Lost {
  attempt: number;
  startedAt: number;
  idempotencyKey: string;
  /** the last clean balance before it started, if nothing else of this core was in flight then */
  before: BalanceMark | null;
  /** its charge is already in the ledger (read from the balance) */
  settled: boolean;
}

export class BalanceBook {
  attemptsInFlight = 0;
  /** credits this core has written to the ledger */
  recorded = 0;
  private last: BalanceMark | null = null;
  /** the balance this process found on disk before reading any itself: what a killed process last saw */
  private boot: { creditsRemaining: number; at: number } | null | undefined;
  /** when this core first called (its clock), and how many lost attempts earlier processes had left pending then */
  private bootAt = 0;
  private bootPending = 0;
  private firstReading: Promise<void> | undefined;

  /** A balance the service reported just now. */
  mark(v: number | null): void {
    if (v !== null) this.last = { value: v, recorded: this.recorded, clean: this.attemptsInFlight === 0 };
  }

  /** The mark a lost attempt starting now would be measured from (null when others are in flight). */
  beforeAttempt(): BalanceMark | null {
    return this.attemptsInFlight === 0 && this.last?.clean ? { ...this.last } : null;
  }

  /** Once per process, before the first charged call: a clean starting balance. */
  async ensureReading(read: () => Promise<number | null>): Promise<void> {
    if (this.last !== null) return;
    this.firstReading ??= read().then((v) => {
      if (this.last === null && this.attemptsInFlight === 0) this.mark(v);
    });
    await this.firstReading;
  }

  /**
   * Remember what the disk said before this process read anything (call before any reading; read
   * once), when that was, and how many lost attempts earlier processes left pending.
   */
  noteBoot(stored: () => { creditsRemaining: number; at: number } | undefined, now: number, pending: () => number): void {
    if (this.boot !== undefined) return;
    this.boot = stored() ?? null;
    this.bootAt = now;
    this.bootPending = this.boot ? pending() : 0;
  }

  /**
   * The dead process's last balance, if it was read before an attempt sent at `sentAt` by that
   * process (an attempt this process lost was measured, or not, when it was lost: the disk's figure
   * says nothing of it). Shared when that process left several lost attempts pending.
   */
  bootMark(sentAt: number): BalanceMark | null {
    if (!this.boot || this.boot.at > sentAt || sentAt >= this.bootAt) return null;
    return { value: this.boot.creditsRemaining, recorded: 0, clean: true, shared: this.bootPending > 1 };
  }

  /**
   * What the balance says a lost attempt cost, or null when it cannot be read or makes no sense (a
   * top-up, another program spending, more than the call could cost).
   */
  movedSince(lost: Lost, now: number | null, ceiling: number): number | null {
    const b = lost.before;
    if (!b || !b.clean || now === null || this.attemptsInFlight !== 0) return null;
    const moved = b.value - now - (this.recorded - b.recorded);
    if (b.shared && moved !== 0) return null;
    return Number.isInteger(moved) && moved >= 0 && moved <= ceiling ? moved : null;
  }

  /**
   * The original's charge, for a lost answer the service turns out to have charged: what the
   * balance moved when it can tell, else the least it can have cost (one page at the floor: a
   * multi-page call bills the pages it walked).
   */
  lostCharge(lost: Lost, after: number | null, price: { min: number; max: number }, pages: number): { credits: number; how: 'balance' | 'price' } {
    const moved = this.movedSince(lost, after, price.max * pages);
    if (moved !== null) return { credits: moved, how: 'balance' };
    return { credits: price.min, how: 'price' };
  }
}
