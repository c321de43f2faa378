import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { grouped } from './grouped';

describe('grouped', () => {
  it("writes what toLocaleString('en-US') writes, for every number", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }),
          fc.maxSafeInteger(),
          fc.integer({ min: 0, max: 20 }).map((k) => 10 ** k),
          fc.integer({ min: 0, max: 20 }).map((k) => 10 ** k - 1),
          fc.double(),
          fc.constantFrom(0, -0, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 2 ** 53, Infinity, -Infinity, NaN, 0.5, 1234.5678),
        ),
        (n) => {
          expect(grouped(n)).toBe(n.toLocaleString('en-US'));
        },
      ),
      { numRuns: 5000 },
    );
  });
});
