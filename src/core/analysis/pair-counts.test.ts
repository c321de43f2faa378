import { describe, expect, it } from 'vitest';
import { PairCounts } from './pair-counts';

describe('PairCounts', () => {
  it('counts like a Map of pairs, keeps first-insertion order, through many growths', () => {
    const pc = new PairCounts(4);
    const want = new Map<string, [number, number]>();
    let s = 7;
    const rnd = (n: number): number => (s = (s * 1103515245 + 12345) % 2 ** 31) % n;
    for (let k = 0; k < 50_000; k++) {
      // a few hub nodes, many rare ones, large indexes too
      const a = k % 3 === 0 ? rnd(20) : rnd(5_000) + (k % 7 === 0 ? 2 ** 31 : 0);
      const b = rnd(3_000);
      const flag = k % 5 === 0;
      pc.add(a, b, flag);
      const key = `${a},${b}`;
      const w = want.get(key) ?? [0, 0];
      want.set(key, [w[0] + 1, w[1] + (flag ? 1 : 0)]);
    }
    expect(pc.size).toBe(want.size);
    const got = Array.from({ length: pc.size }, (_, i) => [`${pc.source[i]},${pc.target[i]}`, [pc.count[i], pc.flagged[i]]]);
    expect(got).toEqual([...want.entries()]);
    expect(pc.get(1, 2)).toBe(want.get('1,2')?.[0] ?? 0);
    expect(pc.get(2 ** 31 + 4_999, 2_999)).toBe(want.get(`${2 ** 31 + 4_999},2999`)?.[0] ?? 0);
    expect(pc.get(999_999, 999_999)).toBe(0);
  });

  it('(a, b) and (b, a) are two pairs (directed networks)', () => {
    const pc = new PairCounts();
    pc.add(1, 2);
    pc.add(2, 1);
    pc.add(1, 2);
    expect([pc.size, pc.get(1, 2), pc.get(2, 1)]).toEqual([2, 2, 1]);
  });
});
