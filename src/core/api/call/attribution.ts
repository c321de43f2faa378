/**
 * What the balance says about a lost answer, and only when it can say it (issue 24 #5;
 * docs/request-core.md "Attributing a balance drop"). Pure: the readings, the ledger's and the
 * journal's answers are inputs.
 *
 * A drop of the account's balance between a clean reading taken just before the lost attempt and
 * one taken after it is this call's charge only when nothing else can have moved it:
 *  - both readings clean (no attempt of this process in flight when read), close in time
 *    (≤ MAX_SPAN_MS: a longer gap leaves more room for a spender Loupe cannot see);
 *  - every Loupe call sharing the archive in between is accounted for: their charges are in the
 *    ledger (subtracted), and none was in flight at either reading or is still unresolved;
 *  - this process saw no unexplained movement of the balance recently (an outside spender is
 *    active: the balance is not trusted for QUIET_MS);
 *  - the rest is a legal charge for this call (0; a multiple of a fixed price within the pages; a
 *    metered amount within the floor and the ceiling; the 2-credit shared-cache read).
 * Remaining limit: a spender Loupe cannot see who spends exactly a legal amount between the two
 * readings (about one attempt's duration) is taken for this call's charge.
 */

/** A balance reading: the service's figure and when it was read. */
export interface Reading {
  value: number;
  at: number;
}

/** the longest time between the two readings for a drop to be attributed */
export const MAX_SPAN_MS = 3 * 60_000;
/** after an unexplained movement of the balance, the balance is not used to attribute for this long */
export const QUIET_MS = 10 * 60_000;
/** a reading older than this before a key is first sent is taken again (free) */
export const MARK_MAX_AGE_MS = 5_000;
/** the price of a shared-cache read for a caller who does not own the answer (spec Limits rule 7) */
export const SHARED_READ = 2;
/** introductory free calls cover calls "priced at 100 credits or less" (spec Limits) */
export const FREE_CALL_PRICE = 100;

export interface Price {
  min: number;
  max: number;
}

export interface AttributionInput {
  before: Reading | null;
  after: Reading | null;
  /** credits the ledger recorded (any process) for attempts started between the readings */
  explained: number;
  /** another Loupe call (any process) was in flight at a reading, or is still unresolved */
  othersActive: boolean;
  /** when this process last saw the balance move without a recorded cause (null: never) */
  outsideActivityAt: number | null;
  price: Price;
  /** pages the call may read (max_pages × scan_pages) */
  pages: number;
  /** the reserved ceiling: the hold */
  ceiling: number;
  noCache: boolean;
}

export type Attribution =
  /**
   * `late`: measured across readings further apart than MAX_SPAN_MS (a dead process's call taken over);
   * `unsure`: another movement may explain the drop (an unresolved call of a process that is gone, or
   * of a call that gave up: the service may finish and charge it at any time). Either is recorded, but
   * never a reason to keep the key (simulation finding 17)
   */
  | { kind: 'charged'; credits: number; late?: boolean; unsure?: string }
  /** `after`: the reading it was measured to (the balance book's), for a later answer to confirm it */
  | { kind: 'not-charged'; after?: { balance: number; at: number; ledgerId: number } }
  /** `outside`: the figures themselves show another cause (a top-up, another spender) */
  | { kind: 'unknown'; why: string; outside?: boolean };

/** Whether `credits` is an amount this call can have been charged. */
export function legalCharge(credits: number, price: Price, pages: number, ceiling: number, noCache: boolean): boolean {
  if (!Number.isInteger(credits) || credits < 0) return false;
  if (credits === 0) return true;
  if (!noCache && credits === SHARED_READ) return true;
  const top = Math.max(ceiling, price.max * pages);
  if (price.min === price.max) return credits % price.min === 0 && credits <= top;
  return credits >= price.min && credits <= top;
}

export function attribute(i: AttributionInput): Attribution {
  const b = i.before;
  const a = i.after;
  if (!b) return { kind: 'unknown', why: 'no clean balance reading from just before the attempt' };
  if (!a) return { kind: 'unknown', why: 'the balance could not be read cleanly after it' };
  if (a.at - b.at > MAX_SPAN_MS) return { kind: 'unknown', why: 'the readings are too far apart' };
  if (i.outsideActivityAt !== null && a.at - i.outsideActivityAt < QUIET_MS)
    return { kind: 'unknown', why: 'the balance moved without a recorded cause recently' };
  if (i.othersActive) return { kind: 'unknown', why: 'other Loupe calls were running' };
  const drop = b.value - a.value - i.explained;
  if (drop === 0) return { kind: 'not-charged' };
  if (!legalCharge(drop, i.price, i.pages, i.ceiling, i.noCache))
    return { kind: 'unknown', why: `the balance moved by ${drop}, not a charge this call can make`, outside: true };
  return { kind: 'charged', credits: drop };
}

/** A balance the ledger recorded between two readings, with the credits recorded from the first reading up to it. */
export interface LedgerReading {
  value: number;
  explained: number;
}

/**
 * What the balance says about a lost attempt of a process that is gone (or a call that gave up),
 * judged later (simulation finding 8): the readings may be far apart — the dead process's own reading
 * before the attempt, and one taken after it (by that process when it moved on to a fresh key, else
 * now) — so instead of a time limit, everything recorded between them must agree:
 *  - no other Loupe call was running or unresolved in between, and this process saw no unexplained
 *    movement of the balance since the first reading;
 *  - every balance an answer carried in between (the ledger's, any process) shows either nothing
 *    unexplained yet or exactly the drop: a top-up or another spender seen in between tells;
 *  - the drop is a legal charge for the call.
 * A charge found across readings further apart than MAX_SPAN_MS is `late`: recorded in the ledger,
 * but never a reason to keep the key where the same key could pay the ceiling.
 */
export function attributeLate(i: AttributionInput & { between: LedgerReading[] }): Attribution {
  const b = i.before;
  const a = i.after;
  if (!b) return { kind: 'unknown', why: 'no clean balance reading from just before the attempt' };
  if (!a) return { kind: 'unknown', why: 'the balance could not be read cleanly after it' };
  if (i.outsideActivityAt !== null && i.outsideActivityAt >= b.at)
    return { kind: 'unknown', why: 'the balance moved without a recorded cause since' };
  if (i.othersActive) return { kind: 'unknown', why: 'other Loupe calls were running' };
  const drop = b.value - a.value - i.explained;
  let seen = 0;
  for (const r of i.between) {
    const unexplained = b.value - r.value - r.explained;
    if ((unexplained !== 0 && unexplained !== drop) || (seen !== 0 && unexplained !== seen))
      return { kind: 'unknown', why: `a balance read in between moved by ${unexplained} unrecorded, not 0 or ${drop}`, outside: true };
    seen = unexplained;
  }
  if (drop === 0) return { kind: 'not-charged' };
  if (!legalCharge(drop, i.price, i.pages, i.ceiling, i.noCache))
    return { kind: 'unknown', why: `the balance moved by ${drop}, not a charge this call can make`, outside: true };
  return a.at - b.at > MAX_SPAN_MS ? { kind: 'charged', credits: drop, late: true } : { kind: 'charged', credits: drop };
}

/** What a lost attempt's retry sends, by docs/request-core.md's table. */
export interface LossContext {
  /** the exact call is owned inside the endpoint's cache window (measured from the lost attempt), no `no-cache` */
  insideWindow: boolean;
  ceiling: number;
  /** the least a fresh call can be charged: one page at the floor */
  floor: number;
  attribution: Attribution;
}

/**
 * The cheapest legal retry after a lost answer (reading A: never finished; B: finished and charged):
 *  - inside the window a fresh key dominates: A → the price, B → a free owner read (which also proves
 *    the charge); the same key would risk the ceiling under A for nothing;
 *  - outside it the same key costs the ceiling under A and nothing under B; a fresh key the price
 *    under either. The same key is taken when the ceiling is no more than the cheapest fresh call
 *    (a fixed-price single page: never worse), or when the balance attributes a charge across
 *    readings close in time (not `late`) that no other movement Loupe knows of can explain (not
 *    `unsure`: simulation finding 17); otherwise a fresh key, whose worst case is the price — never
 *    the ceiling.
 */
export function keyAfterLoss(c: LossContext): 'same' | 'fresh' {
  if (c.insideWindow) return 'fresh';
  if (c.ceiling <= c.floor) return 'same';
  const a = c.attribution;
  return a.kind === 'charged' && !a.late && !a.unsure ? 'same' : 'fresh';
}

/** Inside the endpoint's window (with a margin: the retry must arrive before it ends), no `no-cache`. */
export function insideWindow(ttlSeconds: number, lostAt: number, now: number, noCache: boolean): boolean {
  const windowMs = ttlSeconds * 1000;
  const margin = Math.min(60_000, windowMs * 0.1);
  return !noCache && windowMs > 0 && now - lostAt < windowMs - margin;
}
