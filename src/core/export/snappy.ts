/**
 * Snappy compression (the format of github.com/google/snappy's format_description.txt) for the
 * Parquet export's pages (docs/export.md "Parquet"): what DuckDB's COPY … TO parquet writes by
 * default and every Parquet reader decompresses. Node has no Snappy of its own and zstd only from
 * Node 22.15; hyparquet-writer's JavaScript Snappy (a port of snappyjs) ran at ~16 MiB/s on this
 * machine, which would have made compression most of the export's time. This one follows the
 * reference compressor's loop (64 KiB blocks, a 4-byte hash table, the skip heuristic on
 * incompressible input, copies of up to 64 bytes with 2-byte offsets) over plain typed arrays.
 */

const BLOCK = 1 << 16;
const HASH_BITS = 14;
const table = new Uint16Array(1 << HASH_BITS);

/** An upper bound of the compressed size of `n` bytes (the reference's MaxCompressedLength). */
export function maxCompressedLength(n: number): number {
  return 32 + n + Math.floor(n / 6);
}

/**
 * The input being compressed is read through a DataView: a 4-byte load is one unaligned read (V8
 * inlines it), not four byte loads and three shifts. Snappy's CPU in the exports bench's 200k
 * Parquet export: 0.73-0.74 s -> 0.52-0.56 s at the same bytes (the pages measured in place,
 * 2026-11-27). The view is `block`'s parameter, not a module variable read at every load: 31 MB of
 * 1 MiB pages of the bench archive's records and texts, five passes, old and new interleaved, three
 * runs at load 12-14: 428 / 438 / 440 -> 416 / 416 / 417 ms, the same bytes. A match's end found
 * from the first differing 4-byte load (its lowest set bit) instead of byte by byte, and each
 * probed position loaded once: 9.4 MB of the 200k archive's text, URL, name and time pages, three
 * passes, old and new alternating, 7 rounds at load 11-12: 156 -> 121 ms CPU (median), the same bytes.
 */
const load32 = (dv: DataView, i: number): number => dv.getInt32(i, true);
const hash = (v: number, shift: number): number => Math.imul(v, 0x1e35a7bd) >>> shift;

/** `input` compressed into `out` from `at`; returns the end. `out` must have maxCompressedLength room. */
function compressInto(input: Uint8Array, out: Uint8Array, at: number): number {
  let o = at;
  const dv = new DataView(input.buffer, input.byteOffset, input.byteLength);
  // preamble: the uncompressed length as a varint
  let n = input.length;
  while (n >= 0x80) {
    out[o++] = (n & 0x7f) | 0x80;
    n >>>= 7;
  }
  out[o++] = n;
  for (let start = 0; start < input.length; start += BLOCK) o = block(input, dv, start, Math.min(input.length, start + BLOCK), out, o);
  return o;
}

function literal(input: Uint8Array, from: number, to: number, out: Uint8Array, o: number): number {
  const len = to - from;
  const n = len - 1;
  if (n < 60) out[o++] = n << 2;
  else if (n < 0x100) {
    out[o++] = 60 << 2;
    out[o++] = n;
  } else if (n < 0x10000) {
    out[o++] = 61 << 2;
    out[o++] = n & 0xff;
    out[o++] = n >>> 8;
  } else {
    out[o++] = 62 << 2;
    out[o++] = n & 0xff;
    out[o++] = (n >>> 8) & 0xff;
    out[o++] = n >>> 16;
  }
  if (len < 64) for (let i = from; i < to; i++) out[o++] = input[i];
  else {
    out.set(input.subarray(from, to), o);
    o += len;
  }
  return o;
}

function copy(offset: number, len: number, out: Uint8Array, o: number): number {
  // copies of at most 64 bytes; a tail under 4 bytes would not fit the 1-byte-offset form
  while (len >= 68) {
    out[o++] = (63 << 2) | 2;
    out[o++] = offset & 0xff;
    out[o++] = offset >>> 8;
    len -= 64;
  }
  if (len > 64) {
    out[o++] = (59 << 2) | 2;
    out[o++] = offset & 0xff;
    out[o++] = offset >>> 8;
    len -= 60;
  }
  if (len >= 4 && len < 12 && offset < 2048) {
    out[o++] = ((offset >>> 8) << 5) | ((len - 4) << 2) | 1;
    out[o++] = offset & 0xff;
  } else {
    out[o++] = ((len - 1) << 2) | 2;
    out[o++] = offset & 0xff;
    out[o++] = offset >>> 8;
  }
  return o;
}

/** One block [start, end) of at most 64 KiB: offsets inside it fit two bytes. */
function block(input: Uint8Array, dv: DataView, start: number, end: number, out: Uint8Array, o: number): number {
  const size = end - start;
  if (size < 15) return size > 0 ? literal(input, start, end, out, o) : o;
  // the table's size for this block (the reference's): small blocks clear a small table
  let bits = 8;
  while (1 << bits < size && bits < HASH_BITS) bits++;
  const shift = 32 - bits;
  table.fill(0, 0, 1 << bits);
  const limit = end - 15; // the last bytes are always a literal (the reference's kInputMarginBytes)
  let next = start; // where the pending literal starts
  let ip = start + 1;
  let nextHash = hash(load32(dv, ip), shift);
  for (;;) {
    // find a 4-byte match, looking less often the longer none is found (incompressible input);
    // each position's 4 bytes are loaded once, for its hash and then for the comparison
    let skip = 32;
    let nextIp = ip;
    let candidate: number;
    let cur = load32(dv, ip);
    let nextVal = cur;
    do {
      ip = nextIp;
      cur = nextVal;
      const h = nextHash;
      nextIp = ip + (skip++ >> 5);
      if (nextIp > limit) return next < end ? literal(input, next, end, out, o) : o;
      nextVal = load32(dv, nextIp);
      nextHash = hash(nextVal, shift);
      candidate = start + table[h];
      table[h] = ip - start;
    } while (cur !== load32(dv, candidate));
    o = literal(input, next, ip, out, o);
    // the match and any that follow at once
    for (;;) {
      const base = ip;
      let m = ip + 4;
      let c = candidate + 4;
      // four bytes at a time while they match; then the bytes that still match from where the
      // first differing 4-byte load differs (its lowest set bit: the load is little-endian), byte
      // by byte only in the last 3 bytes of the block (the same length either way)
      let x = 0;
      while (m + 4 <= end && (x = load32(dv, m) ^ load32(dv, c)) === 0) {
        m += 4;
        c += 4;
      }
      if (m + 4 <= end) m += (31 - Math.clz32(x & -x)) >> 3;
      else
        while (m < end && input[m] === input[c]) {
          m++;
          c++;
        }
      o = copy(base - candidate, m - base, out, o);
      ip = m;
      next = ip;
      if (ip >= limit) return next < end ? literal(input, next, end, out, o) : o;
      // hash the position before and at ip; continue copying while ip matches at once
      table[hash(load32(dv, ip - 1), shift)] = ip - 1 - start;
      const h = hash(load32(dv, ip), shift);
      candidate = start + table[h];
      table[h] = ip - start;
      if (load32(dv, ip) !== load32(dv, candidate)) break;
    }
    ip++;
    nextHash = hash(load32(dv, ip), shift);
  }
}

/** Snappy-compressed bytes of `input` (a new buffer of exactly their size). */
export function snappyCompress(input: Uint8Array): Uint8Array {
  const out = new Uint8Array(maxCompressedLength(input.length));
  const end = compressInto(input, out, 0);
  return out.slice(0, end);
}

/** `input` compressed into `out` (with maxCompressedLength(input.length) room from `at`); returns the end. */
export function snappyCompressInto(input: Uint8Array, out: Uint8Array, at: number): number {
  return compressInto(input, out, at);
}

/**
 * A small made-up input on which the compressor takes each of its paths: literals of each length
 * form, copies with 1- and 2-byte offsets, runs split into 64-byte copies, the skip heuristic on
 * incompressible bytes, a match running past the last 15 bytes; and the calls' edges (a block
 * under 15 bytes, a match up to the end, no match before the end). snappy.test.ts checks that
 * the compressed stream holds every element form.
 */
export function warmInputs(): Uint8Array[] {
  const input = new Uint8Array(5000);
  let x = 1;
  const random = (from: number, to: number): void => {
    for (let i = from; i < to; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      input[i] = x >>> 24;
    }
  };
  random(0, 1000); // a literal of a thousand bytes (two length bytes)
  input.fill(7, 1000, 1300); // a run: copies of 64 bytes, and a tail
  input.copyWithin(1300, 100, 166); // 66 bytes from further back: a 60-byte copy, then 6 with a 1-byte offset
  random(1366, 1466); // a literal of a hundred (one length byte)
  input.copyWithin(1466, 1290, 1298); // a short copy
  random(1474, 3000); // a short literal, then incompressible bytes: the skip heuristic
  input.copyWithin(3000, 200, 220); // 20 bytes from 2,800 back: a 2-byte offset
  random(3020, 4700);
  input.fill(9, 4700, 4990); // a match that runs past the last 15 bytes, a literal after it
  random(4990, 5000);
  return [input, input.subarray(0, 10), input.subarray(1000, 1300), input.subarray(3200, 3600)];
}

/**
 * Every path of the compressor run on `warmInputs` before the real pages (a worker calls this at
 * start, parquet-worker.ts; the output is thrown away). V8 optimised `block` while it was still
 * in its first long loop (on-stack replacement), before the paths after that loop and the rarer
 * copy and literal forms had ever run: the optimised code met them without type feedback and was
 * thrown away and compiled again, 6-7 times a thread (`--trace-deopt`: "Insufficient type
 * feedback"), the first pages running unoptimised meanwhile. Now `block` is compiled twice (its
 * loop, then the function) and never thrown away. Three rounds: a function's type feedback is
 * kept only from its first calls on.
 */
export function warmSnappy(): void {
  const inputs = warmInputs();
  const out = new Uint8Array(maxCompressedLength(inputs[0].length));
  for (let k = 0; k < 3; k++) for (const input of inputs) compressInto(input, out, 0);
}
