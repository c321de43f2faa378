/** The lost-answer rules as pure functions (call/attribution.ts; docs/request-core.md), generated. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  attribute,
  attributeLate,
  insideWindow,
  keyAfterLoss,
  legalCharge,
  MAX_SPAN_MS,
  QUIET_MS,
  SHARED_READ,
  type Attribution,
} from './attribution';

const price = fc.oneof(
  fc.integer({ min: 1, max: 200 }).map((p) => ({ min: p, max: p })),
  fc.tuple(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 2000 })).map(([a, b]) => ({ min: a, max: a + b })),
);
const call = fc
  .record({ price, pages: fc.integer({ min: 1, max: 5 }), noCache: fc.boolean() })
  .map((c) => ({ ...c, ceiling: c.price.max * c.pages }));

describe('attribute', () => {
  it('a drop is this call’s charge only when it is legal and nothing else can have moved the balance', () => {
    fc.assert(
      fc.property(
        call,
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: -50, max: 3000 }),
        fc.integer({ min: 0, max: 500 }),
        fc.boolean(),
        (c, at, drop, explained, others) => {
          const before = { value: 100_000, at };
          const after = { value: 100_000 - drop - explained, at: at + 1000 };
          const a = attribute({ ...c, before, after, explained, othersActive: others, outsideActivityAt: null });
          if (others) expect(a.kind).toBe('unknown');
          else if (drop === 0) expect(a).toEqual({ kind: 'not-charged' });
          else if (legalCharge(drop, c.price, c.pages, c.ceiling, c.noCache)) expect(a).toEqual({ kind: 'charged', credits: drop });
          else expect(a).toMatchObject({ kind: 'unknown', outside: true });
        },
      ),
    );
  });

  it('no reading, readings too far apart, or an outside spender seen recently: unknown', () => {
    fc.assert(
      fc.property(call, fc.integer({ min: 1, max: 3000 }), (c, drop) => {
        const base = { ...c, explained: 0, othersActive: false, outsideActivityAt: null };
        expect(attribute({ ...base, before: null, after: { value: 0, at: 1 } }).kind).toBe('unknown');
        expect(attribute({ ...base, before: { value: drop, at: 0 }, after: null }).kind).toBe('unknown');
        expect(attribute({ ...base, before: { value: drop, at: 0 }, after: { value: 0, at: MAX_SPAN_MS + 1 } }).kind).toBe('unknown');
        expect(
          attribute({ ...base, before: { value: drop, at: 0 }, after: { value: 0, at: 10 }, outsideActivityAt: 10 - QUIET_MS + 1 }).kind,
        ).toBe('unknown');
      }),
    );
  });

  it('legal charges: 0, the shared read (not with no-cache), multiples of a fixed price within the pages, metered within floor and ceiling', () => {
    expect(legalCharge(0, { min: 20, max: 20 }, 1, 20, false)).toBe(true);
    expect(legalCharge(SHARED_READ, { min: 20, max: 20 }, 1, 20, false)).toBe(true);
    expect(legalCharge(SHARED_READ, { min: 20, max: 20 }, 1, 20, true)).toBe(false);
    expect(legalCharge(40, { min: 20, max: 20 }, 1, 20, false)).toBe(false);
    expect(legalCharge(40, { min: 20, max: 20 }, 2, 40, false)).toBe(true);
    expect(legalCharge(30, { min: 20, max: 20 }, 2, 40, false)).toBe(false);
    expect(legalCharge(19, { min: 20, max: 340 }, 1, 340, false)).toBe(false);
    expect(legalCharge(341, { min: 20, max: 340 }, 1, 340, false)).toBe(false);
    expect(legalCharge(680, { min: 20, max: 340 }, 2, 680, false)).toBe(true);
  });
});

/**
 * A dead process's lost attempt judged later (simulation finding 8): no time limit, but every
 * balance the ledger read in between must agree — before the charge (nothing unexplained) or after
 * it (exactly the drop); anything else is another spender or a top-up, and the drop is not attributed.
 */
describe('attributeLate', () => {
  it('the drop is the lost attempt’s charge only when every reading in between agrees and it is legal', () => {
    fc.assert(
      fc.property(
        call,
        fc.integer({ min: -50, max: 3000 }),
        fc.integer({ min: 0, max: 500 }),
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 0, max: 6 }),
        fc.option(
          fc.tuple(
            fc.nat({ max: 5 }),
            fc.integer({ min: -300, max: 300 }).filter((x) => x !== 0),
          ),
          { nil: null },
        ),
        fc.integer({ min: 1, max: 10 * MAX_SPAN_MS }),
        (c, drop, explained, before, after, outside, span) => {
          // readings in between: `before` of them before the lost charge, `after` of them after it; an
          // outside movement of `x` credits at one of them, seen by that reading and every later one
          const n = before + after;
          const between = Array.from({ length: n }, (_, i) => ({ value: 0, explained: Math.round((explained * (i + 1)) / (n + 1)) }));
          const at = outside && n > 0 ? Math.min(outside[0], n - 1) : -1;
          between.forEach(
            (r, i) =>
              (r.value = 100_000 - r.explained - (i >= before ? drop : 0) - (at >= 0 && i >= at ? (outside as [number, number])[1] : 0)),
          );
          const end = 100_000 - explained - drop - (at >= 0 ? (outside as [number, number])[1] : 0);
          const a = attributeLate({
            ...c,
            before: { value: 100_000, at: 0 },
            after: { value: end, at: span },
            explained,
            between,
            othersActive: false,
            outsideActivityAt: null,
          });
          if (at >= 0)
            expect(a.kind === 'charged' && a.credits === drop).toBe(false); // another cause moved it: never this call's charge
          else if (drop === 0) expect(a).toEqual({ kind: 'not-charged' });
          else if (legalCharge(drop, c.price, c.pages, c.ceiling, c.noCache))
            expect(a).toEqual({ kind: 'charged', credits: drop, ...(span > MAX_SPAN_MS ? { late: true } : {}) });
          else expect(a.kind).toBe('unknown');
        },
      ),
    );
  });
  it('other Loupe calls in between, or an outside spender this process saw since the first reading: unknown', () => {
    const base = {
      price: { min: 20, max: 340 },
      pages: 1,
      ceiling: 340,
      noCache: false,
      before: { value: 100, at: 1000 },
      after: { value: 80, at: 1000 + 10 * MAX_SPAN_MS },
      explained: 0,
      between: [],
    };
    expect(attributeLate({ ...base, othersActive: false, outsideActivityAt: null })).toEqual({ kind: 'charged', credits: 20, late: true });
    expect(attributeLate({ ...base, othersActive: true, outsideActivityAt: null }).kind).toBe('unknown');
    expect(attributeLate({ ...base, othersActive: false, outsideActivityAt: 1000 }).kind).toBe('unknown');
    expect(attributeLate({ ...base, othersActive: false, outsideActivityAt: 999 }).kind).toBe('charged');
  });
});

/**
 * docs/request-core.md's table for a lost answer. Readings: A the service never finished it (a
 * same-key retry pays the ceiling, a fresh key the price), B it finished and charged it (a same-key
 * retry is free; a fresh key is a free owner read inside the window, else the price again).
 */
describe('keyAfterLoss', () => {
  const attribution: fc.Arbitrary<Attribution> = fc.oneof(
    fc.constant<Attribution>({ kind: 'not-charged' }),
    fc.integer({ min: 1, max: 999 }).map<Attribution>((credits) => ({ kind: 'charged', credits })),
    fc.integer({ min: 1, max: 999 }).map<Attribution>((credits) => ({ kind: 'charged', credits, late: true })),
    fc.constant<Attribution>({ kind: 'unknown', why: 'x' }),
  );
  it('inside the window always a fresh key: the price under A, a free owner read under B — never the ceiling', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.integer({ min: 1, max: 5000 }), attribution, (floor, extra, a) => {
        expect(keyAfterLoss({ insideWindow: true, floor, ceiling: floor + extra, attribution: a })).toBe('fresh');
      }),
    );
  });
  it('outside it: the same key where the ceiling is no more than the cheapest fresh call, or where the balance attributes the charge; else a fresh key', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.integer({ min: 0, max: 5000 }), attribution, (floor, extra, a) => {
        const key = keyAfterLoss({ insideWindow: false, floor, ceiling: floor + extra, attribution: a });
        if (extra === 0)
          expect(key).toBe('same'); // a fixed-price single page: A → the price, B → free
        // unknown, not charged, or charged as measured across readings far apart (a dead process's): worst case the price
        else expect(key).toBe(a.kind === 'charged' && !a.late ? 'same' : 'fresh');
      }),
    );
  });
  it('the window is measured from the lost attempt, with a margin, and never under no-cache', () => {
    expect(insideWindow(3600, 0, 3_000_000, false)).toBe(true);
    expect(insideWindow(3600, 0, 3_550_000, false)).toBe(false); // inside the last minute: the retry may arrive after it
    expect(insideWindow(3600, 0, 1000, true)).toBe(false);
    expect(insideWindow(0, 0, 1000, false)).toBe(false);
  });
});
