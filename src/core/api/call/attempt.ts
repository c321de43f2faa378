/**
 * The attempt (docs/request-core.md "Pipeline of one call", step 6): one request through the slot,
 * its outcome classified (retry.ts), the ledger row written with what the service reported, the
 * balance noted, the `attempt` event. The reading of the answer, the retry budget and the ledger
 * row are pure (`readAnswer`, `retryOf`, `ledgerEntryOf`); `sendAttempt` joins them.
 */
import type { Envelope, ErrorEnvelope } from '../../../shared/api-types';
import { readingTime, type FreeMark, type LedgerEntry } from '../../ports';
import { cancelled } from '../call-errors';
import type { HttpOutcome } from '../http';
import type { Slot } from '../key-pool';
import { classify, retryAfterOf, retryDelay, type Outcome } from '../retry';
import { FREE_CALL_PRICE } from './attribution';
import type { Caller, CallPlan, CallState } from './context';

/** attempts that may end at the deadline before a call gives up */
export const MAX_TIMEOUTS = 3;

/** What an answer says, as the service reported it. */
export interface Answer {
  oc: Outcome;
  okEnv: Envelope | undefined;
  errEnv: ErrorEnvelope | undefined;
  errorType: string | null;
  requestId: string | null;
  creditsUsed: number;
  creditsRemaining: number | null;
}

/** Whether and when the call tries again after this attempt. */
export interface RetryBudget {
  /** the outcome is one the policy retries (lost, unsent, a retryable error) */
  retryable: boolean;
  /** …and this call retries it (retries left, fewer than MAX_TIMEOUTS deadlines missed) */
  willRetry: boolean;
  retryAfterS: number | undefined;
  /** the wait before the next attempt, when there is one */
  waitMs: number | null;
}

export interface Attempt extends Answer, RetryBudget {
  attempt: number;
  slot: Slot;
  startedAt: number;
  out: HttpOutcome;
  /** no free call was known used up when it was sent */
  freeMayCover: boolean;
  /** the free calls the service last said were left when it was sent */
  freeLeft: FreeMark | null;
  entry: LedgerEntry;
}

export async function sendAttempt(c: Caller, s: CallState, slot: Slot): Promise<Attempt> {
  const { d, book } = c;
  const { j } = s;
  const attempt = ++s.attempt;
  const startedAt = d.clock.now();
  const freeMayCover = !book.noFreeCalls();
  const freeLeft = d.freeMark?.() ?? null;
  const out = await request(c, s, slot, headersOf(s, slot));
  const durationMs = Math.max(0, d.clock.now() - startedAt) || out.durationMs;
  const answer = readAnswer(out);
  if (out.failure?.reason === 'timeout') s.timeouts++;
  const budget = retryOf(answer.oc, {
    attempt,
    maxRetries: d.maxRetries,
    timeouts: s.timeouts,
    retryAfterS: retryAfterOf(out, d.clock.now()),
    random: d.random,
  });
  const entry = ledgerEntryOf(s.plan, j, { attempt, startedAt, durationMs, slot, out, answer });
  recordAttempt(c, s, entry, budget.waitMs);
  return { ...answer, ...budget, attempt, slot, startedAt, out, entry, freeMayCover, freeLeft };
}

/** The headers of an attempt: the API key, the journal's Idempotency-Key, no-cache when asked. */
export function headersOf(s: Pick<CallState, 'plan' | 'j'>, slot: Pick<Slot, 'key'>): Record<string, string> {
  const headers: Record<string, string> = { 'x-api-key': slot.key, 'Idempotency-Key': s.j.idempotencyKey };
  if (s.plan.opts.fresh) headers['cache-control'] = 'no-cache';
  return headers;
}

/** What the answer says: its outcome, envelopes, error type, request id and credits (pure). */
export function readAnswer(out: HttpOutcome): Answer {
  const oc = classify(out);
  const okEnv = oc.kind === 'success' ? oc.env : undefined;
  const errEnv = oc.kind === 'error' ? oc.env : undefined;
  const creditsRemaining =
    typeof okEnv?.credits_remaining === 'number'
      ? okEnv.credits_remaining
      : typeof errEnv?.credits_remaining === 'number'
        ? errEnv.credits_remaining
        : null;
  return {
    oc,
    okEnv,
    errEnv,
    errorType: errEnv ? String(errEnv.error.type) : null,
    requestId: okEnv?.request_id ?? errEnv?.request_id ?? out.headers['x-request-id'] ?? null,
    creditsUsed: okEnv && typeof okEnv.credits_used === 'number' && okEnv.credits_used > 0 ? okEnv.credits_used : 0,
    creditsRemaining,
  };
}

/**
 * Whether the call tries again, and after how long (pure): a retryable outcome, with retries left
 * and fewer than MAX_TIMEOUTS deadlines missed — a service that misses the deadline three times
 * will not make it on the next try either. `timeouts` counts this attempt's.
 */
export function retryOf(
  oc: Outcome,
  o: { attempt: number; maxRetries: number; timeouts: number; retryAfterS: number | undefined; random: () => number },
): RetryBudget {
  const retryable = oc.kind === 'lost' || oc.kind === 'unsent' || (oc.kind === 'error' && oc.retryable);
  const willRetry = retryable && o.attempt <= o.maxRetries && o.timeouts < MAX_TIMEOUTS;
  const waitMs = willRetry ? retryDelay(o.attempt - 1, o.retryAfterS, o.random) : null;
  return { retryable, willRetry, retryAfterS: o.retryAfterS, waitMs };
}

/** The ledger row of an attempt: what the service reported, nothing more (pure). */
export function ledgerEntryOf(
  plan: CallPlan,
  j: Pick<CallState['j'], 'callId' | 'idempotencyKey'>,
  a: { attempt: number; startedAt: number; durationMs: number; slot: Pick<Slot, 'name'>; out: HttpOutcome; answer: Answer },
): LedgerEntry {
  const { out, answer } = a;
  const { oc, okEnv } = answer;
  return {
    callId: j.callId,
    attempt: a.attempt,
    startedAt: a.startedAt,
    durationMs: a.durationMs,
    platform: plan.platform,
    endpoint: plan.endpoint,
    params: plan.canonical,
    paramsHash: plan.hash,
    idempotencyKey: j.idempotencyKey,
    requestId: answer.requestId,
    status: out.status,
    errorType:
      answer.errorType ?? (out.failure ? `NETWORK_${out.failure.reason.toUpperCase()}` : oc.kind === 'refused' ? 'NON_JSON_4XX' : null),
    creditsUsed: answer.creditsUsed,
    creditsRemaining: answer.creditsRemaining,
    chargeReason: okEnv?.charge_reason ?? null,
    cached: okEnv?.cached === true,
    freeCall: okEnv?.free_call === true,
    idempotentReplay: okEnv?.idempotent_replay === true,
    source: plan.source,
    walkId: plan.walkId,
    dryRun: plan.dry,
    keyName: a.slot.name,
  };
}

/** The row written, the recorded credits and the balance noted, the `attempt` event. */
function recordAttempt(c: Caller, s: CallState, entry: LedgerEntry, retryInMs: number | null): void {
  const { d, book } = c;
  const { creditsUsed } = entry;
  c.write(() => d.store.recordAttempt(entry), creditsUsed);
  book.recorded += creditsUsed;
  // charged where a free call would have covered it under every reading: none is left
  if (creditsUsed > 0 && !entry.idempotentReplay && s.hold > 0 && s.hold <= FREE_CALL_PRICE) book.freeCallsGone = true;
  book.mark(entry.creditsRemaining);
  d.noteBalance(entry.creditsRemaining, readingTime(d.clock));
  d.events.emit('attempt', {
    callId: entry.callId,
    attempt: entry.attempt,
    platform: entry.platform,
    endpoint: entry.endpoint,
    status: entry.status,
    errorType: entry.errorType,
    requestId: entry.requestId,
    creditsUsed,
    durationMs: entry.durationMs,
    retryInMs,
    walkId: entry.walkId,
  });
}

/**
 * The request itself. A cancel does not abort it in flight: the service may finish and charge it, so
 * its answer is awaited (for the grace), stored and settled; the call stops before its next request.
 */
async function request(c: Caller, s: CallState, slot: Slot, headers: Record<string, string>): Promise<HttpOutcome> {
  const { d, book } = c;
  book.attemptsInFlight++;
  const inFlight = graceSignal(s.plan.opts.signal, d.cancelGraceMs());
  try {
    return await d.http.get(s.url, headers, inFlight.signal, s.plan.opts.timeoutMs ?? d.timeoutMs());
  } catch (e) {
    throw cancelled(e);
  } finally {
    inFlight.done();
    book.attemptsInFlight--;
    slot.release();
  }
}

/**
 * The signal an attempt in flight is sent with: it aborts `graceMs` after the caller's does (real
 * time, like the attempt's deadline) — an answer that arrives meanwhile is kept; one that does not
 * is left as a lost answer (pending in the journal, judged by the next run of the same request).
 */
export function graceSignal(signal: AbortSignal | undefined, graceMs: number): { signal: AbortSignal | undefined; done: () => void } {
  if (!signal) return { signal: undefined, done: () => {} };
  const ac = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onAbort = () => {
    timer = setTimeout(() => ac.abort(signal.reason), graceMs);
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return {
    signal: ac.signal,
    done: () => {
      signal.removeEventListener('abort', onAbort);
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}
