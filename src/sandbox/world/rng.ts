/**
 * Small, fast, deterministic hashing and pseudo-random helpers.
 * Everything in the world is derived from these: no Math.random, no Date.now.
 */
import { mulberry32 } from '../../shared/random';

/** murmur3 finaliser: good avalanche for 32-bit ints. */
export function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** FNV-1a over UTF-16 code units, seeded, finalised. */
export function hashStr(s: string, seed = 0): number {
  let h = (0x811c9dc5 ^ Math.imul(seed | 0, 0x9e3779b1)) >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix(h);
}

/** Combine two 32-bit values into one well-mixed 32-bit value. */
export function mix(a: number, b: number): number {
  return fmix((Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x7f4a7c15, 0xc2b2ae35)) >>> 0);
}

export function mix3(a: number, b: number, c: number): number {
  return mix(mix(a, b), c);
}

/** Hash → float in [0, 1). */
export function unit(h: number): number {
  return (h >>> 0) / 4294967296;
}

/** A mulberry32 stream (src/shared/random.ts) with the helpers the world draws with. */
export class Rng {
  private readonly stream: () => number;
  constructor(seed: number) {
    this.stream = mulberry32(seed);
  }
  next(): number {
    return this.stream();
  }
  u32(): number {
    return Math.floor(this.next() * 4294967296) >>> 0;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  range(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(arr: readonly T[]): T {
    return arr[Math.floor(this.next() * arr.length)];
  }
  /** Heavy-tailed integer: 10^(lo + (hi-lo) * u^skew). */
  logInt(lo: number, hi: number, skew = 1.6): number {
    return Math.floor(Math.pow(10, lo + (hi - lo) * Math.pow(this.next(), skew)));
  }
}

const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const B36 = '0123456789abcdefghijklmnopqrstuvwxyz';

/** Deterministic token of `len` characters from an alphabet, driven by two hashes. */
export function token(h1: number, h2: number, len: number, alphabet: 'b62' | 'b64' | 'b36' = 'b64'): string {
  const a = alphabet === 'b62' ? B62 : alphabet === 'b36' ? B36 : B64URL;
  const r = new Rng(mix(h1, h2));
  let s = '';
  for (let i = 0; i < len; i++) s += a[r.int(a.length)];
  return s;
}

/** Deterministic Fisher-Yates order key: stable as lists grow (sort by key). */
export function orderKey(h: number, i: number): number {
  return mix(h ^ 0x5bd1e995, i);
}
