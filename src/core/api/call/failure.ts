/**
 * After a failed attempt: a refused API key leaves the pool, a lost answer goes through the loss
 * rule (loss.ts) and the call keeps the loss that matters (`keptLoss`, pure), and the pure decision
 * (decide.ts) is carried out — a fresh Idempotency-Key, a rest for the key, a wait — or the call
 * ends with the error that says why.
 */
import { cancelled, rateWait } from '../call-errors';
import { ApiError, describeApiError, errorSuffix } from '../errors';
import { redact } from '../canonical';
import type { Attempt } from './attempt';
import { chargedSoFar, failJournal, lossCallOf, newKey, type Caller, type CallState } from './context';
import { decideRetry, type Facts, type Step } from './decide';
import { afterLoss, type LossState } from './loss';
import { settleCharged } from './settle';
import type { Lost } from '../balance-book';

/** Returns when the next attempt may go; throws the call's error otherwise. */
export async function afterFailure(c: Caller, s: CallState, a: Attempt): Promise<void> {
  const keyRefusedOthers = isKeyRefusal(a.errorType) ? refuseKey(c, a) : null;
  const lossKey = a.oc.kind === 'lost' ? await noteLoss(c, s, a) : null;
  const step = decideRetry(factsOf(c, s, a, keyRefusedOthers, lossKey));
  await carryOut(c, s, a, step);
}

const isKeyRefusal = (type: string | null): boolean => type === 'INVALID_API_KEY' || type === 'API_KEY_REVOKED';
const isRateLimit = (type: string | null): boolean => type === 'RATE_LIMITED' || type === 'CONCURRENCY_LIMIT';

/**
 * A lost answer: the loss rule (loss.ts) judges it, when the call retries, and the call keeps the
 * loss that matters (`keptLoss`); returns the key the loss rule chose for the retry, if any.
 */
async function noteLoss(c: Caller, s: CallState, a: Attempt): Promise<'same' | 'fresh' | null> {
  const { d, book } = c;
  const { j } = s;
  book.losses++;
  // whether a free call may have covered it is judged as things stood when it was sent (it may have used the last one)
  const lost: Lost = {
    attempt: a.attempt,
    startedAt: a.startedAt,
    idempotencyKey: j.idempotencyKey,
    before: j.before ?? null,
    settled: false,
    freeMayCover: a.freeMayCover,
    freeLeft: a.freeLeft,
  };
  const r = a.willRetry ? await afterLoss(book, d.readBalance, lossCallOf(s, j.callId), lost, () => d.clock.now()) : null;
  if (r) settleCharged(c, s, r, r.key);
  s.loss = keptLoss(s.loss, lost, r);
  return r?.key ?? null;
}

/**
 * Which loss rides on the call after a new one (pure): the earliest unresolved loss (the one the
 * service may have billed) stays, unless the new one's key is kept on the balance's word (its
 * replay settles it), or the balance cleared the earlier one (finding 12). `judged` is the loss
 * rule's verdict on the new one, null when the call does not retry.
 */
export function keptLoss(current: LossState | null, lost: Lost, judged: LossState | null): LossState {
  if (current === null || current.lost.settled || judged?.keptOnBalance || current.attribution.kind === 'not-charged')
    return judged ?? { lost, attribution: { kind: 'unknown', why: 'not retried' }, keptOnBalance: false };
  return current;
}

/** What the retry decision takes (decide.ts), read from the attempt, the call and the key pool. */
function factsOf(c: Caller, s: CallState, a: Attempt, keyRefusedOthers: boolean | null, lossKey: 'same' | 'fresh' | null): Facts {
  const { d } = c;
  return {
    outcome: a.oc.kind === 'success' ? 'error' : a.oc.kind,
    errorType: a.errorType,
    retryable: a.retryable,
    willRetry: a.willRetry,
    waitMs: a.waitMs,
    maxWaitMs: d.maxWaitMs(),
    keyRefusedOthers,
    keyMoves: s.keyMoves,
    lossKey,
    lossOnKey: s.loss !== null && s.j.idempotencyKey === s.loss.lost.idempotencyKey,
    othersUsableBefore: a.waitMs !== null && isRateLimit(a.errorType) && d.pool.othersUsableBefore(a.slot.key, d.clock.now() + a.waitMs),
  };
}

/** The decision carried out: a new key, a rest, a wait — or the call's error, thrown. */
async function carryOut(c: Caller, s: CallState, a: Attempt, step: Step): Promise<void> {
  switch (step.next) {
    case 'move-key':
      s.keyMoves++;
      newKey(c, s);
      return;
    case 'rest-key':
      return restKey(c, s, a, step);
    case 'stop':
      throw stopForWait(c, s, a, step);
    case 'wait':
      return waitToRetry(c, s, a, step);
    case 'give-up':
      // retries exhausted; after a lost answer the journal stays pending (the service may have
      // charged it): the same request later picks the cheapest retry and records what was billed
      failJournal(c, s);
      throw gaveUp(s, a);
    case 'fail':
      failJournal(c, s);
      throw refused(c, s, a);
  }
}

/** when the attempt's wait ends, from now */
const waitEnd = (c: Caller, a: Attempt): number => c.d.clock.now() + (a.waitMs ?? 0);

function emitRateLimited(c: Caller, s: CallState, a: Attempt, waitMs: number): void {
  c.d.events.emit('rate-limited', {
    type: a.errorType ?? 'RATE_LIMITED',
    retryAfterMs: waitMs,
    until: waitEnd(c, a),
    platform: s.plan.platform,
    endpoint: s.plan.endpoint,
  });
}

/** Limits count per key: this key rests until Retry-After, the next attempt goes to another. */
function restKey(c: Caller, s: CallState, a: Attempt, step: Extract<Step, { next: 'rest-key' }>): void {
  if (step.freshKey) newKey(c, s);
  a.slot.pacer.pause(waitEnd(c, a));
  emitRateLimited(c, s, a, step.waitMs);
  const key = a.slot.name ? `key "${a.slot.name}"` : 'a key';
  c.d.log(
    `${s.plan.where}: ${a.errorType} on ${key}${a.requestId ? ` [${a.requestId}]` : ''}; it rests ${Math.round(step.waitMs)} ms, the next attempt goes to another key`,
  );
}

/** A wait longer than the cap: the call stops (`rate_wait`) with what it was charged so far. */
function stopForWait(c: Caller, s: CallState, a: Attempt, step: Extract<Step, { next: 'stop' }>): ApiError {
  const { d } = c;
  if (step.pauseKey) a.slot.pacer.pause(waitEnd(c, a));
  failJournal(c, s);
  emitRateLimited(c, s, a, step.waitMs);
  const e = rateWait(
    { where: s.plan.where, until: waitEnd(c, a), now: d.clock.now(), maxWaitMs: d.maxWaitMs() },
    a.errorType,
    a.requestId,
    a.retryAfterS,
  );
  return s.inferredSoFar > 0 ? new ApiError({ ...e.toJSON(), kind: 'rate_wait', creditsCharged: s.inferredSoFar }) : e;
}

/** Wait, then the next attempt (a cancel during the wait ends the call as cancelled). */
async function waitToRetry(c: Caller, s: CallState, a: Attempt, step: Extract<Step, { next: 'wait' }>): Promise<void> {
  const { d } = c;
  if (step.freshKey) newKey(c, s);
  const label = a.errorType ?? `network (${a.out.failure?.reason ?? `HTTP ${a.out.status}`})`;
  d.log(
    `${s.plan.where}: attempt ${a.attempt} failed with ${label}${a.requestId ? ` [${a.requestId}]` : ''}; retrying in ${Math.round(step.waitMs)} ms`,
  );
  if (step.pauseKey) a.slot.pacer.pause(waitEnd(c, a));
  if (isRateLimit(a.errorType)) emitRateLimited(c, s, a, step.waitMs);
  try {
    await d.clock.sleep(step.waitMs, s.plan.opts.signal);
  } catch (e) {
    throw cancelled(e);
  }
}

/** A key the service refuses (free, not rate counted) leaves the pool; whether others remain. */
function refuseKey(c: Caller, a: Attempt): boolean {
  const { d } = c;
  const type = a.errorType as string;
  const others = d.pool.refuse(a.slot.name, a.slot.key, type);
  const who = a.slot.name ? `The key "${a.slot.name}"` : 'The API key';
  const fix = type === 'API_KEY_REVOKED' ? 'remove or replace it in Settings' : 'check or replace it in Settings';
  const message = `${who} was refused by the service (${type}): it left the pool${others ? ' and its work moved to the other keys' : ''}; ${fix}.`;
  d.log(`warning: ${message}`);
  d.events.emit('key-refused', { name: a.slot.name, type, message });
  d.events.emit('warning', { code: 'key_refused', message });
  return others;
}

function gaveUp(s: CallState, a: Attempt): ApiError {
  const { errEnv, requestId, out } = a;
  const what = errEnv
    ? describeApiError(
        String(errEnv.error.type),
        redact(errEnv.error.message ?? '', s.key),
        requestId ?? undefined,
        out.status ?? undefined,
      )
    : `No usable answer from the service (${out.failure?.message ?? `HTTP ${out.status}`})${errorSuffix(undefined, requestId ?? undefined)}`;
  return new ApiError({
    kind: 'gave_up',
    type: a.errorType ?? undefined,
    status: out.status ?? undefined,
    requestId: requestId ?? undefined,
    retryAfter: a.retryAfterS,
    attempts: a.attempt,
    ...chargedSoFar(s),
    message: `Gave up after ${a.attempt - 1} retries on ${s.plan.where}: ${what.replace(/\.$/, '')}.`,
  });
}

/** The service's refusal as it said it (any 4xx is "fix the request"; a 4xx with no envelope too). */
function refused(c: Caller, s: CallState, a: Attempt): ApiError {
  const { errEnv, requestId, out } = a;
  const status = out.status ?? undefined;
  if (errEnv) {
    const type = String(errEnv.error.type);
    let message = describeApiError(type, redact(errEnv.error.message ?? '', s.key), requestId ?? undefined, status);
    if (type === 'INSUFFICIENT_CREDITS') {
      const bal = a.creditsRemaining ?? c.d.balance();
      message = `Out of credits: this call holds ${s.hold}${bal !== null ? `, balance is ${bal}` : ''}${errorSuffix(type, requestId ?? undefined)}`;
    }
    return new ApiError({ kind: 'api', type, status, requestId: requestId ?? undefined, attempts: a.attempt, ...chargedSoFar(s), message });
  }
  const body = out.text ? `: "${redact(out.text.replace(/\s+/g, ' ').trim().slice(0, 120), s.key)}"` : '';
  return new ApiError({
    kind: 'api',
    status,
    requestId: requestId ?? undefined,
    attempts: a.attempt,
    message: `The service refused the call to ${s.plan.where} with HTTP ${out.status} and no error envelope${body}; fix the request (nothing was charged)${errorSuffix(undefined, requestId ?? undefined)}.`,
  });
}
