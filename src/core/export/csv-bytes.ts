/**
 * CSV records written straight into one reused byte buffer (the export workers' hot path, issue
 * 30): each cell's text goes into the buffer as UTF-8 where it is made, instead of a quoted copy
 * of every cell, a joined string per record, a string per batch and its encoding. The bytes are
 * exactly those of csvCell / csvRenderer encoded as UTF-8 (render-property.test.ts compares them
 * over generated rows), lone surrogates included (U+FFFD, as TextEncoder writes them).
 */
import { formatNumber } from './cells';
import { SpareBuffers } from './spare-buffers';

/**
 * the batch being written: one buffer per thread, grown when a batch needs more; never a slice of
 * Node's shared pool (handOffBytes moves its whole ArrayBuffer to another thread)
 */
let buf = Buffer.allocUnsafeSlow(1 << 17);
let at = 0;
/** buffers handed off and given back once written (spareBytes) */
const spares = new SpareBuffers();

function room(n: number): void {
  if (at + n <= buf.length) return;
  const size = Math.max(buf.length * 2, at + n);
  const next = spares.take(size) ?? Buffer.allocUnsafeSlow(size);
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

/**
 * The batch's bytes without a copy (issue 30): a view of this thread's buffer, whose whole
 * ArrayBuffer the caller moves to the writing thread (a transfer list); the next batch is written
 * into a buffer given back (spareBytes) or a new one. takeBytes made a new zeroed array a batch,
 * which the kernel faulted in page by page, and copied the batch into it.
 */
export function handOffBytes(): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(buf.buffer, buf.byteOffset, at);
  buf = spares.take(buf.length) ?? Buffer.allocUnsafeSlow(buf.length);
  at = 0;
  return out;
}

/** A buffer handOffBytes handed off, given back once its bytes are written: later batches are written into it. */
export function spareBytes(b: ArrayBuffer): void {
  spares.give(b);
}

/** How many bytes the batch holds so far (where the next record starts). */
export function bytesLength(): number {
  return at;
}

/** The batch's bytes so far: a view of this thread's buffer, valid until the next write or beginBytes. */
export function bytesSoFar(): Uint8Array {
  return buf.subarray(0, at);
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

/** the lowest and highest times whose ISO text has a four-digit year (0000-01-01, 9999-12-31) */
const ISO_MIN = -62167219200000;
const ISO_MAX = 253402300799999;

function digits(v: number, width: number): void {
  for (let k = width - 1; k >= 0; k--) {
    buf[at + k] = 48 + (v % 10);
    v = Math.floor(v / 10);
  }
  at += width;
}

/**
 * A time (ms since the epoch, as the archive stores first / last seen) as its cell: the bytes of
 * `cellBytes(iso(ms))` (columns.ts: `"2024-05-02T08:00:00.000Z"`, empty when not finite), written
 * from the numbers instead of a Date and its string (days to a civil date as in H. Hinnant's
 * `civil_from_days`). Times outside years 0–9999, or not whole milliseconds, take the Date.
 */
export function isoBytes(ms: number): void {
  if (!Number.isInteger(ms) || ms < ISO_MIN || ms > ISO_MAX) return cellBytes(Number.isFinite(ms) ? new Date(ms).toISOString() : null);
  const days = Math.floor(ms / 86400000);
  let t = ms - days * 86400000;
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  room(26);
  buf[at++] = 34;
  digits(year, 4);
  buf[at++] = 45;
  digits(month, 2);
  buf[at++] = 45;
  digits(day, 2);
  buf[at++] = 84;
  const milli = t % 1000;
  t = (t - milli) / 1000;
  digits(Math.floor(t / 3600), 2);
  buf[at++] = 58;
  digits(Math.floor(t / 60) % 60, 2);
  buf[at++] = 58;
  digits(t % 60, 2);
  buf[at++] = 46;
  digits(milli, 3);
  buf[at++] = 90;
  buf[at++] = 34;
}
