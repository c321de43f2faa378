/**
 * The one seeded random-number generator (issue 13: there were four copies — the sandbox world's
 * `Rng`, its chaos faults, a CLI test's corpus and the benchmarks' synthetic posts). mulberry32: a
 * 32-bit state, uniform floats in [0, 1), the same sequence for the same seed on every platform.
 * Not for anything secret (use node:crypto); for deterministic worlds, faults and test data.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
