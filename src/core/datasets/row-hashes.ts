/**
 * The per-row SHA-256s of a bundle's item tables, read from the files' bytes (docs/datasets.md
 * "The manifest"): each record of `items.csv` (its text without the line end) and each line of a
 * JSON Lines file, with the item key it names and its line number. Byte-level: records are found
 * by their quotes and line ends (ASCII, so safe inside UTF-8), hashed as they are in the file and
 * never decoded, but for the three cells of the key. Verify, import and export hash rows alike.
 */
import * as crypto from 'node:crypto';
import { LoupeError } from '../../shared/errors';
import { unneutraliseCell } from '../export';

const QUOTE = 0x22;
const COMMA = 0x2c;
const CR = 0x0d;
const LF = 0x0a;

/** crypto.hash (Node ≥ 20.12): one call, no Hash object (the root hash chains one per item and file) */
const oneShot = (crypto as { hash?: (alg: string, data: string | Uint8Array) => string }).hash;
/** SHA-256 in hex of bytes, or of a string's UTF-8 */
export const sha256 = oneShot
  ? (s: string | Uint8Array): string => oneShot('sha256', s)
  : (s: string | Uint8Array): string => crypto.createHash('sha256').update(s).digest('hex');
export const itemKeyOf = (i: { platform: string; kind: string; id: string }): string => `${i.platform}/${i.kind}/${i.id}`;

export interface RowHash {
  /** platform/kind/id, or null when the row names none */
  key: string | null;
  sha: string;
  line: number;
}

/** One cell's text as RFC 4180 reads it (quotes removed, `""` → `"`), leniently as csvCells does. */
function cellText(s: string): string {
  if (s.indexOf('"') < 0) return s;
  let out = '';
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (quoted) {
      if (ch === '"' && s[i + 1] === '"') {
        out += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else out += ch;
    } else if (ch === '"') quoted = true;
    else out += ch;
  }
  return out;
}

/**
 * The records of CSV bytes (a UTF-8 BOM dropped; empty lines skipped): each record's bytes without
 * its line end, its first line's number, and the offsets where its first `cells` cells start.
 */
function* csvByteRecords(b: Uint8Array, cells: number): IterableIterator<{ start: number; end: number; line: number; starts: number[] }> {
  let i = b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
  let line = 1;
  const n = b.length;
  while (i < n) {
    const start = i;
    const startLine = line;
    const starts = [start];
    let quoted = false;
    for (; i < n; i++) {
      const c = b[i];
      if (c === QUOTE) quoted = !quoted;
      else if (quoted) {
        if (c === LF) line++;
      } else if (c === COMMA) {
        if (starts.length < cells) starts.push(i + 1);
      } else if (c === CR || c === LF) break;
    }
    const end = i;
    if (b[i] === CR && b[i + 1] === LF) i += 2;
    else if (i < n) i++;
    line++;
    if (end > start) yield { start, end, line: startLine, starts };
  }
}

const decoder = new TextDecoder();

/** The cell `k` of a record (its text, unquoted and un-neutralised), '' when the record has fewer. */
function cellOf(b: Uint8Array, r: { end: number; starts: number[] }, k: number): string {
  if (k >= r.starts.length) return '';
  const to = k + 1 < r.starts.length ? r.starts[k + 1] - 1 : nextComma(b, r.starts[k], r.end);
  return unneutraliseCell(cellText(decoder.decode(b.subarray(r.starts[k], to))));
}

/** Where the cell starting at `from` ends: its comma outside quotes, or the record's end. */
function nextComma(b: Uint8Array, from: number, end: number): number {
  let quoted = false;
  for (let i = from; i < end; i++) {
    const c = b[i];
    if (c === QUOTE) quoted = !quoted;
    else if (c === COMMA && !quoted) return i;
  }
  return end;
}

/** The header's cell names of CSV bytes (un-neutralised). */
export function csvHeader(b: Uint8Array): string[] {
  const first = csvByteRecords(b, Number.MAX_SAFE_INTEGER).next();
  if (first.done) return [];
  const r = first.value;
  return r.starts.map((_, k) => cellOf(b, r, k));
}

/**
 * A row's re-check marks as items.csv holds them (docs/export.md "Columns": `checked_at`,
 * `missing_since`, ISO text or empty), read beside its hash when asked (verify).
 */
export interface RowMarks {
  platform: string;
  checked: string;
  missing: string;
}

/**
 * item key → SHA-256 of its CSV record (the header names platform, kind, id); with `marks`, each
 * row's `checked_at` and `missing_since` cells too (null when the header has no such columns: a
 * bundle written before them).
 */
export function csvRowHashes(b: Uint8Array, o: { marks?: boolean } = {}): { header: string[]; rows: RowHash[]; marks: RowMarks[] | null } {
  const header = csvHeader(b);
  if (header.length === 0) return { header, rows: [], marks: null };
  const [p, k, d] = ['platform', 'kind', 'id'].map((n) => header.indexOf(n));
  if (p < 0 || k < 0 || d < 0)
    throw new LoupeError('validation', "items.csv has no platform, kind and id columns: it is not a bundle's items table.");
  const [c, m] = ['checked_at', 'missing_since'].map((n) => header.indexOf(n));
  const marks: RowMarks[] | null = o.marks && c >= 0 && m >= 0 ? [] : null;
  const rows: RowHash[] = [];
  const it = csvByteRecords(b, Math.max(p, k, d, marks ? Math.max(c, m) : 0) + 1);
  it.next(); // the header
  for (const r of it) {
    rows.push({
      key: itemKeyOf({ platform: cellOf(b, r, p), kind: cellOf(b, r, k), id: cellOf(b, r, d) }),
      sha: sha256(b.subarray(r.start, r.end)),
      line: r.line,
    });
    marks?.push({ platform: cellOf(b, r, p), checked: cellOf(b, r, c), missing: cellOf(b, r, m) });
  }
  return { header, rows, marks };
}

/** The non-empty lines of JSON Lines bytes (split at `\n`, as text.split('\n')): bytes and 1-based line number. */
export function* jsonlLines(b: Uint8Array): IterableIterator<{ bytes: Uint8Array; line: number }> {
  let i = 0;
  let line = 1;
  while (i <= b.length) {
    let j = b.indexOf(LF, i);
    if (j < 0) j = b.length;
    if (j > i) yield { bytes: b.subarray(i, j), line };
    i = j + 1;
    line++;
  }
}

/** An envelope's key as export writes it first: {"platform":…,"kind":…,"id":…, */
const KEY_PREFIX = /^\{"platform":("(?:[^"\\]|\\.)*"),"kind":("(?:[^"\\]|\\.)*"),"id":("(?:[^"\\]|\\.)*")[,}]/;

/** The item key a JSON Lines line names (its platform, kind, id), or null. */
export function jsonlKey(bytes: Uint8Array): string | null {
  const m = KEY_PREFIX.exec(decoder.decode(bytes.subarray(0, 1024)));
  try {
    if (m) return itemKeyOf({ platform: JSON.parse(m[1]) as string, kind: JSON.parse(m[2]) as string, id: JSON.parse(m[3]) as string });
    const o = JSON.parse(decoder.decode(bytes)) as { platform?: unknown; kind?: unknown; id?: unknown };
    if (typeof o.platform === 'string' && typeof o.kind === 'string' && typeof o.id === 'string')
      return itemKeyOf(o as { platform: string; kind: string; id: string });
  } catch {
    return null;
  }
  return null;
}

/** item key → SHA-256 of its JSONL line. */
export function jsonlRowHashes(b: Uint8Array): RowHash[] {
  const out: RowHash[] = [];
  for (const l of jsonlLines(b)) out.push({ key: jsonlKey(l.bytes), sha: sha256(l.bytes), line: l.line });
  return out;
}
