/**
 * Lost answers (docs/request-core.md "Which Idempotency-Key a retry uses"): the key the next
 * attempt sends, and the charge a later answer proves the lost one cost.
 */
import { NATIVE_PAGING_PARAMS } from '../../../shared/api-types';
import type { BalanceMark, FreeMark, LedgerEntry } from '../../ports';
import type { BalanceBook, Lost } from '../balance-book';
import { FREE_CALL_PRICE, insideWindow, keyAfterLoss, type Attribution, type Price } from './attribution';

/** what the loss rules need to know about the call */
export interface LossCall {
  callId: string;
  ttlSeconds: number;
  noCache: boolean;
  price: Price;
  pages: number;
  /** the reserved ceiling (the hold) */
  ceiling: number;
}

/** What is known about the call's unresolved lost attempt. */
export interface LossState {
  lost: Lost;
  /** what the balance said when the loss was found */
  attribution: Attribution;
  /** the same key was kept because the balance attributed a charge (a free replay expected) */
  keptOnBalance: boolean;
}

type Read = () => Promise<number | null>;

/** After a lost attempt (or an unresolved one found in the journal): the next attempt's key. */
export async function afterLoss(
  book: BalanceBook,
  read: Read,
  call: LossCall,
  lost: Lost,
  now: () => number,
): Promise<LossState & { key: 'same' | 'fresh' }> {
  const attribution = await book.attribute(lost, call.callId, read, call);
  const key = keyAfterLoss({
    insideWindow: insideWindow(call.ttlSeconds, lost.startedAt, now(), call.noCache),
    ceiling: call.ceiling,
    floor: call.price.min,
    attribution,
  });
  return { lost, attribution, keptOnBalance: key === 'same' && attribution.kind === 'charged' && call.ceiling > call.price.min, key };
}

/**
 * A lost attempt of a process that is gone (or of a call that gave up), taken over: judged by the
 * balance from that process's reading before it to `moved` (its reading after the loss, when it had
 * moved on to a fresh key) or to now (simulation finding 8), then the same key rule.
 */
export async function afterTakeover(
  book: BalanceBook,
  read: Read,
  call: LossCall,
  lost: Lost,
  moved: BalanceMark | null,
  now: () => number,
  foreign = false,
): Promise<LossState & { key: 'same' | 'fresh' }> {
  const attribution = await book.attributeTakenOver(lost, moved, call.callId, read, call, foreign);
  const key = keyAfterLoss({
    insideWindow: insideWindow(call.ttlSeconds, lost.startedAt, now(), call.noCache),
    ceiling: call.ceiling,
    floor: call.price.min,
    attribution,
  });
  return { lost, attribution, keptOnBalance: key === 'same' && attribution.kind === 'charged' && call.ceiling > call.price.min, key };
}

/**
 * An introductory free call may have covered the call: some may remain — none was known used up when
 * it was sent (`then`), and the ledger does not hold as many free answers since the service last said
 * how many were left before it was sent (`left`) — and it can be priced at 100 or less.
 */
export function mayBeFree(book: BalanceBook, call: Pick<LossCall, 'price'>, then?: boolean, left?: FreeMark | null): boolean {
  return (then ?? !book.noFreeCalls()) && !book.freeUsedUp(left) && call.price.min <= FREE_CALL_PRICE;
}

/**
 * Whether the account owned the exact request when a lost attempt started at `lostAt` was sent, as
 * the ledger's rows of it show, under every reading the spec allows of where a cache window starts
 * (spec "Caching": "repeating the exact same call inside the endpoint's window is free" — from when
 * is not said; docs/request-core.md "Where a cache window starts"):
 *  - `fetch` (the sandbox's default): the shared cache entry's window, from its fetch — for a charged
 *    miss this account's purchase; for a 2-credit shared-cache read someone's fetch up to a window
 *    earlier (not known);
 *  - `purchase` (`cache-window-purchase`): the account's own, from its purchase (a miss, a shared
 *    read, a free call, an inferred charge);
 *  - `slides` (`cache-window-slides`): the account's own, restarted by every free repeat (an owner
 *    read or a replay).
 * `owned`: under every reading (a miss bought inside its window, less the margin) — the lost attempt,
 * had it finished, was an owner read; `not`: under none (no answer of the request, purchase or free
 * repeat, whose window plus the margin reaches `lostAt`) — it was a purchase; `depends`: the readings
 * disagree (a free repeat or a shared read inside its window while no miss is: simulation finding 23),
 * and only the balance can tell. An answer read from the cache or replayed opens no window under
 * `fetch` and `purchase` (simulation finding 22). No window (`ttlSeconds` 0): `not`. `upTo`: for
 * another process's attempt taken over, the ledger's last row then — a row recorded later (this
 * call's own answer, stamped on this process's clock, which may be behind that process's: simulation
 * finding 20) proves nothing.
 */
export type Ownership = 'owned' | 'not' | 'depends';

export function ownership(rows: LedgerEntry[], lostAt: number, lostKey: string, ttlSeconds: number, upTo?: number): Ownership {
  const windowMs = ttlSeconds * 1000;
  if (!(windowMs > 0)) return 'not';
  const margin = Math.min(60_000, windowMs * 0.1);
  let depends = false;
  for (const r of rows) {
    if (r.idempotencyKey === lostKey || (upTo !== undefined && r.id !== undefined && r.id > upTo) || r.dryRun) continue;
    if (r.startedAt + r.durationMs > lostAt) continue;
    const inferred = r.chargeReason?.startsWith('inferred:') === true;
    const answered = r.errorType === null && r.status !== null && r.status < 300;
    if (!inferred && !answered) continue;
    const age = lostAt - r.startedAt;
    if (age >= windowMs + margin) continue; // no reading's window reaches the lost attempt
    const miss = inferred || (!r.cached && !r.idempotentReplay && (r.creditsUsed > 0 || r.freeCall));
    if (miss && age < windowMs - margin) return 'owned';
    // a purchase near its window's end (the clocks' margin), a shared read whose fetch is not known,
    // or a free repeat (a window under `slides` only): some readings own it, others do not
    depends = true;
  }
  return depends ? 'depends' : 'not';
}

/** Owned under every reading of the window's start (see `ownership`). */
export function ownedAt(rows: LedgerEntry[], lostAt: number, lostKey: string, ttlSeconds: number, upTo?: number): boolean {
  return ownership(rows, lostAt, lostKey, ttlSeconds, upTo) === 'owned';
}

/** the parameters that say where a list is read (Pagination rules 1 and 5) */
const PAGING = new Set<string>(['cursor', ...NATIVE_PAGING_PARAMS]);

/** The call reads a list at a page named by a paging parameter (a cursor, a native token, a page). */
export function readsAtPage(params: Record<string, string>): boolean {
  return Object.keys(params).some((k) => PAGING.has(k));
}

/** A successful answer after the loss. */
export interface Answer {
  /** a replay of the lost attempt's key */
  replay: boolean;
  /** a free owner read with a fresh key: the account owns the exact call (the lost one finished) */
  ownerRead: boolean;
  /** a fresh key inside the window that says it was not read from the cache: the lost one never finished */
  ownedNot: boolean;
  /** the catalogue, read again, no longer states a window covering the lost attempt (finding 16) */
  windowGone?: () => Promise<boolean>;
  creditsRemaining: number | null;
  /**
   * whether the account owned the exact call inside its window before the lost attempt was sent (the
   * ledger holds an answer of it), under every reading of the window's start (`owned`: the lost
   * attempt was itself an owner read, and cost nothing), none (`not`), or some (`depends`)
   */
  ownedBefore?: () => Promise<Ownership>;
  /**
   * the account owned a page of the same list under another cursor inside the window when the lost
   * attempt was sent (simulation finding 19): a service whose cache knows a page by its position
   * answers the fresh key as an owner read whether or not the lost attempt finished
   */
  listOwned?: () => Promise<boolean>;
}

/**
 * The lost attempt's charge a successful answer proves or the balance attributes, or null when it
 * was not charged (or nothing can tell). A replay or an owner read proves the lost attempt
 * *finished*, not that it was charged: it finished free when a free call may have covered it, when
 * the balance said it cost nothing (and has not moved unrecorded since: a late charge would show),
 * or when the account owned the exact call before it was sent (simulation finding 14). Otherwise a
 * proof with a balance that could not attribute the amount records the least it can have cost: one
 * page at the floor (`price`) — never another spender's credits — unless the account owned a page of
 * the same list under another cursor, which can explain the owner read as well (`unsure`, 0:
 * nothing recorded; simulation finding 19).
 */
export async function chargeOfLoss(
  book: BalanceBook,
  read: Read,
  call: LossCall,
  s: LossState,
  a: Answer,
): Promise<{ credits: number; how: 'balance' | 'price' | 'free' | 'unsure'; why?: 'window' | 'list' } | null> {
  let owned: Promise<Ownership> | undefined;
  const ownedBefore = () => (owned ??= !call.noCache && a.ownedBefore ? a.ownedBefore() : Promise.resolve<Ownership>('not'));
  if (a.replay || a.ownerRead) {
    // an owner read of a call the account owned inside its window before the lost attempt was sent:
    // the lost attempt, had it finished, was an owner read too and cost nothing — a drop the balance
    // showed was someone else's (simulation finding 21). Owned under some readings of the window only
    // (finding 23): the balance decides below
    if (a.ownerRead && (await ownedBefore()) === 'owned') {
      if (s.attribution.kind === 'charged') book.noteOutside();
      return null;
    }
    if (s.attribution.kind === 'charged') return { credits: s.attribution.credits, how: 'balance' };
    // finished, but while free calls may remain one may have covered it: the least it cost is 0
    // (and a balance that did not move agrees). Where the service said how many were left before
    // it was sent, the free call it is taken to have used is recorded (`inferred:free`, 0 credits):
    // the ledger's free answers since count it, so once they are as many as were left, the next
    // lost answer judged is charged — a run killed with several answers on their way records each
    // free call once, the rest at their price (which of them had it, nothing tells; the sum is right)
    if (mayBeFree(book, call, s.lost.freeMayCover, s.lost.freeLeft)) return s.lost.freeLeft ? { credits: 0, how: 'free' } : null;
    const not = s.attribution.kind === 'not-charged' ? s.attribution.after : undefined;
    // it finished free: an owner read of a call the account already owned (a page bought before,
    // perhaps under another cursor), which the balance read around it shows
    if (not && (await book.unmovedSince(not, a.creditsRemaining, read))) return null;
    const o = await ownedBefore();
    if (o === 'owned') return null;
    // owned under some readings of where the window starts and not under others (a free repeat
    // inside its window, a shared read, a purchase at the window's edge: finding 23): had it
    // finished, the lost attempt was an owner read (free) or a purchase (charged), and neither the
    // balance (above) nor the ledger tells which — nothing is recorded, rather than a guess either way
    if (o === 'depends') return { credits: 0, how: 'unsure', why: 'window' };
    if (s.attribution.kind === 'not-charged') book.noteOutside(); // the balance said otherwise: something else moved it
    // a page of the same list owned under another cursor may be this very page (the service may know
    // a page by its position, or by the exact call): the owner read has two explanations, and neither
    // the balance nor the ledger tells them apart — nothing is recorded (finding 19)
    if (!call.noCache && a.listOwned && (await a.listOwned())) return { credits: 0, how: 'unsure', why: 'list' };
    return { credits: call.price.min, how: 'price' };
  }
  if (a.ownedNot) {
    // "not from the cache" says the lost one never finished only where the service honours the window
    // (finding 16: without windows a fresh key answers `cached: false` either way). Where the balance
    // attributes a charge cleanly the two disagree: the catalogue is read again, and when it no longer
    // states the window the balance stands
    const clean = s.attribution.kind === 'charged' && !s.attribution.late && !s.attribution.unsure;
    if (clean && s.attribution.kind === 'charged' && (await a.windowGone?.())) return { credits: s.attribution.credits, how: 'balance' };
    if (s.attribution.kind === 'charged') book.noteOutside();
    return null;
  }
  if (s.keptOnBalance) {
    // the same key was charged as a new call: the original never finished, the drop was someone else's
    book.noteOutside();
    return null;
  }
  // a charge the balance attributed across readings far apart (a dead process's), or with another
  // movement that may explain it (finding 17): recorded, its key was not kept on that word (a fresh key
  // outside any window proves nothing either way)
  if (s.attribution.kind === 'charged' && (s.attribution.late || s.attribution.unsure))
    return { credits: s.attribution.credits, how: 'balance' };
  // no proof either way (a fresh key outside any window): the balance after this answer may tell
  const again = await book.attribute(
    s.lost,
    call.callId,
    a.creditsRemaining !== null ? () => Promise.resolve(a.creditsRemaining) : read,
    call,
  );
  return again.kind === 'charged' ? { credits: again.credits, how: 'balance' } : null;
}
