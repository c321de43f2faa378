import { describe, expect, it } from 'vitest';
import { mulberry32 } from './random';

describe('mulberry32', () => {
  it('keeps its sequence (the sandbox world, its chaos and the benchmarks are built on it: a change would move every synthetic post)', () => {
    const r = mulberry32(1);
    expect([r(), r(), r()].map((x) => Math.round(x * 4294967296))).toEqual([2693262067, 11749833, 2265367787]);
  });

  it('is deterministic per seed, in [0, 1), and seeds differ', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const c = mulberry32(43);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(Array.from({ length: 1000 }, () => b())).toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(c()).not.toBe(xs[0]);
  });
});
