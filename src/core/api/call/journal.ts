/**
 * The idempotency journal of one call (docs/request-core.md "Pipeline of one call", step 5): a new
 * entry with a fresh Idempotency-Key, the entry of the same operation reused (an answered one
 * replays free; an unresolved one decides its key by the lost-answer rule), or an unresolved entry
 * of a dead process — or of a call of this one that gave up — for the same request taken over
 * (issue 24 #11: a crash must not make the next run pay again).
 */
import { randomUUID } from 'node:crypto';
import type { FreeMark, JournalEntry, LedgerEntry } from '../../ports';
import type { BalanceBook, Lost } from '../balance-book';
import { insideWindow } from './attribution';
import { afterTakeover, type LossCall, type LossState } from './loss';

/** calls running in this process now (their journal entries are pending but in hand) */
const running = new Set<string>();
export const activeHere = (callId: string): boolean => running.has(callId);
export function holdEntry(callId: string): () => void {
  running.add(callId);
  return () => running.delete(callId);
}

export interface OpenedJournal {
  journal: JournalEntry;
  /** the entry must be written (again) before the next attempt */
  needJournal: boolean;
  /** a done entry: its key replays the answer free */
  answered: boolean;
  /** an unresolved lost attempt riding on this call */
  loss: LossState | null;
  /** the entry whose key this call keeps (sent by an earlier call or process): replays go to the API key it names */
  inherited: JournalEntry | null;
}

export interface JournalDeps {
  book: BalanceBook;
  read: () => Promise<number | null>;
  now: () => number;
  find: (opKey: string) => JournalEntry | undefined;
  pending: () => JournalEntry[];
  /** the ledger rows of a call (which of its attempts were lost) */
  ledgerOf?: (callId: string) => LedgerEntry[];
  /** writes an entry (a stranded one, released from its operation) */
  release?: (e: JournalEntry) => void;
  /** the ledger's highest row id */
  highWater?: () => number;
}

/** answers that broke on the way: the service may have finished (and charged) them */
const LOST_ROW = new Set(['NETWORK_TIMEOUT', 'NETWORK_MID_BODY', 'NETWORK_BAD_JSON']);

/**
 * The lost attempt an unresolved entry stands for: the earliest one the ledger shows broken and
 * unsettled (no inferred row under its key) when that is not the entry's own key — the process
 * moved on to a fresh key after it (and may have died before or while sending that one), and a
 * broken answer is the one the service may have charged. Null: the entry's own key.
 */
export function earlierLoss(rows: LedgerEntry[], current: string): LedgerEntry | null {
  const first = unsettledLosses(rows)[0];
  return first && first.idempotencyKey !== current ? first : null;
}

/** The broken attempts of a call whose charge no inferred row has settled, earliest first (one per key). */
export function unsettledLosses(rows: LedgerEntry[]): LedgerEntry[] {
  const settled = new Set(rows.filter((r) => r.chargeReason?.startsWith('inferred:')).map((r) => r.idempotencyKey));
  const lost = rows.filter(
    (r) => r.errorType !== null && LOST_ROW.has(r.errorType) && r.idempotencyKey !== null && !settled.has(r.idempotencyKey),
  );
  const keys = new Set<string | null>();
  return lost
    .sort((a, b) => a.startedAt - b.startedAt || a.attempt - b.attempt)
    .filter((r) => !keys.has(r.idempotencyKey) && keys.add(r.idempotencyKey));
}

/** A delivered answer to `key` is in the ledger (status 2xx, no error, not a dry run). */
export function answeredUnder(rows: LedgerEntry[], key: string): boolean {
  return rows.some((r) => r.idempotencyKey === key && r.errorType === null && r.status !== null && r.status < 300 && !r.dryRun);
}

/**
 * Whether a free call could cover a dead process's lost attempt, as that process knew it when it sent
 * the key (simulation finding 10: judged now, the last free call — used by that very attempt — looks
 * gone, and a charge the service never made was inferred at the price). Unknown (an entry written
 * before this was kept): judged now.
 */
function freeThen(v: boolean | null | undefined, left: FreeMark | null | undefined): { freeMayCover?: boolean; freeLeft?: FreeMark } {
  return { ...(typeof v === 'boolean' ? { freeMayCover: v } : {}), ...(left ? { freeLeft: left } : {}) };
}

export interface JournalCall extends Omit<LossCall, 'callId'> {
  opKey: string | undefined;
  platform: string;
  endpoint: string;
  params: string;
  paramsHash: string;
}

/**
 * The newest unresolved entry for the same request that no running call holds: one of a process
 * that is gone, or of a call of this process that gave up. Never one of another live process (it
 * may be in flight there) or of an unknown one.
 */
export function adoptable(
  entries: JournalEntry[],
  c: { platform: string; endpoint: string; paramsHash: string },
  here: (callId: string) => boolean,
): JournalEntry | undefined {
  return entries
    .filter((e) => e.state === 'pending' && e.platform === c.platform && e.endpoint === c.endpoint && e.paramsHash === c.paramsHash)
    .filter((e) => !here(e.callId) && (e.owner === 'gone' || (e.owner ?? 'this') === 'this'))
    .sort((a, b) => b.createdAt - a.createdAt)[0];
}

/**
 * The lost attempt an unresolved entry stands for: the entry's key, or the earlier broken attempt it
 * moved on from — measured from the reading taken before that attempt's key (kept with the entry as
 * `lossBefore`) to the one the entry's key was sent after (`before`, taken after the loss) when it is
 * the only unresolved one (two losses between the same readings cannot be told apart) — with whether
 * a free call could cover it when it was sent.
 */
export function lostOfEntry(pending: JournalEntry, rows: LedgerEntry[]): { earlier: LedgerEntry | null; lost: Lost } {
  const earlier = earlierLoss(rows, pending.idempotencyKey);
  if (!earlier)
    return {
      earlier,
      lost: {
        attempt: 0,
        startedAt: pending.createdAt,
        idempotencyKey: pending.idempotencyKey,
        before: pending.before ?? null,
        settled: false,
        ...freeThen(pending.freeMayCover, pending.freeLeft),
      },
    };
  const alone = unsettledLosses(rows).filter((r) => r.idempotencyKey !== pending.idempotencyKey).length === 1;
  return {
    earlier,
    lost: {
      attempt: earlier.attempt,
      startedAt: earlier.startedAt,
      idempotencyKey: earlier.idempotencyKey as string,
      before: alone && pending.before ? (pending.lossBefore ?? null) : null,
      settled: false,
      ...freeThen(pending.lossFreeMayCover, pending.lossFreeLeft),
    },
  };
}

/**
 * A taken-over lost attempt whose charge nothing will tell (simulation finding 13): the balance could
 * not, and the retry is a fresh key outside any window — charged either way, never an owner read, so
 * no proof. Settling the entry would drop a charge the service may have made from view; it stays
 * pending instead (`loupe credits --reconcile` shows the gap), and a later run of the request judges
 * it again — once the balance can tell (nothing else unresolved in between), its charge is recorded.
 */
function undecidable(s: { key: 'same' | 'fresh'; attribution: { kind: string } }, c: JournalCall, lostAt: number, now: number): boolean {
  return s.key === 'fresh' && s.attribution.kind === 'unknown' && !insideWindow(c.ttlSeconds, lostAt, now, c.noCache);
}

/** An entry whose key was answered: the same key replays the answer free, what it cost is in the ledger. */
function answeredEntry(pending: JournalEntry, opKey: string): OpenedJournal {
  const { owner: _o, ...entry } = pending;
  return { journal: { ...entry, opKey }, needJournal: true, answered: true, loss: null, inherited: pending };
}

export async function openJournal(d: JournalDeps, c: JournalCall): Promise<OpenedJournal> {
  const opKey = c.opKey ?? `call:${randomUUID()}`;
  const prior = c.opKey ? d.find(opKey) : undefined;
  const same = prior && prior.state !== 'failed' && prior.paramsHash === c.paramsHash ? prior : undefined;
  // pending under this operation but sent with other params (a dead process asked the page another
  // way, e.g. another max_pages): its lost attempt may have been charged, and this call cannot replay
  // it — it stays pending, released from the operation, for the identical request to take over
  // (simulation finding 11; before, this call took its callId and the charge was forgotten)
  const stranded = prior && !same && prior.state === 'pending' && adoptable([prior], prior, activeHere) ? prior : undefined;
  if (stranded) d.release?.({ ...stranded, opKey: `released:${randomUUID()}` });
  // answered before (the process stopped before using it): the same key replays it free
  if (same?.state === 'done') return { journal: same, needJournal: false, answered: true, loss: null, inherited: same };
  // pending: an attempt was in flight when its process stopped or gave up — its fate is unknown
  const pending = same ?? (prior ? undefined : adoptable(d.pending(), c, activeHere));
  if (pending) {
    // claimed at once: another call of this process for the same request must not take it over too
    // while the balance is read (the caller's holdEntry keeps it, and lets it go when the call ends)
    const claimed = !running.has(pending.callId);
    running.add(pending.callId);
    const rows = d.ledgerOf?.(pending.callId) ?? [];
    const { earlier, lost } = lostOfEntry(pending, rows);
    // its key's answer is recorded (the process stopped before marking it done): nothing was lost
    if (!earlier && answeredUnder(rows, pending.idempotencyKey)) return answeredEntry(pending, opKey);
    // another process's: its times are on its clock, not this one's (simulation finding 20)
    const foreign = (pending.owner ?? 'this') !== 'this';
    if (foreign && d.highWater) lost.ledgerUpTo = d.highWater();
    let s;
    try {
      const moved = earlier ? (pending.before ?? null) : null;
      s = await afterTakeover(d.book, d.read, { ...c, callId: pending.callId }, lost, moved, d.now, foreign);
    } catch (e) {
      if (claimed) running.delete(pending.callId);
      throw e;
    }
    const { owner: _owner, ...entry } = pending;
    // nothing this call can get will tell (finding 13): the entry stays pending, for a later run to judge
    if (d.release && undecidable(s, c, lost.startedAt, d.now())) {
      if (claimed) running.delete(pending.callId);
      d.release({ ...entry, opKey: `released:${randomUUID()}` });
      return { journal: newEntry(c, opKey, randomUUID(), d.now()), needJournal: true, answered: false, loss: null, inherited: null };
    }
    // taken over: the entry answers to this call's operation from now on; a kept key is the lost
    // attempt's (replayed on the API key that sent it)
    const journal: JournalEntry = { ...entry, opKey };
    if (earlier)
      Object.assign(journal, {
        idempotencyKey: lost.idempotencyKey,
        keyName: earlier.keyName ?? null,
        createdAt: lost.startedAt,
        before: lost.before,
        lossBefore: null,
        freeMayCover: lost.freeMayCover ?? null,
        lossFreeMayCover: null,
        freeLeft: lost.freeLeft ?? null,
        lossFreeLeft: null,
      });
    // a fresh key: the lost attempt's reading goes with the entry, for a process that takes it over in turn
    if (s.key === 'fresh')
      Object.assign(journal, {
        idempotencyKey: randomUUID(),
        createdAt: d.now(),
        keyName: null,
        before: undefined,
        lossBefore: lost.before,
        freeMayCover: undefined,
        lossFreeMayCover: lost.freeMayCover ?? null,
        freeLeft: undefined,
        lossFreeLeft: lost.freeLeft ?? null,
      });
    return {
      journal,
      needJournal: s.key === 'fresh' || pending !== same || earlier !== null,
      answered: false,
      loss: s,
      inherited: s.key === 'same' ? { ...pending, idempotencyKey: journal.idempotencyKey, keyName: journal.keyName } : null,
    };
  }
  const journal = newEntry(c, opKey, stranded || !prior ? randomUUID() : prior.callId, d.now());
  return { journal, needJournal: true, answered: false, loss: null, inherited: null };
}

/** A new pending entry: this call's first attempt, under a fresh Idempotency-Key. */
function newEntry(c: JournalCall, opKey: string, callId: string, now: number): JournalEntry {
  return {
    callId,
    opKey,
    idempotencyKey: randomUUID(),
    platform: c.platform,
    endpoint: c.endpoint,
    params: c.params,
    paramsHash: c.paramsHash,
    state: 'pending',
    createdAt: now,
    finishedAt: null,
    keyName: null,
  };
}
