import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { openArchive, type Archive } from './index';
import { reconcileLedger } from './reconcile';
import type { LedgerEntry } from '../ports';
import { ledgerEntry } from './test-fixtures';
import { testDb } from './testing';

let n = 0;
function row(a: Archive, over: Partial<LedgerEntry>): void {
  n++;
  a.recordAttempt(
    ledgerEntry({
      callId: `c${n}`,
      startedAt: n * 10_000,
      durationMs: 100,
      params: '{}',
      paramsHash: 'h',
      idempotencyKey: `k${n}`,
      requestId: `req_${n}`,
      creditsUsed: 0,
      creditsRemaining: null,
      source: 'cli',
      ...over,
    }),
  );
}

describe('the ledger against the balance', () => {
  it('agrees when every drop between readings is recorded (inferred charges count; rows without a balance in between count)', () => {
    const a = openArchive(':memory:');
    row(a, { creditsUsed: 20, creditsRemaining: 980 });
    row(a, { creditsUsed: 0, creditsRemaining: 980, dryRun: true });
    row(a, { creditsUsed: 0, creditsRemaining: null, status: null, errorType: 'NETWORK_TIMEOUT' });
    row(a, { creditsUsed: 20, creditsRemaining: null, chargeReason: 'inferred:lost_answer', status: null });
    row(a, { creditsUsed: 20, creditsRemaining: 940 });
    row(a, { creditsUsed: 5, creditsRemaining: null, chargeReason: 'inferred:lost_answer' });
    const r = reconcileLedger(testDb(a));
    expect(r).toMatchObject({ rows: 6, readings: 3, recorded: 65, inferred: 25, gaps: [], recordedSinceLast: 5, expectedBalance: 935 });
    expect(r.last).toMatchObject({ balance: 940, requestId: 'req_5' });
    a.close();
  });

  it('lists unrecorded spending, a top-up and a charge that did not happen, with time range, request ids and the movement', () => {
    const a = openArchive(':memory:');
    row(a, { creditsUsed: 20, creditsRemaining: 1000 }); // 1
    row(a, { creditsUsed: 20, creditsRemaining: 950 }); // 2: dropped 50, recorded 20 → 30 elsewhere
    row(a, { creditsUsed: 20, creditsRemaining: 5930 }); // 3: went up 4980 where 20 spent → top-up of 5000
    row(a, { creditsUsed: 0, creditsRemaining: null }); // 4
    row(a, { creditsUsed: 100, creditsRemaining: 5910 }); // 5: dropped 20, recorded 100 → 80 less
    const r = reconcileLedger(testDb(a));
    expect(r.gaps).toHaveLength(3);
    const [g1, g2, g3] = r.gaps;
    expect(g1).toMatchObject({
      kind: 'unrecorded_spending',
      expected: 20,
      observed: 50,
      difference: 30,
      fromRequestId: expect.stringMatching(/^req_/),
      rows: 1,
    });
    expect(g2).toMatchObject({ kind: 'top_up_or_refund', expected: 20, observed: -4980, difference: -5000 });
    expect(g3).toMatchObject({ kind: 'less_than_recorded', expected: 100, observed: 20, difference: -80, rows: 2 });
    expect(g3.requestIds).toHaveLength(2);
    expect(g3.to).toBeGreaterThan(g3.from);
    expect(r.expectedBalance).toBe(5910);
    a.close();
  });

  it('two concurrent answers written in the other order than the service charged them are not a gap', () => {
    const a = openArchive(':memory:');
    row(a, { creditsUsed: 20, creditsRemaining: 1000, startedAt: 0, durationMs: 100 });
    // B was charged first (balance 980), then A (960); A's answer was written first
    row(a, { creditsUsed: 20, creditsRemaining: 960, startedAt: 1_000, durationMs: 900 }); // A
    row(a, { creditsUsed: 20, creditsRemaining: 980, startedAt: 1_100, durationMs: 700 }); // B
    row(a, { creditsUsed: 20, creditsRemaining: 940, startedAt: 5_000, durationMs: 100 });
    const r = reconcileLedger(testDb(a));
    expect(r.gaps).toEqual([]);
    expect(r.expectedBalance).toBe(940);
    a.close();
  });

  it('--since limits the rows; an empty ledger has nothing to compare', () => {
    const a = openArchive(':memory:');
    expect(reconcileLedger(testDb(a))).toMatchObject({ rows: 0, last: null, expectedBalance: null, gaps: [] });
    row(a, { creditsUsed: 20, creditsRemaining: 1000, startedAt: 1_000 });
    row(a, { creditsUsed: 20, creditsRemaining: 6000, startedAt: 2_000 }); // a top-up
    row(a, { creditsUsed: 20, creditsRemaining: 5980, startedAt: 3_000 });
    expect(reconcileLedger(testDb(a)).gaps).toHaveLength(1);
    expect(reconcileLedger(testDb(a), { since: 2_000 })).toMatchObject({ rows: 2, gaps: [], expectedBalance: 5980 });
    a.close();
  });
});

describe('the shapes a kill -9 leaves', () => {
  it('a ledger never idle from its first row (a dead run and the resumed one stamped behind it) still names unrecorded charges', () => {
    const a = openArchive(':memory:');
    // the dead process: three answers of 20 credits each, always something in flight
    row(a, { creditsUsed: 20, creditsRemaining: 99_980, startedAt: 0, durationMs: 5_000 });
    row(a, { creditsUsed: 20, creditsRemaining: 99_960, startedAt: 100, durationMs: 5_000 });
    row(a, { creditsUsed: 20, creditsRemaining: 99_940, startedAt: 200, durationMs: 5_000 });
    // killed with 7 requests in flight, charged 140 between them: no row
    // the resumed process, its clock behind the dead one's: a free re-read (0 recorded for the
    // lost charge) and two charged answers, all inside the dead run's step
    row(a, { creditsUsed: 0, creditsRemaining: 99_800, startedAt: 300, durationMs: 5_000 });
    row(a, { creditsUsed: 20, creditsRemaining: 99_780, startedAt: 400, durationMs: 5_000 });
    row(a, { creditsUsed: 20, creditsRemaining: 99_760, startedAt: 500, durationMs: 5_000 });
    const r = reconcileLedger(testDb(a));
    expect(r.expectedBalance).toBe(99_760); // what GET /v1/credits says: only the gap can tell
    expect(r.gaps).toHaveLength(1);
    expect(r.gaps[0]).toMatchObject({ kind: 'unrecorded_spending', difference: 140, observed: 220, expected: 80, atLeast: true });
    a.close();
  });

  it('the first step read in another order than charged is not a gap', () => {
    const a = openArchive(':memory:');
    // from 1,000: B charged first (980), then A (960); A answered and was written first
    row(a, { creditsUsed: 20, creditsRemaining: 960, startedAt: 0, durationMs: 900 }); // A
    row(a, { creditsUsed: 20, creditsRemaining: 980, startedAt: 100, durationMs: 700 }); // B
    row(a, { creditsUsed: 20, creditsRemaining: 940, startedAt: 5_000, durationMs: 100 });
    expect(reconcileLedger(testDb(a)).gaps).toEqual([]);
    a.close();
  });

  it('generated: attempts in flight together from the first row, charged in any order — a gap only when the ledger misses a charge', () => {
    const a = openArchive(':memory:');
    fc.assert(
      fc.property(
        fc.array(
          fc.integer({ min: 0, max: 3 }).map((k) => k * 20),
          { minLength: 2, maxLength: 8 },
        ),
        fc.func(fc.integer()),
        fc.integer({ min: 0, max: 3 }).map((k) => k * 20),
        (charges, order, missed) => {
          const since = (n + 1) * 10_000;
          // the service charges the attempts in its own order; each answer reads the balance right
          // after its own charge; `missed` credits (an attempt whose row was never written) are
          // charged after the first charge and before the last
          const seq = charges.map((_, i) => i).sort((x, y) => order(x) - order(y) || x - y);
          const after = new Map<number, number>();
          let balance = 10_000;
          seq.forEach((i, k) => {
            if (k === seq.length - 1) balance -= missed;
            balance -= charges[i];
            after.set(i, balance);
          });
          charges.forEach((used, i) =>
            row(a, { creditsUsed: used, creditsRemaining: after.get(i) as number, startedAt: since + i * 10, durationMs: 1_000 }),
          );
          const r = reconcileLedger(testDb(a), { since });
          // never a gap that is not there; a missed charge shows, exactly (no top-up here)
          if (missed === 0) expect(r.gaps).toEqual([]);
          else {
            expect(r.gaps).toHaveLength(1);
            expect(r.gaps[0]).toMatchObject({ atLeast: true, kind: 'unrecorded_spending', difference: missed });
          }
          expect(r.expectedBalance).toBe(balance);
        },
      ),
      { numRuns: 100 },
    );
    a.close();
  });
});
