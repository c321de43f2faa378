/**
 * One logical data call (docs/request-core.md "Pipeline of one call"): archive-first, hold check,
 * idempotency journal, paced attempts, the cheapest legal retry, the ledger (including charges
 * the service made for answers that never arrived), and storage.
 */
import { randomUUID } from 'node:crypto';
import type { CatalogueEndpoint, Envelope } from '../../shared/api-types';
import type { CallTarget, Clock, CoreStore, LedgerEntry } from '../ports';
import { readItems } from '../archive/extract';
import { isStorageError } from '../storage-error';
import { abortError } from './clock';
import { BalanceBook, type Lost } from './balance-book';
import { canonicalParams, normalizeEndpoint, paramsHash, redact } from './canonical';
import { isDryRun, pagesOf, priceOf } from './catalogue';
import { ApiError, describeApiError, errorSuffix } from './errors';
import type { Emitter } from './events';
import type { HttpOutcome, HttpPort } from './http';
import { NoKeys, type KeyPool, type Slot } from './key-pool';
import { LEASE_MARGIN_MS } from './pace-book';
import { cancelled, noKeys, rateWait } from './call-errors';
import { serveFromArchive } from './call/serve';
import { activeHere, holdEntry, openJournal } from './call/journal';
import { afterLoss, chargeOfLoss, type LossCall, type LossState } from './call/loss';
import { insideWindow } from './call/attribution';
import { recordInferredCharge, type InferredEntry } from './inferred';
import { classify, retryAfterOf, retryDelay, type Outcome } from './retry';
import type { ApiEvents, CallOptions, CallResult } from './types';

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
  /** the hold of a call: price ceiling × pages (quote-based where only the service knows the pages) */
  holdOf: (ep: CatalogueEndpoint, target: CallTarget) => Promise<number>;
  balance: () => number | null;
  noteBalance: (v: number | null | undefined, at: number) => void;
  /** GET /v1/credits (free, not rate counted): the balance now, or null when it cannot be read */
  readBalance: () => Promise<number | null>;
  probeBalance: () => Promise<void>;
  maxRetries: number;
  /** longest single wait (Retry-After or backoff) the core sleeps through; beyond it: `rate_wait` */
  maxWaitMs: () => number;
  /** absolute deadline of one attempt */
  timeoutMs: () => number;
}

/** attempts that may end at the deadline before a call gives up */
const MAX_TIMEOUTS = 3;
/** moves to another key after the service refused one (at most the spec's 25 keys) */
const MAX_KEY_MOVES = 25;

export function createCaller(d: CallerDeps) {
  let heldInFlight = 0;
  /** balance readings and recorded credits: what a lost attempt cost */
  const book = new BalanceBook({ clock: d.clock, store: d.store, activeHere, leaseMs: () => d.timeoutMs() + LEASE_MARGIN_MS });

  /** an archive read or write; a storage failure ends the call as `storage`, with what it was charged so far */
  function write<T>(f: () => T, charged = 0): T {
    try {
      return f();
    } catch (e) {
      if (isStorageError(e)) throw new ApiError({ kind: 'storage', message: e.message, ...(charged > 0 ? { creditsCharged: charged } : {}) });
      throw e;
    }
  }

  async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
    try {
      await d.clock.sleep(ms, signal);
    } catch (e) {
      throw cancelled(e);
    }
  }

  /** a charge for an answer that never arrived goes in the ledger as its own row (inferred.ts) */
  const recordInferred = (lost: Lost, entry: InferredEntry, credits: number, how: 'balance' | 'price', charged: number): void =>
    recordInferredCharge({ store: d.store, log: d.log, write }, book, lost, entry, credits, how, charged);

  return async function call<D = Record<string, unknown>>(target: CallTarget, o: CallOptions = {}): Promise<CallResult<D>> {
    const ep = await d.endpointOf(target);
    const platform = String(target.platform);
    const endpoint = normalizeEndpoint(platform, ep.path);
    const params = { ...target.params };
    const canonical = canonicalParams(params);
    const hash = paramsHash(`${platform}/${endpoint}?${canonical}`);
    const dry = isDryRun(params);
    const source = o.source ?? 'app';
    const walkId = o.walkId ?? null;
    const priority = o.priority ?? 'interactive';
    const where = `${platform}/${endpoint}`;
    if (o.signal?.aborted) throw cancelled(abortError());

    // archive-first: the exact call answered inside the endpoint's cache window costs nothing
    const served = serveFromArchive<D>({ clock: d.clock, store: d.store, write }, { ep, platform, endpoint, hash, dry, source, walkId, opts: o });
    if (served) return served;

    if ((await d.pool.members()).length === 0) throw noKeys(new NoKeys([]));

    // hold check: never cause our own 402
    const hold = dry ? 0 : await d.holdOf(ep, target);
    if (hold > 0) {
      if (d.balance() === null) {
        await d.probeBalance();
        book.mark(d.balance()); // that reading is also the book's first
      }
      let bal = d.balance();
      // the figure in memory may be stale (a top-up since): refuse only on a fresh one (free to read)
      if (bal !== null && heldInFlight + hold > bal) bal = (await d.readBalance()) ?? bal;
      if (bal !== null && heldInFlight + hold > bal) {
        const others = heldInFlight > 0 ? ` with ${heldInFlight} more held by calls in flight` : '';
        throw new ApiError({
          kind: 'insufficient_local',
          type: 'INSUFFICIENT_CREDITS',
          message: `Out of credits: this call holds ${hold}, balance is ${bal}${others}; nothing was sent.`,
        });
      }
    }

    // a clean starting balance (free to read, once per process), so even a first answer that gets
    // lost can be told apart: charged or not
    if (hold > 0) await book.ensureReading(d.readBalance);
    // never spend on an answer the archive cannot keep: it proves it can take one first (once per
    // session and after any storage failure; ports.ts ensureWritable)
    const store = d.store;
    if (hold > 0 && store.ensureWritable) write(() => store.ensureWritable!());
    const price = priceOf(ep);
    const lossCall = (callId: string): LossCall => ({ callId, ttlSeconds: ep.cache_ttl_seconds, noCache: !!o.fresh, price, pages: pagesOf(params), ceiling: Math.max(hold, price.max * pagesOf(params)) });

    // idempotency journal: written before the first attempt; reused for the same opKey, or taken
    // over from a dead process for the same request (call/journal.ts)
    const opened = await openJournal(
      { book, read: d.readBalance, now: () => d.clock.now(), find: (k) => write(() => d.store.findJournal(k)), pending: () => write(() => d.store.pendingJournal()) },
      { ...lossCall(''), opKey: o.opKey, platform, endpoint, params: canonical, paramsHash: hash },
    );
    const j = opened.journal;
    const letGo = holdEntry(j.callId);
    /** the unresolved lost attempt riding on this call, and what the balance said about it */
    let loss: LossState | null = opened.loss;
    /** the journal row is written (again) right before the next attempt is sent, with the key that sends it */
    let needJournal = opened.needJournal;
    /** charges of lost attempts recorded during this call */
    let inferredSoFar = 0;
    const answered = opened.answered;
    /** stopping before this attempt was sent: with no lost attempt riding on the key, nothing is pending */
    const unsentStop = (e: ApiError): ApiError => {
      if (loss === null && !answered) write(() => d.store.finishJournal(j.callId, 'failed', d.clock.now()));
      return e;
    };
    const newKey = () => {
      j.idempotencyKey = randomUUID();
      j.createdAt = d.clock.now();
      j.before = undefined; // read again before it is first sent
      needJournal = true;
    };
    /** which API key sent each Idempotency-Key: a replay must go out on the same API key */
    const sentWith = new Map<string, { name: string | null; key: string }>();
    const inherited = opened.inherited;
    if (inherited) {
      // an earlier call or process sent this Idempotency-Key: with the key it names, when still in the pool
      const members = await d.pool.members();
      const m = inherited.keyName ? members.find((x) => x.name === inherited.keyName) : members.length === 1 ? members[0] : undefined;
      if (m) sentWith.set(inherited.idempotencyKey, { name: m.name, key: m.key });
      else if (inherited.keyName) newKey(); // that key left the pool: its replay is out of reach
    }
    /** a lost attempt the balance says was charged, kept under its key: recorded when the call ends unconfirmed */
    const settleOnExit = (e: unknown): unknown => {
      const l = loss;
      if (!l || l.lost.settled || !l.keptOnBalance || l.attribution.kind !== 'charged' || !(e instanceof ApiError) || e.kind === 'storage') return e;
      const credits = l.attribution.credits;
      recordInferred(l.lost, { callId: j.callId, platform, endpoint, params: canonical, paramsHash: hash, source, walkId, dryRun: dry }, credits, 'balance', credits);
      l.lost.settled = true;
      inferredSoFar += credits;
      // the service holds a finished answer under this key: a later run replays it free
      write(() => d.store.finishJournal(j.callId, 'done', d.clock.now()), inferredSoFar);
      return new ApiError({ ...e.toJSON(), kind: e.kind, creditsCharged: (e.creditsCharged ?? 0) + credits });
    };
    let k = '';

    const qs = new URLSearchParams(params).toString();
    const url = `${d.baseUrl()}/v1/${platform}/${endpoint}${qs ? `?${qs}` : ''}`;

    heldInFlight += hold;
    let timeouts = 0;
    let keyMoves = 0;
    const chargedSoFar = () => (inferredSoFar > 0 ? { creditsCharged: inferredSoFar } : {});
    try {
      for (let attempt = 1; ; attempt++) {
        let pin = sentWith.get(j.idempotencyKey);
        const members = await d.pool.members();
        const pinned = pin ? members.find((m) => m.key === pin?.key) : undefined;
        if (pin && !pinned) {
          // the key that sent this Idempotency-Key left the pool (refused, removed): a fresh one
          newKey();
          pin = undefined;
        }
        // a pause longer than the wait cap (an earlier RATE_LIMITED on this key, or on every key) stops here, unsent
        const paused = pinned ? pinned.pacer.stats().pausedUntil : d.pool.stats().pausedUntil;
        if (paused !== null && paused - d.clock.now() > d.maxWaitMs()) throw unsentStop(rateWait({ where, until: paused, now: d.clock.now(), maxWaitMs: d.maxWaitMs() }, 'RATE_LIMITED', null, undefined));
        let slot: Slot;
        try {
          slot = await d.pool.acquire(priority, o.signal, pin);
        } catch (e) {
          if (e instanceof NoKeys) throw unsentStop(noKeys(e));
          throw unsentStop(cancelled(e));
        }
        const release = slot.release;
        const pacer = slot.pacer;
        k = slot.key;
        if (needJournal || j.keyName !== slot.name) {
          // the journal names the Idempotency-Key and the key that sends it before anything is sent,
          // with the clean balance reading a loss of that key would be measured from (free)
          j.keyName = slot.name;
          try {
            if (j.before === undefined) j.before = hold > 0 ? await book.beforeSending(d.readBalance) : null;
            write(() => d.store.beginJournal(j));
          } catch (e) {
            release({ unsent: true });
            throw e;
          }
          needJournal = false;
        }
        sentWith.set(j.idempotencyKey, { name: slot.name, key: slot.key });
        const headers: Record<string, string> = { 'x-api-key': k, 'Idempotency-Key': j.idempotencyKey };
        if (o.fresh) headers['cache-control'] = 'no-cache';
        const startedAt = d.clock.now();
        book.attemptsInFlight++;
        let out: HttpOutcome;
        try {
          out = await d.http.get(url, headers, o.signal, o.timeoutMs ?? d.timeoutMs());
        } catch (e) {
          throw cancelled(e);
        } finally {
          book.attemptsInFlight--;
          release();
        }
        const durationMs = Math.max(0, d.clock.now() - startedAt) || out.durationMs;
        const oc: Outcome = classify(out);
        const okEnv = oc.kind === 'success' ? oc.env : undefined;
        const errEnv = oc.kind === 'error' ? oc.env : undefined;
        const status = out.status;
        const errorType = errEnv ? String(errEnv.error.type) : null;
        const requestId = okEnv?.request_id ?? errEnv?.request_id ?? out.headers['x-request-id'] ?? null;
        const creditsUsed = okEnv && typeof okEnv.credits_used === 'number' && okEnv.credits_used > 0 ? okEnv.credits_used : 0;
        const creditsRemaining = typeof okEnv?.credits_remaining === 'number' ? okEnv.credits_remaining : typeof errEnv?.credits_remaining === 'number' ? errEnv.credits_remaining : null;

        if (out.failure?.reason === 'timeout') timeouts++;
        const retryable = oc.kind === 'lost' || oc.kind === 'unsent' || (oc.kind === 'error' && oc.retryable);
        // a service that misses the deadline three times will not make it on the next try either
        const willRetry = retryable && attempt <= d.maxRetries && timeouts < MAX_TIMEOUTS;
        const retryAfterS = retryAfterOf(out, d.clock.now());
        const waitMs = willRetry ? retryDelay(attempt - 1, retryAfterS, d.random) : null;

        const entry: LedgerEntry = {
          callId: j.callId,
          attempt,
          startedAt,
          durationMs,
          platform,
          endpoint,
          params: canonical,
          paramsHash: hash,
          idempotencyKey: j.idempotencyKey,
          requestId,
          status,
          errorType: errorType ?? (out.failure ? `NETWORK_${out.failure.reason.toUpperCase()}` : oc.kind === 'refused' ? 'NON_JSON_4XX' : null),
          creditsUsed,
          creditsRemaining,
          chargeReason: okEnv?.charge_reason ?? null,
          cached: okEnv?.cached === true,
          freeCall: okEnv?.free_call === true,
          idempotentReplay: okEnv?.idempotent_replay === true,
          source,
          walkId,
          dryRun: dry,
          keyName: slot.name,
        };
        write(() => d.store.recordAttempt(entry), creditsUsed);
        book.recorded += creditsUsed;
        book.mark(creditsRemaining);
        d.noteBalance(creditsRemaining, d.clock.now());
        d.events.emit('attempt', {
          callId: j.callId,
          attempt,
          platform,
          endpoint,
          status,
          errorType: entry.errorType,
          requestId,
          creditsUsed,
          durationMs,
          retryInMs: waitMs,
          walkId,
        });

        if (okEnv) {
          // Did this answer reveal that a lost attempt had been charged? A replay of its key, or a
          // free owner read with a fresh key, means the service finished (and billed) the original;
          // otherwise the balance may tell (call/loss.ts)
          let inferred = 0;
          const replay = okEnv.idempotent_replay === true || okEnv.charge_reason === 'replay';
          const ownerRead = okEnv.cached === true && creditsUsed === 0 && okEnv.free_call !== true;
          if (loss && !loss.lost.settled && !dry) {
            const l = loss;
            const fresh = j.idempotencyKey !== l.lost.idempotencyKey && insideWindow(ep.cache_ttl_seconds, l.lost.startedAt, startedAt, !!o.fresh);
            const ownedNot = fresh && typeof okEnv.cached === 'boolean' && !ownerRead;
            const inf = await chargeOfLoss(book, d.readBalance, lossCall(j.callId), l, { replay: replay && !fresh && j.idempotencyKey === l.lost.idempotencyKey, ownerRead, ownedNot, creditsRemaining });
            l.lost.settled = true;
            if (inf && inf.credits > 0) {
              inferred = inf.credits;
              recordInferred(l.lost, entry, inferred, inf.how, creditsUsed + inferred + inferredSoFar);
            }
          }
          const charged = (replay ? 0 : creditsUsed) + inferred + inferredSoFar;
          write(() => d.store.finishJournal(j.callId, 'done', d.clock.now()), charged);
          let stored = { items: [] as CallResult['items'], newItems: 0, unreadable: 0, heldBack: 0 };
          if (!dry) {
            const r = write(
              () => d.store.storeResponse({ callId: j.callId, platform, endpoint, paramsHash: hash, fetchedAt: d.clock.now(), envelope: okEnv }, source, walkId),
              charged,
            );
            const read = readItems(okEnv.data);
            stored = { items: r.items, newItems: r.newItems, unreadable: read.unreadable, heldBack: read.heldBack };
            if (read.unreadable > 0) d.log(`${where}: ${read.unreadable} item(s) of the answer could not be read as records; they are kept raw in the stored answer (request ${okEnv.request_id})`);
          }
          return {
            envelope: okEnv as Envelope<D>,
            fromArchive: false,
            callId: j.callId,
            idempotencyKey: j.idempotencyKey,
            attempts: attempt,
            creditsUsed: charged,
            creditsInferred: inferred + inferredSoFar,
            ...stored,
          };
        }

        // a key the service refuses (401 INVALID_API_KEY / API_KEY_REVOKED: free, not rate counted)
        // leaves the pool; the attempt moves to another key with a fresh Idempotency-Key
        if (errorType === 'INVALID_API_KEY' || errorType === 'API_KEY_REVOKED') {
          const others = d.pool.refuse(slot.name, slot.key, errorType);
          const who = slot.name ? `The key "${slot.name}"` : 'The API key';
          const fix = errorType === 'API_KEY_REVOKED' ? 'remove or replace it in Settings' : 'check or replace it in Settings';
          const message = `${who} was refused by the service (${errorType}): it left the pool${others ? ' and its work moved to the other keys' : ''}; ${fix}.`;
          d.log(`warning: ${message}`);
          d.events.emit('key-refused', { name: slot.name, type: errorType, message });
          d.events.emit('warning', { code: 'key_refused', message });
          if (others && keyMoves < MAX_KEY_MOVES) {
            keyMoves++;
            newKey();
            continue;
          }
        }

        // --- not a success: which key does the next attempt use? --------------------------
        if (oc.kind === 'lost') {
          book.losses++;
          const lost = { attempt, startedAt, idempotencyKey: j.idempotencyKey, before: j.before ?? null, settled: false };
          const s = willRetry ? await afterLoss(book, d.readBalance, lossCall(j.callId), lost, () => d.clock.now()) : null;
          // keep the earliest unresolved loss (the one the service may have billed), unless this one's
          // key is kept on the balance's word (its replay will settle it)
          if (loss === null || loss.lost.settled || s?.keptOnBalance) loss = s ?? { lost, attribution: { kind: 'unknown', why: 'not retried' }, keptOnBalance: false };
          if (s?.key === 'fresh') newKey();
        } else if (oc.kind === 'error' && errorType !== 'IDEMPOTENCY_IN_PROGRESS' && willRetry && (loss === null || j.idempotencyKey !== loss.lost.idempotencyKey)) {
          // a definite error answer: this attempt was not charged, and under the strictest reading
          // a same-key retry after any unsuccessful original pays the ceiling — so a fresh key,
          // unless an earlier lost answer is still riding on this key (its free replay)
          newKey();
        }

        if (waitMs !== null && (errorType === 'RATE_LIMITED' || errorType === 'CONCURRENCY_LIMIT') && d.pool.othersUsableBefore(slot.key, d.clock.now() + waitMs)) {
          // limits count per key: this key rests until Retry-After, the next attempt goes to another
          const until = d.clock.now() + waitMs;
          pacer.pause(until);
          d.events.emit('rate-limited', { type: errorType, retryAfterMs: waitMs, until, platform, endpoint });
          d.log(`${where}: ${errorType} on ${slot.name ? `key "${slot.name}"` : 'a key'}${requestId ? ` [${requestId}]` : ''}; it rests ${Math.round(waitMs)} ms, the next attempt goes to another key`);
          continue;
        }
        if (waitMs !== null) {
          const label = errorType ?? `network (${out.failure?.reason ?? `HTTP ${status}`})`;
          if (waitMs > d.maxWaitMs()) {
            const until = d.clock.now() + waitMs;
            if (errorType === 'RATE_LIMITED') pacer.pause(until);
            if (loss === null) write(() => d.store.finishJournal(j.callId, 'failed', d.clock.now()));
            d.events.emit('rate-limited', { type: errorType ?? 'RATE_LIMITED', retryAfterMs: waitMs, until, platform, endpoint });
            const e = rateWait({ where, until, now: d.clock.now(), maxWaitMs: d.maxWaitMs() }, errorType, requestId, retryAfterS);
            throw inferredSoFar > 0 ? new ApiError({ ...e.toJSON(), kind: 'rate_wait', creditsCharged: inferredSoFar }) : e;
          }
          d.log(`${where}: attempt ${attempt} failed with ${label}${requestId ? ` [${requestId}]` : ''}; retrying in ${Math.round(waitMs)} ms`);
          if (errorType === 'RATE_LIMITED') {
            const until = d.clock.now() + waitMs;
            pacer.pause(until);
            d.events.emit('rate-limited', { type: errorType, retryAfterMs: waitMs, until, platform, endpoint });
          } else if (errorType === 'CONCURRENCY_LIMIT') {
            d.events.emit('rate-limited', { type: errorType, retryAfterMs: waitMs, until: d.clock.now() + waitMs, platform, endpoint });
          }
          await sleep(waitMs, o.signal);
          continue;
        }

        // final failure
        if (retryable) {
          // retries exhausted; after a lost answer the journal stays pending (the service may have
          // charged it): the same opKey later picks the cheapest retry and records what was billed
          if (loss === null) write(() => d.store.finishJournal(j.callId, 'failed', d.clock.now()));
          const what = errEnv
            ? describeApiError(String(errEnv.error.type), redact(errEnv.error.message ?? '', k), requestId ?? undefined, status ?? undefined)
            : `No usable answer from the service (${out.failure?.message ?? `HTTP ${status}`})${errorSuffix(undefined, requestId ?? undefined)}`;
          throw new ApiError({
            kind: 'gave_up',
            type: errorType ?? undefined,
            status: status ?? undefined,
            requestId: requestId ?? undefined,
            retryAfter: retryAfterS,
            attempts: attempt,
            ...chargedSoFar(),
            message: `Gave up after ${attempt - 1} retries on ${where}: ${what.replace(/\.$/, '')}.`,
          });
        }
        if (loss === null) write(() => d.store.finishJournal(j.callId, 'failed', d.clock.now()));
        if (errEnv) {
          const type = String(errEnv.error.type);
          let message = describeApiError(type, redact(errEnv.error.message ?? '', k), requestId ?? undefined, status ?? undefined);
          if (type === 'INSUFFICIENT_CREDITS') {
            const bal = creditsRemaining ?? d.balance();
            message = `Out of credits: this call holds ${hold}${bal !== null ? `, balance is ${bal}` : ''}${errorSuffix(type, requestId ?? undefined)}`;
          }
          throw new ApiError({ kind: 'api', type, status: status ?? undefined, requestId: requestId ?? undefined, attempts: attempt, ...chargedSoFar(), message });
        }
        const body = out.text ? `: "${redact(out.text.replace(/\s+/g, ' ').trim().slice(0, 120), k)}"` : '';
        throw new ApiError({
          kind: 'api',
          status: status ?? undefined,
          requestId: requestId ?? undefined,
          attempts: attempt,
          message: `The service refused the call to ${where} with HTTP ${status} and no error envelope${body}; fix the request (nothing was charged)${errorSuffix(undefined, requestId ?? undefined)}.`,
        });
      }
    } catch (e) {
      throw settleOnExit(e);
    } finally {
      heldInFlight -= hold;
      letGo();
    }
  };
}
