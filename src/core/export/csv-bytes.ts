/**
 * CSV records written straight into one reused byte buffer (the export workers' hot path, issue
 * 30): each cell's text goes into the buffer as UTF-8 where it is made, instead of a quoted copy
 * of every cell, a joined string per record, a string per batch and its encoding. The bytes are
 * exactly those of csvCell / csvRenderer encoded as UTF-8 (render-property.test.ts compares them
 * over generated rows), lone surrogates included (U+FFFD, as TextEncoder writes them).
 */
import { formatNumber } from './cells';

/** the batch being written: one buffer per thread, grown when a batch needs more */
let buf = Buffer.allocUnsafe(1 << 17);
let at = 0;

function room(n: number): void {
  if (at + n <= buf.length) return;
  const next = Buffer.allocUnsafe(Math.max(buf.length * 2, at + n));
  buf.copy(next, 0, 0, at);
  buf = next;
}

/** Start a batch (forgets what the last one wrote). */
export function beginBytes(): void {
  at = 0;
}

/** The batch's bytes, copied out (the buffer stays for the next batch). */
export function takeBytes(): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(at);
  out.set(buf.subarray(0, at));
  at = 0;
  return out;
}

/** a text cell: quoted, neutralised (csvCell's rules), `"` doubled; not empty */
export function textCell(s: string): void {
  const c = s.charCodeAt(0);
  const q = c === 61 || c === 43 || c === 45 || c === 64 || c === 9 || c === 13 || c === 39;
  if (s.includes('"')) s = s.replaceAll('"', '""');
  const n = s.length;
  room(3 * n + 3);
  buf[at++] = 34;
  if (q) buf[at++] = 39;
  if (n <= 32) {
    // short cells (most of them): byte by byte while they are ASCII
    const start = at;
    let i = 0;
    for (; i < n; i++) {
      const ch = s.charCodeAt(i);
      if (ch >= 128) break;
      buf[at++] = ch;
    }
    if (i < n) at = start + buf.write(s, start);
  } else at += buf.write(s, at);
  buf[at++] = 34;
}

/** an ASCII text already free of quotes and formula starts (a formatted number), quoted */
function plainCell(s: string): void {
  const n = s.length;
  room(n + 3);
  buf[at++] = 34;
  if (s.charCodeAt(0) === 45) buf[at++] = 39; // a negative number starts with '-'
  for (let i = 0; i < n; i++) buf[at++] = s.charCodeAt(i);
  buf[at++] = 34;
}

/** One cell (csvCell's text, as UTF-8) at the end of the batch. */
export function cellBytes(v: unknown): void {
  if (v === null || v === undefined) return;
  switch (typeof v) {
    case 'string':
      if (v.length > 0) textCell(v);
      return;
    case 'number':
      return plainCell(formatNumber(v));
    case 'boolean':
      room(7);
      if (v) {
        buf[at] = 34;
        buf[at + 1] = 116;
        buf[at + 2] = 114;
        buf[at + 3] = 117;
        buf[at + 4] = 101;
        buf[at + 5] = 34;
        at += 6;
      } else {
        buf[at] = 34;
        buf[at + 1] = 102;
        buf[at + 2] = 97;
        buf[at + 3] = 108;
        buf[at + 4] = 115;
        buf[at + 5] = 101;
        buf[at + 6] = 34;
        at += 7;
      }
      return;
    case 'bigint':
      return plainCell(v.toString());
    case 'object': {
      const s = JSON.stringify(v);
      if (s.length > 0) textCell(s);
      return;
    }
    default: {
      const s = String(v);
      if (s.length > 0) textCell(s);
    }
  }
}

/** the separator between two cells */
export function commaBytes(): void {
  room(1);
  buf[at++] = 44;
}

/** the end of a record (CRLF) */
export function eolBytes(): void {
  room(2);
  buf[at++] = 13;
  buf[at++] = 10;
}

/**
 * The UTF-8 of a string stored in a JSON text without escapes (record-scan.ts Span.Text: no `"`
 * inside), bytes [s, e) of `src`, as textCell writes that string: quoted and neutralised.
 */
export function spanTextBytes(src: Uint8Array, s: number, e: number): void {
  const n = e - s;
  if (n === 0) return;
  const c = src[s];
  room(n + 3);
  buf[at++] = 34;
  if (c === 61 || c === 43 || c === 45 || c === 64 || c === 9 || c === 13 || c === 39) buf[at++] = 39;
  for (let i = s; i < e; i++) buf[at++] = src[i];
  buf[at++] = 34;
}

/** A number's bytes that are `String(n)` (record-scan.ts Span.Number) as its cell, like plainCell. */
export function spanNumberBytes(src: Uint8Array, s: number, e: number): void {
  room(e - s + 3);
  buf[at++] = 34;
  if (src[s] === 45) buf[at++] = 39;
  for (let i = s; i < e; i++) buf[at++] = src[i];
  buf[at++] = 34;
}

/**
 * JSON text that is JSON.stringify's (an array or object: it starts with `[` or `{`, never
 * neutralised) as its text cell: quoted, `"` doubled.
 */
export function spanJsonBytes(src: Uint8Array, s: number, e: number): void {
  room(2 * (e - s) + 2);
  buf[at++] = 34;
  for (let i = s; i < e; i++) {
    const c = src[i];
    buf[at++] = c;
    if (c === 34) buf[at++] = 34;
  }
  buf[at++] = 34;
}
