/**
 * Interfaces between the parts of the core. The request core (src/core/api)
 * depends only on these; the archive (src/core/archive) implements CoreStore;
 * tests inject fake clocks.
 */
import type { AnyEnvelope, Envelope, Platform } from '../shared/api-types';
import type { LedgerEntry } from '../shared/ledger';
import type { WalkState, WalkStatus } from '../shared/contract-calls';

/** Injected time. Tests use a fake clock; benchmarks a scaled one. */
export interface Clock {
  /** ms since epoch */
  now(): number;
  /** resolves after `ms` of this clock's time; rejects with AbortError if signal aborts */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * This computer's time (ms since epoch) where `now()` is another clock (the service's,
   * service-clock.ts). Readings that are ordered across processes on one machine — when a balance
   * was read — take it: the service clock's offset moves either way as it is learned (the sandbox
   * runs years behind), so it cannot order them.
   */
  local?(): number;
}

/** When a reading was taken, for ordering readings across processes on this computer (Clock.local). */
export const readingTime = (c: Clock): number => c.local?.() ?? c.now();

export type Priority = 'interactive' | 'background';

/** One row of the ledger (defined once, in src/shared/ledger.ts: the renderer shows it as it is). */
export type { LedgerEntry };

/** The idempotency journal: one row per logical call, written before the first attempt. */
export interface JournalEntry {
  callId: string;
  /** stable key of the logical operation, e.g. `walk:<walkId>:page:<n>` or a random uuid for one-off calls */
  opKey: string;
  idempotencyKey: string;
  platform: string;
  endpoint: string;
  params: string;
  paramsHash: string;
  state: 'pending' | 'done' | 'failed';
  createdAt: number;
  finishedAt: number | null;
  /** the name of the API key that sends (sent) this Idempotency-Key — a replay must use the same key; null when unnamed or not sent yet */
  keyName?: string | null;
  /**
   * The clean balance reading taken just before this Idempotency-Key was first sent (what a lost
   * attempt's charge is measured from, in this process or the next one); null when there was none.
   */
  before?: BalanceMark | null;
  /**
   * When the call moved on to this key while an earlier attempt's answer was lost (maybe charged):
   * the clean reading taken before that attempt's key was first sent — with `before` (taken after
   * the loss) it tells a later process what the lost attempt cost. Null or absent otherwise.
   */
  lossBefore?: BalanceMark | null;
  /**
   * Whether an introductory free call could cover this Idempotency-Key when it was first sent (none
   * was known used up then): a lost answer is judged as things stood when it was sent, also by a
   * later process (simulation finding 10). Null or absent: unknown (judged now).
   */
  freeMayCover?: boolean | null;
  /** The same for the earlier lost attempt `lossBefore` belongs to. */
  lossFreeMayCover?: boolean | null;
  /**
   * The introductory free calls the service last said were left before this Idempotency-Key was
   * first sent (`GET /v1/credits`), with when and the ledger's last row then: free answers the
   * ledger holds since tell a later process whether any was left for a lost answer of this key.
   * Null or absent: the service said none.
   */
  freeLeft?: FreeMark | null;
  /** The same for the earlier lost attempt `lossBefore` belongs to. */
  lossFreeLeft?: FreeMark | null;
  /**
   * Read back, never written: the process that sends this key — this one, another one still alive,
   * one that is gone (killed, crashed), or unknown (another host, or written before it was recorded).
   */
  owner?: 'this' | 'alive' | 'gone' | 'unknown';
}

/** A balance the service reported, when it was read, and the ledger's highest row id then. */
export interface BalanceMark {
  balance: number;
  at: number;
  ledgerId: number;
}

/**
 * How many introductory free calls the service said were left (`free_calls_remaining` of
 * `GET /v1/credits`, a field the spec does not show), when that answer came (`at`, the clock the
 * ledger's `started_at` is on) and the ledger's highest row id then.
 */
export interface FreeMark {
  left: number;
  at: number;
  ledgerId: number;
}

/**
 * `interrupted` is what the archive reports for a walk saved as `running` whose owner process is
 * gone (killed, crashed, rebooted); it resumes like `paused`. Writers save `running`, never it.
 */
/** A saved walk, its status and its owner: declared with the contract (`walks.saved` answers them). */
export type { WalkOwner, WalkState, WalkStatus } from '../shared/contract-calls';

/** A stored successful answer, for archive-first serving inside the cache window. */
export interface StoredResponse {
  callId: string;
  platform: string;
  endpoint: string;
  paramsHash: string;
  fetchedAt: number;
  envelope: Envelope;
}

export interface ItemRef {
  platform: string;
  kind: string; // key of the list item: post, profile, group...
  id: string;
}

/**
 * What the request core needs from persistence. Implemented by the SQLite archive.
 * Every method is synchronous (better-sqlite3) and each is one transaction.
 */
export interface CoreStore {
  // idempotency journal
  findJournal(opKey: string): JournalEntry | undefined;
  beginJournal(e: JournalEntry): void;
  finishJournal(callId: string, state: 'done' | 'failed', at: number): void;
  pendingJournal(): JournalEntry[];
  /**
   * Throws a StorageError when the store cannot take an answer now (read-only, full, damaged):
   * called before the first charged request of a session and after any storage failure, so nothing
   * is spent on an answer that could not be kept. Optional: a store without it is taken as writable.
   */
  ensureWritable?(): void;

  /**
   * Journal entries other than `callId` that may have been charged between `from` and `to` without
   * that being in the ledger yet: every pending one, and those that finished at or after `from`.
   */
  journalAround(callId: string, from: number, to: number): JournalEntry[];

  // ledger
  recordAttempt(e: LedgerEntry): number;
  /** the ledger's highest row id (0 when empty) */
  ledgerHighWater(): number;
  /** credits recorded in ledger rows after `afterId` for attempts started at or after `since` (any process) */
  ledgerCreditsSince(afterId: number, since: number): number;
  /**
   * Answers an introductory free call covered (`free_call` true) in ledger rows after `afterId` for
   * attempts started at or after `since` (any process). Optional: without it none is counted.
   */
  ledgerFreeSince?(afterId: number, since: number): number;
  /**
   * The ledger rows of one logical call (any order): which of a dead process's attempts were lost.
   * Optional: without it a taken-over call is judged by its journal entry alone.
   */
  ledgerOfCall?(callId: string): LedgerEntry[];
  /**
   * The ledger rows after `afterId` up to `upToId` (any process, in order) for attempts started at or
   * after `since`: the balances answers carried between two readings, and the credits recorded.
   * Optional: without it a dead process's lost attempt is judged only by readings close in time.
   */
  ledgerBetween?(afterId: number, upToId: number, since: number): LedgerEntry[];
  /**
   * The ledger rows of one exact request (platform, endpoint, params hash; any process) for attempts
   * started at or after `from` and before `to`: whether the account owned the call before a lost
   * attempt was sent (simulation finding 14). Optional: without it an owner read is taken as proof.
   */
  ledgerOfRequest?(platform: string, endpoint: string, paramsHash: string, from: number, to: number): LedgerEntry[];
  /**
   * The ledger's rows of the same list as `params` (canonical JSON) — parameters equal apart from the
   * paging ones (`cursor`, native tokens, `page`), each row carrying one — for attempts started in
   * [from, to): pages of that list the account may own under another cursor (simulation finding 19).
   */
  ledgerOfList?(platform: string, endpoint: string, params: string, from: number, to: number): LedgerEntry[];

  // stored answers + items, in one transaction: stores the envelope, upserts every
  // item (once per platform/kind/id; later fetches update counts/labels), links provenance
  storeResponse(r: StoredResponse, source: string, walkId: string | null): { items: ItemRef[]; newItems: number };
  /** newest stored successful answer for the exact call (platform, endpoint, paramsHash) fetched at or after `since` */
  findFreshResponse(platform: string, endpoint: string, paramsHash: string, since: number): StoredResponse | undefined;
  /**
   * A walk was answered from this stored response (archive-first, no request): link its items to
   * the walk and its source, once (no ledger row, the envelope is not stored again). Optional: a
   * store without it simply does not link.
   */
  linkStoredResponse?(r: StoredResponse, source: string, walkId: string | null): { items: ItemRef[]; newItems: number };
  /** A call was answered from the archive instead of being sent (Usage's "held in Loupe", issue 27 #5). Optional. */
  noteServedFromArchive?(s: { at: number; source: string | null; platform: string; endpoint: string }): void;

  // walks
  saveWalk(w: WalkState): void;
  getWalk(walkId: string): WalkState | undefined;
  listWalks(filter?: { status?: WalkStatus[] }): WalkState[];

  // last known balance (from credits_remaining), persisted across restarts
  setBalance(creditsRemaining: number, at: number): void;
  getBalance(): { creditsRemaining: number; at: number } | undefined;
}

export interface CallTarget {
  platform: Platform | string;
  /** path after the platform (with or without /v1/<platform>/ prefix accepted by the core) */
  endpoint: string;
  params: Record<string, string>;
}

export type { AnyEnvelope };

/** One archived item as exports and the library see it (annotations included). */
export interface ExportRow {
  platform: string;
  kind: string; // post, profile, group...
  id: string;
  /** the record exactly as the API returned it (parsed raw JSON), computed labels included */
  record: Record<string, unknown>;
  /**
   * The same record as JSON text, when the source has it (the archive stores it so): lets an
   * export hand rows to its worker threads without parsing them first. Must equal
   * JSON.stringify(record).
   */
  recordJson?: string;
  firstSeenAt: number; // ms
  lastSeenAt: number; // ms
  /**
   * the last re-check through a single-item endpoint, and since when the service has answered it
   * not found (items.checked_at / items.missing_since; null or absent: never re-checked / available)
   */
  checkedAt?: number | null; // ms
  missingSince?: number | null; // ms
  tags: string[];
  note: string | null;
  /** analyst overrides of AI labels: family → field → value (original stays in record.computed) */
  overrides: Record<string, Record<string, unknown>>;
}

/**
 * An export's rows as rids in export order (the archive's export source offers it): export
 * workers open `file` read-only and read the rows themselves (src/core/export/csv-rids.ts).
 */
export interface RidWalk {
  /** the archive file */
  file: string;
  /** the annotation columns to select after the row's (archive/export-row.ts exportExtraSql) */
  extra: string;
  /** up to `max` next rids; empty at the end */
  next(max: number): number[];
  /** rows of these rids from the walk's own snapshot (only once every rid was read: next returned []) */
  rows(rids: number[]): ExportRow[];
  /**
   * other reads of the walk's snapshot (src/core/archive/sql.ts queries; only once every rid was
   * read): a bundle's rows with their calls and readings (src/core/export/bundle-tables.ts)
   */
  snapshot: { rows<T extends unknown[]>(q: { readonly strings: TemplateStringsArray; readonly values: unknown[] }): T[] };
  /**
   * true while nothing was committed to the archive since the walk's snapshot: a read of the file
   * made before this call returned true read the snapshot's rows, exactly. Once false, false for
   * good. Export workers read rows at the latest commit: an answer is kept only when this holds
   * after it arrived (else its rows may be edited, or be another item under a reused rid).
   */
  current(): boolean;
  close(): void;
}

/** Export rows, and (from the archive) their rids for workers that read rows themselves. */
export type ExportRowSource = IterableIterator<ExportRow> & { ridWalk?: () => RidWalk | null };
