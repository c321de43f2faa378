/**
 * The typed context the call's stages share (docs/request-core.md "Pipeline of one call"): what
 * every call of one caller shares (`Caller`), what a call is (`CallPlan`, fixed once planned) and
 * what changes while it runs (`CallState`).
 */
import { randomUUID } from 'node:crypto';
import type { CatalogueEndpoint } from '../../../shared/api-types';
import type { CallTarget, Clock, CoreStore, FreeMark, JournalEntry, Priority } from '../../ports';
import { isStorageError } from '../../storage-error';
import type { BalanceBook, Lost } from '../balance-book';
import type { PriceRange } from '../catalogue';
import { ApiError } from '../errors';
import type { Emitter } from '../events';
import type { HttpPort } from '../http';
import { recordInferredCharge, type InferredEntry } from '../inferred';
import type { KeyPool } from '../key-pool';
import type { ApiEvents, CallOptions } from '../types';
import type { LossCall, LossState } from './loss';

export interface CallerDeps {
  clock: Clock;
  random: () => number;
  store: CoreStore;
  http: HttpPort;
  events: Emitter<ApiEvents>;
  log: (line: string) => void;
  baseUrl: () => string;
  /** the account's keys, each with its pacer */
  pool: KeyPool;
  endpointOf: (target: CallTarget) => Promise<CatalogueEndpoint>;
  /** the endpoint's cache window as the catalogue states it when read again now (free, keyless) */
  windowNow?: (target: CallTarget) => Promise<number>;
  /** the hold of a call: price ceiling × pages (quote-based where only the service knows the pages) */
  holdOf: (ep: CatalogueEndpoint, target: CallTarget) => Promise<number>;
  balance: () => number | null;
  noteBalance: (v: number | null | undefined, at: number) => void;
  /** GET /v1/credits (free, not rate counted): the balance now, or null when it cannot be read */
  readBalance: () => Promise<number | null>;
  probeBalance: () => Promise<void>;
  /** introductory free calls left, when the service says (optional) */
  freeCallsLeft?: () => number | null;
  /** the same with when the service said it and the ledger's last row then (optional) */
  freeMark?: () => FreeMark | null;
  maxRetries: number;
  /** longest single wait (Retry-After or backoff) the core sleeps through; beyond it: `rate_wait` */
  maxWaitMs: () => number;
  /** absolute deadline of one attempt */
  timeoutMs: () => number;
  /** after a cancel, how long (real ms) the attempt in flight is still awaited before it is abandoned */
  cancelGraceMs: () => number;
}

/** What every call of one caller shares. */
export interface Caller {
  d: CallerDeps;
  /** balance readings and recorded credits: what a lost attempt cost */
  book: BalanceBook;
  /** credits held by this caller's calls in flight */
  held: { credits: number };
  /** an archive read or write; a storage failure ends the call as `storage`, with what it was charged so far */
  write: <T>(f: () => T, charged?: number) => T;
  /** a charge for an answer that never arrived goes in the ledger as its own row (inferred.ts) */
  recordInferred: (lost: Lost, entry: InferredEntry, credits: number, how: 'balance' | 'price' | 'free', charged: number) => void;
}

export function callerOf(d: CallerDeps, book: BalanceBook): Caller {
  const write = <T>(f: () => T, charged = 0): T => {
    try {
      return f();
    } catch (e) {
      if (isStorageError(e))
        throw new ApiError({ kind: 'storage', message: e.message, ...(charged > 0 ? { creditsCharged: charged } : {}) });
      throw e;
    }
  };
  return {
    d,
    book,
    held: { credits: 0 },
    write,
    recordInferred: (lost, entry, credits, how, charged) =>
      recordInferredCharge({ store: d.store, log: d.log, write }, book, lost, entry, credits, how, charged),
  };
}

/** One call as planned: fixed for its whole life. */
export interface CallPlan {
  target: CallTarget;
  ep: CatalogueEndpoint;
  platform: string;
  endpoint: string;
  params: Record<string, string>;
  /** canonical params JSON (sorted keys) and its hash: the call's identity */
  canonical: string;
  hash: string;
  dry: boolean;
  source: string;
  walkId: string | null;
  priority: Priority;
  /** `platform/endpoint`, for messages */
  where: string;
  opts: CallOptions;
  price: PriceRange;
  pages: number;
}

/** One call while it runs. */
export interface CallState {
  plan: CallPlan;
  hold: number;
  /** its journal entry: the Idempotency-Key the next attempt sends, and the API key that sends it */
  j: JournalEntry;
  /** the journal row is written (again) right before the next attempt is sent */
  needJournal: boolean;
  /** a done entry reused: its key replays the answer free */
  answered: boolean;
  /** the unresolved lost attempt riding on this call, and what the balance said about it */
  loss: LossState | null;
  /** charges of lost attempts recorded during this call */
  inferredSoFar: number;
  /** which API key sent each Idempotency-Key: a replay must go out on the same API key */
  sentWith: Map<string, { name: string | null; key: string }>;
  attempt: number;
  timeouts: number;
  keyMoves: number;
  url: string;
  /** the API key of the last attempt (for redacting the service's words), never logged */
  key: string;
}

/** What the lost-answer rules need to know about this call. */
export function lossCallOf(s: { plan: CallPlan; hold: number }, callId: string): LossCall {
  const { plan } = s;
  return {
    callId,
    ttlSeconds: plan.ep.cache_ttl_seconds,
    noCache: !!plan.opts.fresh,
    price: plan.price,
    pages: plan.pages,
    ceiling: Math.max(s.hold, plan.price.max * plan.pages),
  };
}

/** The next attempt sends a fresh Idempotency-Key (read again before it is first sent). */
export function newKey(c: Caller, s: CallState): void {
  s.j.idempotencyKey = randomUUID();
  s.j.createdAt = c.d.clock.now();
  s.j.before = undefined;
  // an unresolved lost attempt rides on the call: the reading taken before its key goes with the
  // entry, so a process that takes the entry over can still measure what it cost (finding 8)
  s.j.lossBefore = s.loss && !s.loss.lost.settled ? (s.loss.lost.before ?? null) : null;
  // …and whether a free call could cover it when it was sent (finding 10); the new key's is taken when it is first sent
  s.j.lossFreeMayCover = s.loss && !s.loss.lost.settled ? (s.loss.lost.freeMayCover ?? null) : null;
  // …with the free calls the service said were left before it was sent (the ledger's free answers since tell the rest)
  s.j.lossFreeLeft = s.loss && !s.loss.lost.settled ? (s.loss.lost.freeLeft ?? null) : null;
  s.j.freeMayCover = undefined;
  s.j.freeLeft = undefined;
  s.needJournal = true;
}

/** A call that stops before this attempt was sent: with no lost attempt riding on the key, nothing is pending. */
export function unsentStop(c: Caller, s: CallState, e: ApiError): ApiError {
  if (s.loss === null && !s.answered) c.write(() => c.d.store.finishJournal(s.j.callId, 'failed', c.d.clock.now()));
  return e;
}

/** The journal says `failed` unless a lost attempt rides on it (the service may have charged it). */
export function failJournal(c: Caller, s: CallState): void {
  if (s.loss === null) c.write(() => c.d.store.finishJournal(s.j.callId, 'failed', c.d.clock.now()));
}

/** `creditsCharged` for an error: lost attempts' charges recorded during the call. */
export const chargedSoFar = (s: CallState): { creditsCharged?: number } => (s.inferredSoFar > 0 ? { creditsCharged: s.inferredSoFar } : {});
