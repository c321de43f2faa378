/**
 * The attempt (docs/request-core.md "Pipeline of one call", step 6): one request through the slot,
 * its outcome classified (retry.ts), the ledger row written with what the service reported, the
 * balance noted, the `attempt` event.
 */
import type { Envelope, ErrorEnvelope } from '../../../shared/api-types';
import { readingTime, type LedgerEntry } from '../../ports';
import { cancelled } from '../call-errors';
import type { HttpOutcome } from '../http';
import type { Slot } from '../key-pool';
import { classify, retryAfterOf, retryDelay, type Outcome } from '../retry';
import { FREE_CALL_PRICE } from './attribution';
import type { Caller, CallState } from './context';

/** attempts that may end at the deadline before a call gives up */
export const MAX_TIMEOUTS = 3;

export interface Attempt {
  attempt: number;
  slot: Slot;
  startedAt: number;
  out: HttpOutcome;
  oc: Outcome;
  okEnv: Envelope | undefined;
  errEnv: ErrorEnvelope | undefined;
  errorType: string | null;
  requestId: string | null;
  creditsUsed: number;
  creditsRemaining: number | null;
  /** the outcome is one the policy retries (lost, unsent, a retryable error) */
  retryable: boolean;
  /** …and this call retries it (retries left, fewer than MAX_TIMEOUTS deadlines missed) */
  willRetry: boolean;
  retryAfterS: number | undefined;
  /** the wait before the next attempt, when there is one */
  waitMs: number | null;
  /** no free call was known used up when it was sent */
  freeMayCover: boolean;
  entry: LedgerEntry;
}

export async function sendAttempt(c: Caller, s: CallState, slot: Slot): Promise<Attempt> {
  const { d, book } = c;
  const { j, plan } = s;
  const attempt = ++s.attempt;
  const headers: Record<string, string> = { 'x-api-key': slot.key, 'Idempotency-Key': j.idempotencyKey };
  if (plan.opts.fresh) headers['cache-control'] = 'no-cache';
  const startedAt = d.clock.now();
  const freeMayCover = !book.noFreeCalls();
  const out = await request(c, s, slot, headers);
  const durationMs = Math.max(0, d.clock.now() - startedAt) || out.durationMs;
  const oc = classify(out);
  const okEnv = oc.kind === 'success' ? oc.env : undefined;
  const errEnv = oc.kind === 'error' ? oc.env : undefined;
  const errorType = errEnv ? String(errEnv.error.type) : null;
  const requestId = okEnv?.request_id ?? errEnv?.request_id ?? out.headers['x-request-id'] ?? null;
  const creditsUsed = okEnv && typeof okEnv.credits_used === 'number' && okEnv.credits_used > 0 ? okEnv.credits_used : 0;
  const creditsRemaining =
    typeof okEnv?.credits_remaining === 'number'
      ? okEnv.credits_remaining
      : typeof errEnv?.credits_remaining === 'number'
        ? errEnv.credits_remaining
        : null;

  if (out.failure?.reason === 'timeout') s.timeouts++;
  const retryable = oc.kind === 'lost' || oc.kind === 'unsent' || (oc.kind === 'error' && oc.retryable);
  // a service that misses the deadline three times will not make it on the next try either
  const willRetry = retryable && attempt <= d.maxRetries && s.timeouts < MAX_TIMEOUTS;
  const retryAfterS = retryAfterOf(out, d.clock.now());
  const waitMs = willRetry ? retryDelay(attempt - 1, retryAfterS, d.random) : null;

  const entry: LedgerEntry = {
    callId: j.callId,
    attempt,
    startedAt,
    durationMs,
    platform: plan.platform,
    endpoint: plan.endpoint,
    params: plan.canonical,
    paramsHash: plan.hash,
    idempotencyKey: j.idempotencyKey,
    requestId,
    status: out.status,
    errorType: errorType ?? (out.failure ? `NETWORK_${out.failure.reason.toUpperCase()}` : oc.kind === 'refused' ? 'NON_JSON_4XX' : null),
    creditsUsed,
    creditsRemaining,
    chargeReason: okEnv?.charge_reason ?? null,
    cached: okEnv?.cached === true,
    freeCall: okEnv?.free_call === true,
    idempotentReplay: okEnv?.idempotent_replay === true,
    source: plan.source,
    walkId: plan.walkId,
    dryRun: plan.dry,
    keyName: slot.name,
  };
  c.write(() => d.store.recordAttempt(entry), creditsUsed);
  book.recorded += creditsUsed;
  // charged where a free call would have covered it under every reading: none is left
  if (creditsUsed > 0 && okEnv?.idempotent_replay !== true && s.hold > 0 && s.hold <= FREE_CALL_PRICE) book.freeCallsGone = true;
  book.mark(creditsRemaining);
  d.noteBalance(creditsRemaining, readingTime(d.clock));
  d.events.emit('attempt', {
    callId: j.callId,
    attempt,
    platform: plan.platform,
    endpoint: plan.endpoint,
    status: out.status,
    errorType: entry.errorType,
    requestId,
    creditsUsed,
    durationMs,
    retryInMs: waitMs,
    walkId: plan.walkId,
  });
  return {
    attempt,
    slot,
    startedAt,
    out,
    oc,
    okEnv,
    errEnv,
    errorType,
    requestId,
    creditsUsed,
    creditsRemaining,
    retryable,
    willRetry,
    retryAfterS,
    waitMs,
    entry,
    freeMayCover,
  };
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
