/**
 * The Parquet export's Snappy (snappy.ts) round-trips through an independent decompressor
 * (hyparquet's, a port of snappyjs) for generated inputs: random bytes (incompressible, the skip
 * heuristic), runs and repeats (long copies, split at 64 bytes), text with near repeats (short
 * copies with 1-byte offsets), and sizes around the 64 KiB block and the 15-byte tail; and its
 * bytes are those of the reference loop below (matches extended a byte at a time, as the export
 * wrote them before matches were extended four bytes at a time), so the files do not change.
 */
import fc from 'fast-check';
import { snappyUncompress } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import { maxCompressedLength, snappyCompress, warmInputs, warmSnappy } from './snappy';

/** whether `input` comes back whole through hyparquet's decompressor */
function roundTrip(input: Uint8Array): boolean {
  const c = snappyCompress(input);
  expect(c.length).toBeLessThanOrEqual(maxCompressedLength(input.length));
  const out = new Uint8Array(input.length);
  snappyUncompress(c, out);
  return Buffer.from(out.buffer).equals(Buffer.from(input.buffer, input.byteOffset, input.byteLength));
}

const bytes = fc.uint8Array({ minLength: 0, maxLength: 200_000 });
/** pieces of a small alphabet repeated at varying distances: every kind of copy */
const repetitive = fc
  .array(fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 90 }), fc.integer({ min: 1, max: 400 })), { maxLength: 60 })
  .map((parts) => {
    const chunks: number[] = [];
    for (const [piece, times] of parts) for (let t = 0; t < times; t++) chunks.push(...piece);
    return Uint8Array.from(chunks);
  });
const text = fc
  .array(fc.constantFrom('post', ' ', 'user_', '"likes":', '12', '345', '{', '}', 'https://cdn.example/', 'é', '🎉', '\n'), {
    maxLength: 30_000,
  })
  .map((w) => new TextEncoder().encode(w.join('')));

/**
 * The compressor as it was before matches were extended four bytes at a time (snappy.ts, same
 * table, hash, skip heuristic and copy forms): what the files held.
 */
function referenceCompress(input: Uint8Array): Uint8Array {
  const out = new Uint8Array(maxCompressedLength(input.length));
  let o = 0;
  const at = (i: number): number => input[i] | (input[i + 1] << 8) | (input[i + 2] << 16) | (input[i + 3] << 24);
  const hash = (v: number, shift: number): number => Math.imul(v, 0x1e35a7bd) >>> shift;
  const literal = (from: number, to: number): void => {
    const n = to - from - 1;
    if (n < 60) out[o++] = n << 2;
    else if (n < 0x100) out.set([60 << 2, n], (o += 2) - 2);
    else if (n < 0x10000) out.set([61 << 2, n & 0xff, n >>> 8], (o += 3) - 3);
    else out.set([62 << 2, n & 0xff, (n >>> 8) & 0xff, n >>> 16], (o += 4) - 4);
    for (let i = from; i < to; i++) out[o++] = input[i];
  };
  const copy = (offset: number, len: number): void => {
    while (len >= 68) {
      out.set([(63 << 2) | 2, offset & 0xff, offset >>> 8], (o += 3) - 3);
      len -= 64;
    }
    if (len > 64) {
      out.set([(59 << 2) | 2, offset & 0xff, offset >>> 8], (o += 3) - 3);
      len -= 60;
    }
    if (len >= 4 && len < 12 && offset < 2048) out.set([((offset >>> 8) << 5) | ((len - 4) << 2) | 1, offset & 0xff], (o += 2) - 2);
    else out.set([((len - 1) << 2) | 2, offset & 0xff, offset >>> 8], (o += 3) - 3);
  };
  const table = new Uint16Array(1 << 14);
  const block = (start: number, end: number): void => {
    const size = end - start;
    if (size < 15) return void (size > 0 && literal(start, end));
    let bits = 8;
    while (1 << bits < size && bits < 14) bits++;
    const shift = 32 - bits;
    table.fill(0, 0, 1 << bits);
    const limit = end - 15;
    let next = start;
    let ip = start + 1;
    let nextHash = hash(at(ip), shift);
    for (;;) {
      let skip = 32;
      let nextIp = ip;
      let candidate: number;
      do {
        ip = nextIp;
        const h = nextHash;
        nextIp = ip + (skip++ >> 5);
        if (nextIp > limit) return void (next < end && literal(next, end));
        nextHash = hash(at(nextIp), shift);
        candidate = start + table[h];
        table[h] = ip - start;
      } while (at(ip) !== at(candidate));
      literal(next, ip);
      for (;;) {
        const base = ip;
        let m = ip + 4;
        let c = candidate + 4;
        while (m < end && input[m] === input[c]) {
          m++;
          c++;
        }
        copy(base - candidate, m - base);
        ip = m;
        next = ip;
        if (ip >= limit) return void (next < end && literal(next, end));
        table[hash(at(ip - 1), shift)] = ip - 1 - start;
        const h = hash(at(ip), shift);
        candidate = start + table[h];
        table[h] = ip - start;
        if (at(ip) !== at(candidate)) break;
      }
      ip++;
      nextHash = hash(at(ip), shift);
    }
  };
  let n = input.length;
  while (n >= 0x80) {
    out[o++] = (n & 0x7f) | 0x80;
    n >>>= 7;
  }
  out[o++] = n;
  for (let start = 0; start < input.length; start += 1 << 16) block(start, Math.min(input.length, start + (1 << 16)));
  return out.slice(0, o);
}

describe('Snappy compression', () => {
  it('writes the bytes of the reference loop (long and short matches, block edges)', () => {
    fc.assert(
      fc.property(fc.oneof(bytes, repetitive, text), (input) => {
        expect(Buffer.from(snappyCompress(input)).equals(Buffer.from(referenceCompress(input)))).toBe(true);
      }),
      { numRuns: 150 },
    );
    for (const n of [0, 1, 14, 15, 16, 17, 19, 20, 65_535, 65_536, 65_537, 131_072 + 7]) {
      const z = new Uint8Array(n).fill(97);
      expect(Buffer.from(snappyCompress(z)).equals(Buffer.from(referenceCompress(z)))).toBe(true);
    }
  });

  it('round-trips through hyparquet for random, repetitive and text-like inputs', () => {
    fc.assert(
      fc.property(fc.oneof(bytes, repetitive, text), (input) => {
        expect(roundTrip(input)).toBe(true);
      }),
      { numRuns: 120 },
    );
  });

  it('round-trips at the block and tail edges, and compresses what repeats', () => {
    for (const n of [0, 1, 14, 15, 16, 17, 65_535, 65_536, 65_537, 131_072 + 7]) {
      const a = new Uint8Array(n).map((_, i) => (i * 7919) % 251);
      expect(roundTrip(a)).toBe(true);
      const z = new Uint8Array(n).fill(97);
      expect(roundTrip(z)).toBe(true);
    }
    const json = new TextEncoder().encode('{"id":"1","likes":12,"text":"hello"}'.repeat(3000));
    expect(snappyCompress(json).length).toBeLessThan(json.length / 10);
  });

  it('compresses a view inside a larger buffer as the same bytes alone (the input is read through a DataView)', () => {
    fc.assert(
      fc.property(fc.oneof(repetitive, text), fc.nat(64), fc.nat(64), (input, before, after) => {
        const host = new Uint8Array(before + input.length + after).fill(0x41);
        host.set(input, before);
        const view = host.subarray(before, before + input.length);
        expect(Buffer.from(snappyCompress(view)).equals(Buffer.from(snappyCompress(input)))).toBe(true);
        expect(roundTrip(view)).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('warms up on inputs that take every literal and copy form, and writes the same bytes after it', () => {
    // the element forms of a Snappy stream (format_description.txt): a literal's length in its
    // tag, or in 1 or 2 bytes after it; copies with a 1-byte offset, with a 2-byte offset, of 64 bytes
    const forms = new Set<string>();
    for (const input of warmInputs()) {
      expect(roundTrip(input)).toBe(true);
      const c = snappyCompress(input);
      let p = 0;
      while (c[p] & 0x80) p++; // the length preamble
      p++;
      while (p < c.length) {
        const tag = c[p++];
        if ((tag & 3) === 0) {
          const n = tag >> 2;
          const extra = n < 60 ? 0 : n - 59;
          let len = n; // the length less one
          if (extra > 0) {
            len = 0;
            for (let k = 0; k < extra; k++) len |= c[p + k] << (8 * k);
          }
          forms.add(extra === 0 ? 'literal' : `literal+${extra}`);
          p += extra + len + 1;
        } else if ((tag & 3) === 1) {
          forms.add('copy1');
          p += 1;
        } else {
          forms.add((tag >> 2) + 1 === 64 ? 'copy2-64' : 'copy2');
          p += 2;
        }
      }
      expect(p).toBe(c.length);
    }
    expect([...forms].sort()).toEqual(['copy1', 'copy2', 'copy2-64', 'literal', 'literal+1', 'literal+2']);
    // the warm-up shares the compressor's hash table: what it leaves there changes nothing
    const samples = fc.sample(fc.oneof(bytes, repetitive, text), { numRuns: 20, seed: 26 });
    const before = samples.map((x) => Buffer.from(snappyCompress(x)));
    warmSnappy();
    samples.forEach((x, i) => expect(Buffer.from(snappyCompress(x)).equals(before[i])).toBe(true));
  });
});
