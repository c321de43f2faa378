/**
 * Issue 29: the facts' rid order (bundle-facts.ts ridOrder: rids packed with their place and
 * sorted as numbers) is the order of sorting the rows by comparing rids, the reference it
 * replaced — over generated groups of unique rids, small and past what the packing holds.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ridOrder } from './bundle-facts';

/** the reference: every (group, row) sorted by its rid (Array.prototype.sort is stable) */
function byComparing(parts: Array<{ rids: number[] }>): Array<[number, number]> {
  const at: Array<[number, number, number]> = [];
  parts.forEach((p, i) => p.rids.forEach((rid, k) => at.push([rid, i, k])));
  at.sort((x, y) => x[0] - y[0]);
  return at.map(([, i, k]) => [i, k]);
}

const groups = (rid: fc.Arbitrary<number>) =>
  fc.uniqueArray(rid, { maxLength: 300 }).chain((rids) =>
    fc
      .array(fc.nat(rids.length), { maxLength: 6 })
      .map((cuts) => [0, ...cuts.sort((a, b) => a - b), rids.length])
      .map((cuts) => cuts.slice(1).map((end, i) => ({ rids: rids.slice(cuts[i], end) }))),
  );

describe('the facts in rid order', () => {
  it('as sorting the rows by comparing rids', () => {
    for (const rid of [fc.nat(1_000_000), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), fc.nat(40)])
      fc.assert(
        fc.property(groups(rid), (parts) => {
          const got = [...ridOrder(parts)].map(([p, k]): [number, number] => [parts.indexOf(p), k]);
          expect(got).toEqual(byComparing(parts));
        }),
        { numRuns: 200 },
      );
  });
});
