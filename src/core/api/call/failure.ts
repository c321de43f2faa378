/**
 * After a failed attempt: a refused API key leaves the pool, a lost answer goes through the loss
 * rule (loss.ts), and the pure decision (decide.ts) is carried out — a fresh Idempotency-Key, a
 * rest for the key, a wait — or the call ends with the error that says why.
 */
import { cancelled, rateWait } from '../call-errors';
import { ApiError, describeApiError, errorSuffix } from '../errors';
import { redact } from '../canonical';
import type { Attempt } from './attempt';
import { chargedSoFar, failJournal, lossCallOf, newKey, type Caller, type CallState } from './context';
import { decideRetry } from './decide';
import { afterLoss } from './loss';

/** Returns when the next attempt may go; throws the call's error otherwise. */
export async function afterFailure(c: Caller, s: CallState, a: Attempt): Promise<void> {
  const { d, book } = c;
  const { j, plan } = s;
  const keyRefusedOthers = a.errorType === 'INVALID_API_KEY' || a.errorType === 'API_KEY_REVOKED' ? refuseKey(c, a) : null;
  let lossKey: 'same' | 'fresh' | null = null;
  if (a.oc.kind === 'lost') {
    book.losses++;
    // whether a free call may have covered it is judged as things stood when it was sent (it may have used the last one)
    const lost = {
      attempt: a.attempt,
      startedAt: a.startedAt,
      idempotencyKey: j.idempotencyKey,
      before: j.before ?? null,
      settled: false,
      freeMayCover: a.freeMayCover,
    };
    const r = a.willRetry ? await afterLoss(book, d.readBalance, lossCallOf(s, j.callId), lost, () => d.clock.now()) : null;
    // keep the earliest unresolved loss (the one the service may have billed), unless this one's key is kept
    // on the balance's word (its replay settles it), or the balance cleared the earlier one (finding 12)
    if (s.loss === null || s.loss.lost.settled || r?.keptOnBalance || s.loss.attribution.kind === 'not-charged')
      s.loss = r ?? { lost, attribution: { kind: 'unknown', why: 'not retried' }, keptOnBalance: false };
    lossKey = r?.key ?? null;
  }
  const rateLimit = a.errorType === 'RATE_LIMITED' || a.errorType === 'CONCURRENCY_LIMIT';
  const step = decideRetry({
    outcome: a.oc.kind === 'success' ? 'error' : a.oc.kind,
    errorType: a.errorType,
    retryable: a.retryable,
    willRetry: a.willRetry,
    waitMs: a.waitMs,
    maxWaitMs: d.maxWaitMs(),
    keyRefusedOthers,
    keyMoves: s.keyMoves,
    lossKey,
    lossOnKey: s.loss !== null && j.idempotencyKey === s.loss.lost.idempotencyKey,
    othersUsableBefore: a.waitMs !== null && rateLimit && d.pool.othersUsableBefore(a.slot.key, d.clock.now() + a.waitMs),
  });
  const until = () => d.clock.now() + (a.waitMs ?? 0);
  const rateLimited = (type: string | null, waitMs: number) =>
    d.events.emit('rate-limited', {
      type: type ?? 'RATE_LIMITED',
      retryAfterMs: waitMs,
      until: until(),
      platform: plan.platform,
      endpoint: plan.endpoint,
    });
  switch (step.next) {
    case 'move-key':
      s.keyMoves++;
      newKey(c, s);
      return;
    case 'rest-key':
      if (step.freshKey) newKey(c, s);
      // limits count per key: this key rests until Retry-After, the next attempt goes to another
      a.slot.pacer.pause(until());
      rateLimited(a.errorType, step.waitMs);
      d.log(
        `${plan.where}: ${a.errorType} on ${a.slot.name ? `key "${a.slot.name}"` : 'a key'}${a.requestId ? ` [${a.requestId}]` : ''}; it rests ${Math.round(step.waitMs)} ms, the next attempt goes to another key`,
      );
      return;
    case 'stop': {
      if (step.pauseKey) a.slot.pacer.pause(until());
      failJournal(c, s);
      rateLimited(a.errorType, step.waitMs);
      const e = rateWait(
        { where: plan.where, until: until(), now: d.clock.now(), maxWaitMs: d.maxWaitMs() },
        a.errorType,
        a.requestId,
        a.retryAfterS,
      );
      throw s.inferredSoFar > 0 ? new ApiError({ ...e.toJSON(), kind: 'rate_wait', creditsCharged: s.inferredSoFar }) : e;
    }
    case 'wait': {
      if (step.freshKey) newKey(c, s);
      const label = a.errorType ?? `network (${a.out.failure?.reason ?? `HTTP ${a.out.status}`})`;
      d.log(
        `${plan.where}: attempt ${a.attempt} failed with ${label}${a.requestId ? ` [${a.requestId}]` : ''}; retrying in ${Math.round(step.waitMs)} ms`,
      );
      if (step.pauseKey) a.slot.pacer.pause(until());
      if (rateLimit) rateLimited(a.errorType, step.waitMs);
      try {
        await d.clock.sleep(step.waitMs, plan.opts.signal);
      } catch (e) {
        throw cancelled(e);
      }
      return;
    }
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
