/**
 * The Parquet export's Snappy (snappy.ts) round-trips through an independent decompressor
 * (hyparquet's, a port of snappyjs) for generated inputs: random bytes (incompressible, the skip
 * heuristic), runs and repeats (long copies, split at 64 bytes), text with near repeats (short
 * copies with 1-byte offsets), and sizes around the 64 KiB block and the 15-byte tail.
 */
import fc from 'fast-check';
import { snappyUncompress } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import { maxCompressedLength, snappyCompress } from './snappy';

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

describe('Snappy compression', () => {
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
});
