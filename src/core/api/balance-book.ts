/**
 * The balance readings of one request core (docs/request-core.md "Attributing a balance drop"):
 * each clean reading with the ledger's last row then, so that (balance before) − (balance after) −
 * (credits the ledger recorded in between) is what a lost attempt cost — when nothing else can have
 * moved it (call/attribution.ts decides). It also watches for the balance moving without a recorded
 * cause between two clean readings: an outside spender is active, and the balance is not used to
 * attribute for a while.
 */
import type { BalanceMark, Clock, CoreStore, FreeMark, JournalEntry } from '../ports';
import { attribute, attributeLate, MARK_MAX_AGE_MS, type Attribution, type AttributionInput, type LedgerReading } from './call/attribution';

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

/** A reading this core took, with what it had recorded and lost by then. */
interface Reading extends BalanceMark {
  /** credits this core had written to the ledger */
  recorded: number;
  /** lost attempts of this core so far */
  losses: number;
  /** no attempt of this core was in flight when it was read */
  clean: boolean;
}

/** A lost answer whose fate the service has not told us yet. */
export interface Lost {
  attempt: number;
  startedAt: number;
  idempotencyKey: string;
  /** the clean reading taken just before this Idempotency-Key was first sent, if any */
  before: BalanceMark | null;
  /** its charge is already in the ledger */
  settled: boolean;
  /** a free call may have covered it: none was known used up when it was sent (unknown: judged now) */
  freeMayCover?: boolean;
  /** the free calls the service last said were left before it was sent (null or absent: not known) */
  freeLeft?: FreeMark | null;
  /**
   * another process's attempt, taken over: the ledger's last row when it was (rows after it were
   * recorded after the attempt, whatever time they carry — each process has its own clock)
   */
  ledgerUpTo?: number;
}

export interface BookDeps {
  clock: Clock;
  store: Pick<CoreStore, 'ledgerHighWater' | 'ledgerCreditsSince' | 'journalAround' | 'ledgerBetween' | 'ledgerFreeSince'>;
  /** a call of this process is running now (its journal entry pending but in hand) */
  activeHere: (callId: string) => boolean;
  /** the longest an attempt can be in flight (deadline + lease margin) */
  leaseMs: () => number;
  /** introductory free calls left, when the service says */
  freeCallsLeft?: () => number | null;
}

/**
 * Whether another Loupe call (any process sharing the archive) may have been charged between two
 * readings without that being in the ledger: one still running, one of another process that
 * started before the first reading (it may have been in flight then), or an unresolved one of a
 * process that is gone (or a call of this one that gave up) whose last attempt may fall in between.
 * Calls that ran wholly in between are in the ledger; this process's finished ones too.
 */
export function othersActive(
  entries: JournalEntry[],
  from: number,
  activeHere: (callId: string) => boolean,
  leaseMs: number,
  mineAfter = false,
): boolean {
  for (const e of entries) {
    const owner = e.owner ?? 'this';
    if (e.state === 'pending') {
      const dormant = owner === 'gone' || (owner === 'this' && !activeHere(e.callId));
      // `mineAfter`: `from` is another process's reading, on its clock; this process's calls all came after it
      if (!dormant || (mineAfter && owner === 'this') || e.createdAt + leaseMs >= from) return true;
    } else if (owner !== 'this' && e.createdAt < from) return true;
  }
  return false;
}

/**
 * Whether an unresolved call of a process that is gone — or of a call of this one that gave up or was
 * cancelled — is in the journal, however old: its lost attempt may be finished (and charged) by the
 * service at any time, so a drop of the balance is not certainly this call's (simulation finding 17).
 */
export function unresolvedElsewhere(entries: JournalEntry[], activeHere: (callId: string) => boolean): boolean {
  return entries.some((e) => e.state === 'pending' && (e.owner === 'gone' || ((e.owner ?? 'this') === 'this' && !activeHere(e.callId))));
}

/** A charge the balance attributed, marked `unsure` when an unresolved call elsewhere may explain the drop. */
function doubted(a: Attribution, entries: JournalEntry[], activeHere: (callId: string) => boolean): Attribution {
  if (a.kind !== 'charged' || !unresolvedElsewhere(entries, activeHere)) return a;
  return { ...a, unsure: 'an unresolved call of a process that is gone (or gave up) may have been charged meanwhile' };
}

export class BalanceBook {
  attemptsInFlight = 0;
  /** credits this core has written to the ledger */
  recorded = 0;
  /** lost attempts so far: a movement across one is not "unexplained" */
  losses = 0;
  /** when the balance last moved between two clean readings without a recorded cause */
  outsideActivityAt: number | null = null;
  /**
   * the account's introductory free calls are certainly used up: a call priced at 100 or less under
   * every reading (its ceiling) was charged. Until then a lost answer may have been covered by one
   */
  freeCallsGone = false;
  private last: Reading | null = null;
  private firstReading: Promise<void> | undefined;

  constructor(private readonly d: BookDeps) {}

  /** A balance the service reported just now (after the ledger row of the answer carrying it). */
  mark(v: number | null): void {
    if (v === null) return;
    const cur: Reading = {
      balance: v,
      at: this.d.clock.now(),
      ledgerId: this.d.store.ledgerHighWater(),
      recorded: this.recorded,
      losses: this.losses,
      clean: this.attemptsInFlight === 0,
    };
    const prev = this.last;
    if (prev && prev.clean && cur.clean && prev.losses === cur.losses) this.watch(prev, cur);
    this.last = cur;
  }

  /** Between two clean readings with no loss in between, anything not in the ledger is an outside spender (or a top-up). */
  private watch(prev: Reading, cur: Reading): void {
    if (prev.balance - cur.balance - (cur.recorded - prev.recorded) === 0) return;
    const explained = this.d.store.ledgerCreditsSince(prev.ledgerId, prev.at);
    if (prev.balance - cur.balance - explained === 0) return; // another Loupe process: it is in the ledger
    const others = this.d.store.journalAround('', prev.at, cur.at).filter((e) => (e.owner ?? 'this') !== 'this');
    if (othersActive(others, prev.at, this.d.activeHere, this.d.leaseMs())) return;
    this.outsideActivityAt = cur.at;
  }

  /** No introductory free call can be left: one was seen charged, or the service says none is left. */
  noFreeCalls(): boolean {
    return this.freeCallsGone || this.d.freeCallsLeft?.() === 0;
  }

  /**
   * None of the free calls `mark` says were left can have covered an attempt sent after it: the
   * ledger holds at least as many free answers of attempts started since (each used one; any other
   * use, a lost answer's or another tool's, only leaves fewer).
   */
  freeUsedUp(mark: FreeMark | null | undefined): boolean {
    if (!mark) return false;
    return mark.left <= 0 || (this.d.store.ledgerFreeSince?.(mark.ledgerId, mark.at) ?? 0) >= mark.left;
  }

  /** An answer (or a reading) contradicted what the balance said: something else moved it. */
  noteOutside(): void {
    this.outsideActivityAt = this.d.clock.now();
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
   * The clean reading an Idempotency-Key about to be sent for the first time is measured from:
   * the last one when it is recent and nothing was lost since, else a new one (free; none while
   * other attempts of this core are in flight: it could not be clean).
   */
  async beforeSending(read: () => Promise<number | null>): Promise<BalanceMark | null> {
    if (this.attemptsInFlight !== 0) return null;
    const l = this.last;
    const fresh = l !== null && l.clean && l.losses === this.losses && this.d.clock.now() - l.at <= MARK_MAX_AGE_MS;
    if (!fresh) this.mark(await read());
    const m = this.last;
    if (!m || !m.clean || m.losses !== this.losses || this.attemptsInFlight !== 0) return null;
    return { balance: m.balance, at: m.at, ledgerId: m.ledgerId };
  }

  /**
   * What the balance says about a lost attempt (`lost.before` to a clean reading now), for the call
   * `callId`. The reading is taken here (free) when it can be clean.
   */
  async attribute(
    lost: Lost,
    callId: string,
    read: () => Promise<number | null>,
    call: Omit<AttributionInput, 'before' | 'after' | 'explained' | 'othersActive' | 'outsideActivityAt'>,
  ): Promise<Attribution> {
    const b = lost.before;
    if (!b) return { kind: 'unknown', why: 'no clean balance reading from just before the attempt' };
    if (this.attemptsInFlight !== 0) return { kind: 'unknown', why: 'other attempts were in flight' };
    const v = await read();
    this.mark(v);
    const now = this.last;
    const after = v !== null && now !== null && now.clean && this.attemptsInFlight === 0 ? { value: v, at: now.at } : null;
    const explained = after ? this.d.store.ledgerCreditsSince(b.ledgerId, b.at) : 0;
    const around = after ? this.d.store.journalAround(callId, b.at, after.at) : [];
    const others = after ? othersActive(around, b.at, this.d.activeHere, this.d.leaseMs()) : false;
    const attributed = attribute({
      ...call,
      before: { value: b.balance, at: b.at },
      after,
      explained,
      othersActive: others,
      outsideActivityAt: this.outsideActivityAt,
    });
    const a = doubted(attributed, around, this.d.activeHere);
    if (a.kind === 'unknown' && a.outside) this.noteOutside();
    return a.kind === 'not-charged' && after && now ? { ...a, after: { balance: after.value, at: after.at, ledgerId: now.ledgerId } } : a;
  }

  /**
   * Whether the balance has not moved since `mark` beyond what the ledger recorded (any process):
   * `value` is a later balance (an answer's `credits_remaining`), or null to read it now (free; only
   * when it can be clean). A "not charged" measured at `mark` still stands then — a lost call the
   * service charged late (after `mark` was read) would show here (simulation finding 14).
   */
  async unmovedSince(mark: BalanceMark, value: number | null, read: () => Promise<number | null>): Promise<boolean> {
    let v = value;
    if (v === null) {
      if (this.attemptsInFlight !== 0) return false;
      v = await read();
      this.mark(v);
      if (v === null || this.attemptsInFlight !== 0) return false;
    }
    return mark.balance - v - this.d.store.ledgerCreditsSince(mark.ledgerId, mark.at) === 0;
  }

  /**
   * What the balance says about a lost attempt of a process that is gone, or of a call that gave up
   * (simulation finding 8): from `lost.before` (that process's reading before the attempt) to `moved`
   * — the reading it took after the loss, before the fresh key it moved on to — or, without one, to a
   * clean reading now (free); everything the ledger recorded in between must agree
   * (call/attribution.ts `attributeLate`). A store that cannot list the ledger between two readings
   * is judged by the rule for readings close in time.
   *
   * `foreign`: the lost attempt was another process's. Its readings and journal times are on that
   * process's clock, and each process learns the service's clock on its own (a new one starts on
   * this computer's, minutes off a sandbox run faster than real time: simulation finding 20), so when
   * the second reading is taken now no time of this process is compared with one of that process: the journal's entries are taken
   * whenever they were written (this process's own only up to the reading now, on its clock), this
   * process's calls all count as after the first reading, so does any unexplained movement it saw,
   * and the ledger's rows are taken by their order, not their times — a row recorded after the first
   * reading for an attempt stamped before it (another process's call in flight then, a charge
   * inferred for an older lost attempt, or this process's clock behind) leaves the drop unexplained.
   */
  async attributeTakenOver(
    lost: Lost,
    moved: BalanceMark | null,
    callId: string,
    read: () => Promise<number | null>,
    call: Omit<AttributionInput, 'before' | 'after' | 'explained' | 'othersActive' | 'outsideActivityAt'>,
    foreign = false,
  ): Promise<Attribution> {
    const b = lost.before;
    const between = this.d.store.ledgerBetween?.bind(this.d.store);
    if (!b || !between) return this.attribute(lost, callId, read, call);
    if (this.attemptsInFlight !== 0) return { kind: 'unknown', why: 'other attempts were in flight' };
    // what this process knew before this reading (the reading itself may show the lost charge as a movement)
    const outside = this.outsideActivityAt;
    let after: BalanceMark | null = moved;
    if (!after) {
      const v = await read();
      this.mark(v);
      const now = this.last;
      after =
        v !== null && now !== null && now.clean && this.attemptsInFlight === 0 ? { balance: v, at: now.at, ledgerId: now.ledgerId } : null;
    }
    if (!after) return { kind: 'unknown', why: 'the balance could not be read cleanly after it' };
    // the first reading another process's, the second this one's: two clocks
    const cross = foreign && !moved;
    let explained = 0;
    let stampedBefore = false;
    const readings: LedgerReading[] = [];
    for (const r of between(b.ledgerId, after.ledgerId, cross ? Number.MIN_SAFE_INTEGER : b.at)) {
      if (r.startedAt < b.at) stampedBefore = true;
      explained += Math.max(0, r.creditsUsed);
      if (r.creditsRemaining !== null) readings.push({ value: r.creditsRemaining, explained });
    }
    const afterAt = after.at;
    const around = cross
      ? this.d.store
          .journalAround(callId, b.at, Number.MAX_SAFE_INTEGER)
          .filter((e) => (e.owner ?? 'this') !== 'this' || e.createdAt <= afterAt)
      : this.d.store.journalAround(callId, b.at, after.at);
    const others = othersActive(around, b.at, this.d.activeHere, this.d.leaseMs(), cross) || stampedBefore;
    const attributed = attributeLate({
      ...call,
      before: { value: b.balance, at: b.at },
      after: { value: after.balance, at: after.at },
      explained,
      between: readings,
      othersActive: others,
      // any unexplained movement this process saw came after another process's reading
      outsideActivityAt: cross && outside !== null ? Math.max(outside, b.at) : outside,
    });
    const a = doubted(attributed, around, this.d.activeHere);
    if (a.kind === 'unknown' && a.outside) this.noteOutside();
    return a.kind === 'not-charged' ? { ...a, after } : a;
  }
}
