/** The retry decision on its own (call/decide.ts): docs/request-core.md "Retry policy" and its key table. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decideRetry, freshKeyAfter, MAX_KEY_MOVES, type Facts } from './decide';

const base: Facts = {
  outcome: 'error',
  errorType: 'INTERNAL_ERROR',
  retryable: true,
  willRetry: true,
  waitMs: 1000,
  maxWaitMs: 300_000,
  keyRefusedOthers: null,
  keyMoves: 0,
  lossKey: null,
  lossOnKey: false,
  othersUsableBefore: false,
};

describe('which Idempotency-Key a retry uses (the table)', () => {
  it.each(['RATE_LIMITED', 'CONCURRENCY_LIMIT', 'SERVICE_UNAVAILABLE', 'UPSTREAM_ERROR', 'INTERNAL_ERROR'])(
    'an error envelope (%s): not charged, a fresh key',
    (type) => {
      expect(decideRetry({ ...base, errorType: type })).toMatchObject({ freshKey: true });
    },
  );
  it('409 IDEMPOTENCY_IN_PROGRESS: the original still runs, the same key after Retry-After', () => {
    expect(decideRetry({ ...base, errorType: 'IDEMPOTENCY_IN_PROGRESS' })).toEqual({
      next: 'wait',
      freshKey: false,
      waitMs: 1000,
      pauseKey: false,
    });
  });
  it('never sent (connection refused): retried as is', () => {
    expect(decideRetry({ ...base, outcome: 'unsent', errorType: null })).toMatchObject({ next: 'wait', freshKey: false });
  });
  it('lost: the key the loss rule chose', () => {
    expect(decideRetry({ ...base, outcome: 'lost', errorType: null, lossKey: 'same' })).toMatchObject({ next: 'wait', freshKey: false });
    expect(decideRetry({ ...base, outcome: 'lost', errorType: null, lossKey: 'fresh' })).toMatchObject({ next: 'wait', freshKey: true });
  });
  it('an error answer after a lost one that rides on the key: the key is kept (its replay is free)', () => {
    expect(decideRetry({ ...base, lossOnKey: true })).toMatchObject({ freshKey: false });
  });
});

describe('what happens next', () => {
  it('a rate limit with another key usable before the wait ends: this key rests, the next attempt goes at once', () => {
    expect(decideRetry({ ...base, errorType: 'RATE_LIMITED', othersUsableBefore: true })).toEqual({
      next: 'rest-key',
      freshKey: true,
      waitMs: 1000,
    });
  });
  it('RATE_LIMITED pauses the key while it waits; a wait beyond the cap stops, unsent', () => {
    expect(decideRetry({ ...base, errorType: 'RATE_LIMITED' })).toMatchObject({ next: 'wait', pauseKey: true });
    expect(decideRetry({ ...base, errorType: 'RATE_LIMITED', waitMs: 86_400_000 })).toEqual({
      next: 'stop',
      waitMs: 86_400_000,
      pauseKey: true,
    });
  });
  it('retries exhausted: give up; not retried: fail', () => {
    expect(decideRetry({ ...base, willRetry: false, waitMs: null })).toEqual({ next: 'give-up' });
    expect(decideRetry({ ...base, errorType: 'RESOURCE_NOT_FOUND', retryable: false, willRetry: false, waitMs: null })).toEqual({
      next: 'fail',
    });
  });
  it('a refused API key moves the call to another key with a fresh Idempotency-Key — while others remain, at most 25 times', () => {
    const refused = { ...base, errorType: 'API_KEY_REVOKED', retryable: false, willRetry: false, waitMs: null };
    expect(decideRetry({ ...refused, keyRefusedOthers: true })).toEqual({ next: 'move-key' });
    expect(decideRetry({ ...refused, keyRefusedOthers: false })).toEqual({ next: 'fail' });
    expect(decideRetry({ ...refused, keyRefusedOthers: true, keyMoves: MAX_KEY_MOVES })).toEqual({ next: 'fail' });
  });

  it('generated: a wait only when one was planned; a fresh key never for a 409, an unsent attempt or a refused answer', () => {
    const facts = fc.record<Facts>({
      outcome: fc.constantFrom('lost', 'unsent', 'error', 'refused'),
      errorType: fc.constantFrom(
        null,
        'RATE_LIMITED',
        'CONCURRENCY_LIMIT',
        'IDEMPOTENCY_IN_PROGRESS',
        'INTERNAL_ERROR',
        'RESOURCE_NOT_FOUND',
        'API_KEY_REVOKED',
      ),
      retryable: fc.boolean(),
      willRetry: fc.boolean(),
      waitMs: fc.option(fc.integer({ min: 0, max: 90_000_000 }), { nil: null }),
      maxWaitMs: fc.integer({ min: 1, max: 600_000 }),
      keyRefusedOthers: fc.option(fc.boolean(), { nil: null }),
      keyMoves: fc.integer({ min: 0, max: 30 }),
      lossKey: fc.constantFrom(null, 'same', 'fresh'),
      lossOnKey: fc.boolean(),
      othersUsableBefore: fc.boolean(),
    });
    fc.assert(
      fc.property(facts, (f) => {
        const step = decideRetry(f);
        if (f.keyRefusedOthers === true && f.keyMoves < MAX_KEY_MOVES) expect(step.next).toBe('move-key');
        else if (f.waitMs === null) expect(step.next).toBe(f.retryable ? 'give-up' : 'fail');
        else expect(['wait', 'rest-key', 'stop']).toContain(step.next);
        if (step.next === 'stop') expect(f.waitMs).toBeGreaterThan(f.maxWaitMs);
        if (step.next === 'wait') expect(f.waitMs).toBeLessThanOrEqual(f.maxWaitMs);
        if ((f.outcome === 'error' && f.errorType === 'IDEMPOTENCY_IN_PROGRESS') || f.outcome === 'unsent' || f.outcome === 'refused')
          expect(freshKeyAfter(f)).toBe(false);
      }),
    );
  });
});
