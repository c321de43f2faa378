/**
 * Sheet rows written from the stored record's bytes (the XLSX workers, xlsx-worker.ts), as
 * csv-spans.ts writes CSV records: each row's record is scanned once where it lies
 * (record-scan.ts) and each cell is written from the bytes found into one reused byte buffer, with
 * no JSON.parse of the record, no object, no string per cell. A text without escapes is its bytes
 * with `&`, `<`, `>` escaped and U+FFFE / U+FFFF made U+FFFD (JSON escapes every other character XML
 * cannot hold); a number whose bytes are `String(n)` (at most 15 significant digits) is its `<v>`.
 * Everything else — a date column, an escaped text, a text past 32,767 bytes or with a character
 * at either end that could be white space, the annotation columns — goes through the one-thread
 * path's CellWriter (xlsx-cells.ts), and a row the scan cannot vouch for, or one with label
 * overrides, is rendered whole from its parsed record by that path's row renderer. The bytes are
 * that renderer's (xlsx-spans.test.ts compares them over generated rows).
 */
import { iso } from './columns';
import {
  CHECKED,
  columnOps,
  EXTRA,
  FIRST_SEEN,
  fromBytes,
  ID,
  KIND,
  LAST_SEEN,
  MISSING,
  NOTE,
  OVERRIDES,
  PLATFORM,
  TAGS,
} from './byte-row';
import { end, extraBytes, extraLength, extraOther, kind, Span, start } from './record-scan';
import { bytesRow, type BytesTuple } from './rid-rows';
import { columnLetters, XLSX_DATE_COLUMNS, XLSX_MAX_CELL_CHARS, xlsxRowRenderer, type CellWriter } from './xlsx-cells';
import { resolveColumns } from './columns';

const decoder = new TextDecoder();

/** the rows being written: one buffer per thread, grown when a batch needs more */
let buf = Buffer.allocUnsafe(1 << 21);
let at = 0;

function room(n: number): void {
  if (at + n <= buf.length) return;
  const next = Buffer.allocUnsafe(Math.max(buf.length * 2, at + n));
  buf.copy(next, 0, 0, at);
  buf = next;
}

/** Start a batch of rows (forgets the last one). */
export function beginXml(): void {
  at = 0;
}

/** The batch's XML as UTF-8: a view of this thread's buffer, valid until the next beginXml. */
export function xmlSoFar(): Buffer {
  return buf.subarray(0, at);
}

/** an ASCII string (tags, references, digits) */
function ascii(s: string): void {
  const n = s.length;
  room(n);
  for (let i = 0; i < n; i++) buf[at++] = s.charCodeAt(i);
}

/** any string, as UTF-8 */
function utf8(s: string): void {
  if (s.length === 0) return;
  room(3 * s.length);
  at += buf.write(s, at);
}

/**
 * A text cell from UTF-8 bytes [s, e) of `src` that are a string's text (no escapes: no control
 * character, no lone surrogate); false, having written nothing, when CellWriter must write it
 * (past the cell limit, or a first or last character that may be white space).
 */
function textBytes(ref: string, src: Uint8Array, s: number, e: number): boolean {
  const first = src[s];
  const last = src[e - 1];
  if (e - s > XLSX_MAX_CELL_CHARS || first === 0x20 || last === 0x20 || first >= 0x80 || last >= 0x80) return false;
  const mark = at;
  room(6 * (e - s) + ref.length + 48);
  ascii('<c r="');
  ascii(ref);
  ascii('" t="inlineStr"><is><t>');
  for (let i = s; i < e; i++) {
    const c = src[i];
    if (c === 0x26) {
      buf[at++] = 0x26; // &amp;
      buf[at++] = 0x61;
      buf[at++] = 0x6d;
      buf[at++] = 0x70;
      buf[at++] = 0x3b;
    } else if (c === 0x3c || c === 0x3e) {
      buf[at++] = 0x26; // &lt; &gt;
      buf[at++] = c === 0x3c ? 0x6c : 0x67;
      buf[at++] = 0x74;
      buf[at++] = 0x3b;
    } else if (c < 0x20) {
      at = mark; // not a string JSON.stringify wrote: CellWriter decides
      return false;
    } else if (c === 0xef && src[i + 1] === 0xbf && (src[i + 2] === 0xbe || src[i + 2] === 0xbf)) {
      buf[at++] = 0xef; // U+FFFE, U+FFFF: U+FFFD, as xmlSafe
      buf[at++] = 0xbf;
      buf[at++] = 0xbd;
      i += 2;
    } else buf[at++] = c;
  }
  ascii('</t></is></c>');
  return true;
}

/** a text of bytes [s, e) of `src` that are a string's UTF-8: from the bytes, or through `cells` */
function textCell(cells: CellWriter, ref: string, src: Uint8Array, s: number, e: number): void {
  if (!textBytes(ref, src, s, e)) utf8(cells.text(ref, decoder.decode(src.subarray(s, e))));
}

/** One slot's value (record-scan.ts) as its cell; `date`: a date column. */
function slotCell(cells: CellWriter, ref: string, src: Uint8Array, slot: number, date: boolean): void {
  const s = start[slot];
  const e = end[slot];
  switch (kind[slot] as Span) {
    case Span.Absent:
    case Span.Null:
      return;
    case Span.Text:
      if (s === e) return;
      if (date) return utf8(cells.value(ref, decoder.decode(src.subarray(s, e)), date));
      return textCell(cells, ref, src, s, e);
    case Span.Number:
      if (date) return utf8(cells.value(ref, Number(decoder.decode(src.subarray(s, e))), date));
      room(e - s + ref.length + 24);
      ascii('<c r="');
      ascii(ref);
      ascii('"><v>');
      for (let i = s; i < e; i++) buf[at++] = src[i];
      ascii('</v></c>');
      return;
    case Span.Json:
      return textCell(cells, ref, src, s, e);
    case Span.True:
    case Span.False:
      return utf8(cells.value(ref, kind[slot] === Span.True, date));
    case Span.EscapedText:
      return utf8(cells.value(ref, JSON.parse(decoder.decode(src.subarray(s - 1, e + 1))), date));
    case Span.OtherNumber:
      return utf8(cells.value(ref, Number(decoder.decode(src.subarray(s, e))), date));
    case Span.OtherJson:
      return utf8(cells.value(ref, JSON.parse(decoder.decode(src.subarray(s, e))), date));
  }
}

/**
 * The renderer of these columns (all, or a subset in the order given) for rows read as bytes:
 * appends row `r`'s XML to this thread's batch (beginXml / xmlSoFar). `cells`: the CellWriter whose
 * count of cut cells it adds to.
 */
export function xlsxSpanRenderer(columns: readonly string[] | undefined, cells: CellWriter): (t: BytesTuple, r: number) => void {
  const defs = resolveColumns(columns);
  const fallback = xlsxRowRenderer(columns, cells);
  const letters = defs.map((_, i) => columnLetters(i));
  const isDate = defs.map((d) => XLSX_DATE_COLUMNS.has(d.name));
  const ops = columnOps(defs.map((d) => d.name));
  const value = (ref: string, v: unknown, date: boolean): void => utf8(cells.value(ref, v, date));
  const text = (ref: string, src: Uint8Array, s: number, e: number): void => textCell(cells, ref, src, s, e);
  return (t, r) => {
    if (!fromBytes(t, undefined)) return utf8(fallback(bytesRow(t), r));
    const src = t[3];
    const rs = String(r);
    ascii(`<row r="${rs}">`);
    for (let c = 0; c < ops.length; c++) {
      const op = ops[c];
      const ref = letters[c] + rs;
      if (op >= 0) slotCell(cells, ref, src, op, isDate[c]);
      else
        switch (op) {
          case PLATFORM:
            value(ref, t[0], false);
            break;
          case KIND:
            value(ref, t[1], false);
            break;
          case ID:
            value(ref, t[2], false);
            break;
          case TAGS:
            value(ref, t[8] === undefined || t[8] === '[]' ? [] : (JSON.parse(t[8]) as string[]), false);
            break;
          case NOTE:
            value(ref, t[9], false);
            break;
          case OVERRIDES:
            break; // a row with overrides took the fallback
          case FIRST_SEEN:
            value(ref, iso(t[4]), isDate[c]);
            break;
          case LAST_SEEN:
            value(ref, iso(t[5]), isDate[c]);
            break;
          case CHECKED:
            value(ref, iso(t[6] ?? NaN), isDate[c]);
            break;
          case MISSING:
            value(ref, iso(t[7] ?? NaN), isDate[c]);
            break;
          case EXTRA:
            if (extraLength === 0) break;
            if (extraOther) value(ref, JSON.parse(decoder.decode(extraBytes().subarray(0, extraLength))), false);
            else text(ref, extraBytes(), 0, extraLength);
            break;
        }
    }
    ascii('</row>');
  };
}
