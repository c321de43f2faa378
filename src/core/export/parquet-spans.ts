/**
 * Parquet rows written from the stored record's bytes (issue 30), as csv-spans.ts does for CSV:
 * an export worker reads each record as the bytes SQLite holds (`CAST(raw AS BLOB)`), scans them
 * once (record-scan.ts) and hands each column its value from those bytes, with no record object
 * and no JSON.parse: a string's bytes are copied into the page (or looked up in the dictionary by
 * its bytes: parquet-text.ts), a JSON value's bytes are its JSON text, a number is read from its
 * digits and a time from its ISO text without a string, a text column's string with escapes
 * other than \u from its unescaped bytes. Where a value is not plain (a string with a \u escape,
 * a number as `String(n)` would not write it, a value of the wrong type for its column, a time not
 * in the form `JSON.stringify` of a Date writes) it is decoded and goes the way a parsed value goes;
 * a row the scan cannot vouch for, or one with label overrides, is added from its parsed record.
 * The file is the same bytes either way (parquet-spans.test.ts).
 */
import { iso } from './columns';
import type { ColumnBuilder } from './parquet-chunk';
import type { GroupEncoder, ParquetLayout } from './parquet-group';
import type { TextColumn } from './parquet-text';
import { end, extraBytes, extraLength, extraOther, kind, SLOTS, Span, start } from './record-scan';
import { CHECKED, FIRST_SEEN, fromBytes, ID, KIND, LAST_SEEN, MISSING, NOTE, OTHER_COLUMNS, OVERRIDES, PLATFORM, TAGS } from './byte-row';

/** the scan's slots (the same arrays for every scan: held here once, not read through the module each time) */
const K = kind;
const S = start;
const E = end;
import { bytesRow, type BytesTuple } from './rid-rows';

/** how a column takes its values */
const TEXT = 0;
const JSON_TEXT = 1;
const NUMBER = 2;
const TIME = 3;
const BOOLEAN = 4;

const decoder = new TextDecoder();
const EMPTY_ARRAY = new Uint8Array([91, 93]);
/** exact powers of ten (a double holds 10^0 … 10^22 exactly) */
const POW10 = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`));
/** the times whose ISO text has a four-digit year (0000 … 9999), which a TIMESTAMP column parses back to them */
const YEAR_0 = -62167219200000;
const YEAR_10000 = 253402300800000;

/**
 * A number whose bytes are `String(n)` (record-scan.ts Span.Number: at most 15 significant
 * digits, no exponent, not below 1e-6): its digits as an integer below 2^53 divided by an exact
 * power of ten, which IEEE division rounds correctly (Clinger's fast path), the double
 * `JSON.parse` gives.
 */
export function spanNumber(b: Uint8Array, s: number, e: number): number {
  let i = s;
  const neg = b[i] === 45;
  if (neg) i++;
  let m = 0;
  for (; i < e && b[i] !== 46; i++) m = m * 10 + (b[i] - 48);
  let frac = 0;
  if (i < e)
    for (i++; i < e; i++) {
      m = m * 10 + (b[i] - 48);
      frac++;
    }
  const v = frac === 0 ? m : m / POW10[frac];
  return neg ? -v : v;
}

const digit = (b: Uint8Array, p: number): number => {
  const d = b[p] - 48;
  return d >= 0 && d <= 9 ? d : NaN;
};
const two = (b: Uint8Array, p: number): number => digit(b, p) * 10 + digit(b, p + 1);
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * The milliseconds of an ISO time as `Date#toISOString` / `JSON.stringify` writes it, with or
 * without milliseconds (`2024-05-01T12:00:00.000Z`, `2024-05-01T12:00:00Z`), years 1000–9999, every
 * field in range — what `Date.parse` gives for it; NaN for anything else (the caller then parses
 * the text as before).
 */
export function isoBytesMs(b: Uint8Array, s: number, e: number): number {
  const n = e - s;
  if (n !== 20 && n !== 24) return NaN;
  if (b[s + 4] !== 45 || b[s + 7] !== 45 || b[s + 10] !== 84 || b[s + 13] !== 58 || b[s + 16] !== 58 || b[e - 1] !== 90) return NaN;
  if (n === 24 && b[s + 19] !== 46) return NaN;
  const y = two(b, s) * 100 + two(b, s + 2);
  const mo = two(b, s + 5);
  const d = two(b, s + 8);
  const h = two(b, s + 11);
  const mi = two(b, s + 14);
  const sec = two(b, s + 17);
  const ms = n === 24 ? digit(b, s + 20) * 100 + two(b, s + 21) : 0;
  // NaN fails every comparison below
  if (!(y >= 1000 && mo >= 1 && mo <= 12 && d >= 1 && h <= 23 && mi <= 59 && sec <= 59 && ms >= 0)) return NaN;
  const leap = mo === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  if (d > MONTH_DAYS[mo - 1] + (leap ? 1 : 0)) return NaN;
  return Date.UTC(y, mo - 1, d, h, mi, sec, ms);
}

/** a slot's value as JSON.parse of the record gives it */
function spanValue(b: Uint8Array, k: number, s: number, e: number): unknown {
  switch (k as Span) {
    case Span.Text:
      return decoder.decode(b.subarray(s, e));
    case Span.EscapedText:
      return JSON.parse(decoder.decode(b.subarray(s - 1, e + 1)));
    case Span.Number:
      return spanNumber(b, s, e);
    case Span.OtherNumber:
      return Number(decoder.decode(b.subarray(s, e)));
    case Span.True:
      return true;
    case Span.False:
      return false;
    case Span.Json:
    case Span.OtherJson:
      return JSON.parse(decoder.decode(b.subarray(s, e)));
    default:
      return null;
  }
}

/** where `unescape` writes */
let unescapedBuf = new Uint8Array(1024);
/** the bytes of the last `unescape` */
export const unescapedBytes = (): Uint8Array => unescapedBuf;

/**
 * The UTF-8 bytes of a string with escapes, [s, e) of `b` between its quotes, into
 * `unescapedBytes()`: their count, or -1 when it holds a `\u` escape (a code unit, maybe half a
 * surrogate pair: decoded by JSON.parse as before). The other escapes stand for one byte each
 * (`\n` is 0x0A, …), and the bytes between them are the string's own UTF-8, so these are the
 * bytes TextEncoder gives for the JSON.parse'd string.
 */
export function unescape(b: Uint8Array, s: number, e: number): number {
  if (unescapedBuf.length < e - s) unescapedBuf = new Uint8Array(Math.max(e - s, unescapedBuf.length * 2));
  const out = unescapedBuf;
  let o = 0;
  for (let i = s; i < e; i++) {
    let c = b[i];
    if (c === 92) {
      c = b[++i];
      if (c === 110) c = 10;
      else if (c === 116) c = 9;
      else if (c === 114) c = 13;
      else if (c === 98) c = 8;
      else if (c === 102) c = 12;
      else if (c !== 34 && c !== 92 && c !== 47) return -1;
    }
    out[o++] = c;
  }
  return o;
}

type Miss = (i: number, v: unknown) => void;

/** column `c` takes `v` as a parsed row's value goes: its builder, or `untyped` where it does not fit */
function give(col: ColumnBuilder, c: number, v: unknown, miss: Miss): void {
  if (!col.add(v)) miss(c, v);
}

/** a slot's value (record-scan.ts) to column `c` the way a parsed value goes (what the compiled statements leave) */
function slowSlot(b: Uint8Array, slot: number, c: number, col: ColumnBuilder, miss: Miss): void {
  give(col, c, spanValue(b, K[slot], S[slot], E[slot]), miss);
}

/** first / last seen (milliseconds) to a column: the number itself where its ISO text would parse back to it */
function timeTo(ms: number, c: number, how: number, col: ColumnBuilder, miss: Miss): void {
  if (how === TIME && Number.isInteger(ms) && ms >= YEAR_0 && ms < YEAR_10000) col.add(ms);
  else give(col, c, iso(ms), miss);
}

/** the Span kinds by name, for the compiled statements (numbers: the scan's kinds are stable) */
const ABSENT = `(k === ${Span.Absent} || k === ${Span.Null})`;
const TEXTS = `(k === ${Span.Text} || k === ${Span.Number} || k === ${Span.True} || k === ${Span.False})`;
const JSONS = `(k === ${Span.Number} || k === ${Span.True} || k === ${Span.False} || k === ${Span.Json})`;

/** the statement that gives column `c` (builder `c<c>`) its value from slot `slot`, the way `how` */
function slotStatement(c: number, slot: number, how: number): string {
  const col = `c${c}`;
  const at = `S[${slot}], E[${slot}]`;
  const tail = `else if ${ABSENT} ${col}.add(null);\n  else slow(src, ${slot}, ${c}, ${col}, miss);`;
  switch (how) {
    case TEXT:
      // String(n), String(true) and a plain string's text are the bytes themselves; a string with
      // escapes other than \u, its bytes unescaped
      return `k = K[${slot}];\n  if ${TEXTS} ${col}.addBytes(src, ${at});\n  else if (k === ${Span.EscapedText} && (v = unescape(src, ${at})) >= 0) ${col}.addBytes(unescaped(), 0, v);\n  ${tail}`;
    case JSON_TEXT:
      return `k = K[${slot}];\n  if (k === ${Span.Text}) ${col}.addBytes(src, S[${slot}] - 1, E[${slot}] + 1);\n  else if ${JSONS} ${col}.addBytes(src, ${at});\n  ${tail}`;
    case NUMBER:
      return `k = K[${slot}];\n  if (k === ${Span.Number}) { v = num(src, ${at}); if (!${col}.add(v)) miss(${c}, v); }\n  ${tail}`;
    case TIME:
      return `k = K[${slot}];\n  if (k === ${Span.Number}) { v = num(src, ${at}); if (!${col}.add(v)) miss(${c}, v); }\n  else if (k === ${Span.Text} && (v = isoMs(src, ${at})) === v) ${col}.add(v);\n  ${tail}`;
    default:
      return `k = K[${slot}];\n  if (k === ${Span.True}) ${col}.add(true);\n  else if (k === ${Span.False}) ${col}.add(false);\n  ${tail}`;
  }
}

/** the statement for a column that is not the record's (the row's own fields, `extra`) */
function otherStatement(c: number, op: number, how: number): string {
  const col = `c${c}`;
  switch (op) {
    case PLATFORM:
    case KIND:
    case ID:
      return `if (!${col}.add(v = t[${-op - 1}])) miss(${c}, v);`;
    case TAGS:
      return how === JSON_TEXT
        ? `if (t[8] !== undefined && t[8] !== '[]') give(${col}, ${c}, JSON.parse(t[8]), miss);\n  else ${col}.addBytes(EMPTY_ARRAY, 0, 2);`
        : `give(${col}, ${c}, t[8] !== undefined && t[8] !== '[]' ? JSON.parse(t[8]) : [], miss);`;
    case NOTE:
      return `if (!${col}.add(v = t[9] ?? null)) miss(${c}, v);`;
    case OVERRIDES:
      return `${col}.add(null); // a row with overrides is added from its parsed record`;
    case FIRST_SEEN:
      return `time(t[4], ${c}, ${how}, ${col}, miss);`;
    case LAST_SEEN:
      return `time(t[5], ${c}, ${how}, ${col}, miss);`;
    case CHECKED:
      return `time(t[6] ?? NaN, ${c}, ${how}, ${col}, miss);`;
    case MISSING:
      return `time(t[7] ?? NaN, ${c}, ${how}, ${col}, miss);`;
    default:
      // EXTRA
      return `extra(${c}, ${how}, ${col}, miss);`;
  }
}

/** `extra` (record-scan.ts) to its column */
function extraTo(c: number, how: number, col: ColumnBuilder, miss: Miss): void {
  const n = extraLength;
  if (n === 0) col.add(null);
  else if (extraOther || how !== JSON_TEXT) give(col, c, JSON.parse(decoder.decode(extraBytes().subarray(0, n))), miss);
  else (col as TextColumn).addBytes(extraBytes(), 0, n);
}

type Fill = (t: BytesTuple, cols: readonly ColumnBuilder[], miss: Miss) => void;

/**
 * The adder of a Parquet layout's rows read as bytes (rid-rows.ts ridBytesReader): each row into
 * `enc` from its record's bytes, or from its parsed record where the bytes cannot be vouched for.
 * One function per layout is compiled with a statement per column (as columns.ts compiles the
 * CSV renderer): each builder's call has one call site, so each site sees one builder class.
 */
export function parquetSpanAdder(layout: ParquetLayout): (enc: GroupEncoder, t: BytesTuple, scanned?: boolean) => void {
  const n = layout.names.length - 1; // the last column is `untyped`, which the encoder fills
  const body: string[] = [];
  for (let c = 0; c < n; c++) {
    const name = layout.names[c];
    const t = layout.types[c];
    const how = t === 'STRING' ? TEXT : t === 'JSON' ? JSON_TEXT : t === 'TIMESTAMP' ? TIME : t === 'BOOLEAN' ? BOOLEAN : NUMBER;
    const slot = SLOTS.get(name);
    const op = OTHER_COLUMNS[name];
    if (slot !== undefined) body.push(slotStatement(c, slot, how));
    else if (op !== undefined) body.push(otherStatement(c, op, how));
    else throw new Error(`export: no byte reading for column '${name}'`);
  }
  const cols = Array.from({ length: n }, (_, c) => `c${c} = cols[${c}]`).join(', ');
  const helpers = {
    K,
    S,
    E,
    EMPTY_ARRAY,
    num: spanNumber,
    isoMs: isoBytesMs,
    unescape,
    unescaped: unescapedBytes,
    slow: slowSlot,
    give,
    time: timeTo,
    extra: extraTo,
  };
  // fixed statements from the layout's column names and types only, never data
  const fill = new Function(
    ...Object.keys(helpers),
    `'use strict';\nreturn function (t, cols, miss) {\n  const src = t[3];\n  const ${cols};\n  let k, v;\n  ${body.join('\n  ')}\n};`,
  )(...Object.values(helpers)) as Fill;
  let row: BytesTuple;
  const fillRow = (cols: readonly ColumnBuilder[], miss: Miss): void => fill(row, cols, miss);
  // `scanned`: see fromBytes (byte-row.ts)
  return (enc, t, scanned) => {
    if (!fromBytes(t, scanned)) return enc.add(bytesRow(t));
    row = t;
    enc.addWith(fillRow);
  };
}
