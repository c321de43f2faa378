/**
 * The pure pieces of the attempt and of what follows a failure (attempt.ts, failure.ts), against
 * scripted answers: what an answer says, the retry budget, the ledger row, which loss a call keeps.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Lost } from '../balance-book';
import { headersOf, ledgerEntryOf, MAX_TIMEOUTS, readAnswer, retryOf } from './attempt';
import { keptLoss } from './failure';
import type { LossState } from './loss';
import { answer, METERED, planOf, stateOf } from './test-kit';

describe('what an answer says', () => {
  it('a success: its credits, balance and request id', () => {
    const r = readAnswer(answer.ok({ credits_used: 20, credits_remaining: 980, request_id: 'req_1' }));
    expect(r).toMatchObject({ errorType: null, creditsUsed: 20, creditsRemaining: 980, requestId: 'req_1' });
    expect(r.oc.kind).toBe('success');
  });
  it('an error envelope: its type and balance, never a charge', () => {
    const r = readAnswer(answer.error(503, 'UPSTREAM_ERROR', { credits_used: 5, credits_remaining: 70 }));
    expect(r).toMatchObject({ errorType: 'UPSTREAM_ERROR', creditsUsed: 0, creditsRemaining: 70, requestId: 'req_UPSTREAM_ERROR' });
  });
  it('a lost answer: the request id from the header, nothing known of credits', () => {
    expect(readAnswer(answer.lost())).toMatchObject({ errorType: null, requestId: 'req_lost', creditsUsed: 0, creditsRemaining: null });
  });
  it('a negative or missing credits_used counts as 0', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -1000, max: 0 }), fc.constant(undefined), fc.constant('7')), (used) => {
        expect(readAnswer(answer.ok({ credits_used: used })).creditsUsed).toBe(0);
      }),
    );
  });
});

describe('the retry budget', () => {
  const lost = readAnswer(answer.lost()).oc;
  const base = { attempt: 1, maxRetries: 5, timeouts: 0, retryAfterS: undefined, random: () => 0.5 };
  it('retries what may be retried while retries and deadlines are left', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 }), fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 5 }), (attempt, max, t) => {
        const r = retryOf(lost, { ...base, attempt, maxRetries: max, timeouts: t });
        expect(r.retryable).toBe(true);
        expect(r.willRetry).toBe(attempt <= max && t < MAX_TIMEOUTS);
        expect(r.waitMs === null).toBe(!r.willRetry);
      }),
    );
  });
  it('a 4xx and a refused answer are not retried; a retryable error waits at least its Retry-After', () => {
    expect(retryOf(readAnswer(answer.error(404, 'RESOURCE_NOT_FOUND')).oc, base)).toMatchObject({ retryable: false, waitMs: null });
    expect(retryOf(readAnswer(answer.teapot()).oc, base)).toMatchObject({ retryable: false, willRetry: false });
    const r = retryOf(readAnswer(answer.error(429, 'RATE_LIMITED')).oc, { ...base, retryAfterS: 30 });
    expect(r).toMatchObject({ retryable: true, willRetry: true, retryAfterS: 30 });
    expect(r.waitMs).toBeGreaterThanOrEqual(30_000);
  });
});

describe('the ledger row', () => {
  const plan = planOf(METERED, { handle: 'a' }, { source: 'cli' });
  const s = stateOf(plan, 340);
  const row = (out: Parameters<typeof readAnswer>[0]) =>
    ledgerEntryOf(plan, s.j, { attempt: 2, startedAt: 100, durationMs: 7, slot: { name: 'main' }, out, answer: readAnswer(out) });
  it('what the service reported, under the call and its Idempotency-Key', () => {
    expect(row(answer.ok({ credits_used: 20, credits_remaining: 980, cached: true, charge_reason: 'miss' }))).toMatchObject({
      callId: 'call-1',
      attempt: 2,
      idempotencyKey: 'idem-1',
      platform: 'photo_net',
      endpoint: 'profile/posts',
      params: plan.canonical,
      paramsHash: plan.hash,
      status: 200,
      errorType: null,
      creditsUsed: 20,
      creditsRemaining: 980,
      chargeReason: 'miss',
      cached: true,
      freeCall: false,
      idempotentReplay: false,
      source: 'cli',
      keyName: 'main',
    });
  });
  it('a transport failure and a 4xx without an envelope are named', () => {
    expect(row(answer.lost('timeout')).errorType).toBe('NETWORK_TIMEOUT');
    expect(row(answer.unsent()).errorType).toBe('NETWORK_CONNECT');
    expect(row({ status: 403, headers: {}, json: { nope: 1 }, durationMs: 1 }).errorType).toBe('NON_JSON_4XX');
  });
  it('the headers: the API key, the Idempotency-Key, no-cache only when fresh', () => {
    expect(headersOf(s, { key: 'k' })).toEqual({ 'x-api-key': 'k', 'Idempotency-Key': 'idem-1' });
    expect(headersOf(stateOf(planOf(METERED, { handle: 'a' }, { fresh: true }), 340), { key: 'k' })).toMatchObject({
      'cache-control': 'no-cache',
    });
  });
});

describe('which loss rides on the call', () => {
  const lostOf = (key: string, settled = false): Lost => ({ attempt: 1, startedAt: 0, idempotencyKey: key, before: null, settled });
  const state = (lost: Lost, kind: 'charged' | 'not-charged' | 'unknown', keptOnBalance = false): LossState => ({
    lost,
    attribution: kind === 'charged' ? { kind, credits: 20 } : kind === 'not-charged' ? { kind } : { kind, why: 'x' },
    keptOnBalance,
  });
  it('the first loss: the verdict, or "not retried" when there is none', () => {
    const judged = state(lostOf('b'), 'charged');
    expect(keptLoss(null, lostOf('b'), judged)).toBe(judged);
    expect(keptLoss(null, lostOf('b'), null)).toEqual({
      lost: lostOf('b'),
      attribution: { kind: 'unknown', why: 'not retried' },
      keptOnBalance: false,
    });
  });
  it('an earlier unresolved loss stays, unless settled, cleared by the balance, or the new key is kept on its word', () => {
    const earlier = state(lostOf('a'), 'unknown');
    const judged = state(lostOf('b'), 'unknown');
    expect(keptLoss(earlier, lostOf('b'), judged)).toBe(earlier);
    expect(keptLoss(earlier, lostOf('b'), null)).toBe(earlier);
    expect(keptLoss(state(lostOf('a', true), 'unknown'), lostOf('b'), judged)).toBe(judged);
    expect(keptLoss(state(lostOf('a'), 'not-charged'), lostOf('b'), judged)).toBe(judged);
    const kept = state(lostOf('b'), 'charged', true);
    expect(keptLoss(earlier, lostOf('b'), kept)).toBe(kept);
  });
});
