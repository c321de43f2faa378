/**
 * A stored record read where it lies (issue 30): one pass over the record's JSON bytes, as SQLite
 * stores them, that finds the value of every record path a CSV column shows and collects what no
 * column shows (the `extra` column), without building the record as objects. An export worker
 * then writes each cell from the bytes it found (csv-spans.ts): the text of a string without
 * escapes, the digits of a number, an array's JSON are already the cell.
 *
 * It relies on what the archive stores: `items.raw` is always `JSON.stringify` of the record
 * (items.ts, comment-kinds.ts), so there is no white space, no duplicate key, and numbers and
 * strings are written as JavaScript writes them. Whatever it meets that it cannot take as
 * certainly that text (white space, a key repeated, escapes in a key, anything not JSON) makes
 * `scanRecord` answer false, and the row is rendered from `JSON.parse` as before; a value whose
 * bytes might not be `JSON.stringify`'s (a string with escapes, a number with more than 15
 * significant digits or an exponent, a key that starts with a digit, which objects order first)
 * is flagged, and its cell is made from the parsed value instead of its bytes.
 */
import { LABEL_COLUMNS, RECORD_COLUMNS, RELEVANCE_COLUMNS } from '../../shared/export-columns';

const QUOTE = 34;
const BACKSLASH = 92;
const LBRACE = 123;
const RBRACE = 125;
const LBRACKET = 91;
const RBRACKET = 93;
const COLON = 58;
const COMMA = 44;

/** What a slot holds after a scan. */
export const Span = {
  /** not in the record (or under something that is not an object) */
  Absent: 0,
  /** a string without escapes: its bytes (between the quotes) are its UTF-8 text */
  Text: 1,
  /** a string with escapes: decode it (JSON.parse of the quoted bytes) */
  EscapedText: 2,
  /** a number whose bytes are `String(n)` (at most 15 significant digits, no exponent) */
  Number: 3,
  /** any other number: Number() of its bytes */
  OtherNumber: 4,
  True: 5,
  False: 6,
  Null: 7,
  /** an array or object whose bytes are JSON.stringify's */
  Json: 8,
  /** an array or object to parse and write again (escapes, odd numbers, digit keys inside) */
  OtherJson: 9,
} as const;
export type Span = (typeof Span)[keyof typeof Span];

/** The record paths of the columns that show one (docs/export.md "Columns"), by column name. */
export const RECORD_PATHS: ReadonlyMap<string, readonly string[]> = new Map<string, readonly string[]>([
  ...RECORD_COLUMNS.map(([name, p]): [string, string[]] => [name, p]),
  ['coauthors', ['ext', 'coauthors']],
  ...LABEL_COLUMNS.map(([name, p]): [string, string[]] => [name, p]),
  ...RELEVANCE_COLUMNS.map(([name, p]): [string, string[]] => [name, p]),
]);

/**
 * The paths whose values no `extra` keeps (the tree of columns.ts RECORD_TREE): the top-level
 * `id` and every path a record column shows except `ext.coauthors` (a copy of part of `ext`).
 */
const EXTRA_TREE_PATHS: string[][] = [
  ['id'],
  ...RECORD_COLUMNS.map(([, p]) => p),
  ...LABEL_COLUMNS.map(([, p]) => p),
  ...RELEVANCE_COLUMNS.map(([, p]) => p),
];

interface Entry {
  key: Uint8Array;
  /** index in the scan's seen flags (a key met twice in one object) */
  seen: number;
  /** the slot this path's value goes to, -1 for none */
  slot: number;
  /** the entries beneath, for a path that columns read into */
  sub: Node | null;
  /** left out of `extra` whole (a leaf of the tree) or descended into (its remainder kept) */
  extra: 'drop' | 'descend';
  /** the next entry of the node whose key has the same hash */
  next: Entry | null;
  /** the key that followed this one in its object the last time (the scan's guess for the next member) */
  after: Entry | null;
}
/** an object's keys by hash, and the key its last object started with */
interface Node {
  keys: Map<number, Entry>;
  first: Entry | null;
}
const newNode = (): Node => ({ keys: new Map(), first: null });

function hashKey(bytes: Uint8Array, s: number, e: number): number {
  let h = 0;
  for (let i = s; i < e; i++) h = (Math.imul(h, 31) + bytes[i]) | 0;
  return h;
}

let seenCount = 0;
function entryOf(node: Node, key: string): Entry {
  const bytes = new TextEncoder().encode(key);
  const h = hashKey(bytes, 0, bytes.length);
  let e: Entry | null = node.keys.get(h) ?? null;
  while (e !== null && Buffer.compare(e.key, bytes) !== 0) e = e.next;
  if (e) return e;
  const made: Entry = { key: bytes, seen: seenCount++, slot: -1, sub: null, extra: 'descend', next: node.keys.get(h) ?? null, after: null };
  node.keys.set(h, made);
  return made;
}

/** The scan's plan: every column path (slots numbered in RECORD_PATHS' order) and the extra tree. */
function buildPlan(): { root: Node; slots: Map<string, number>; seen: number } {
  const root: Node = newNode();
  const slots = new Map<string, number>();
  const entries = new Set<Entry>();
  // the extra tree first: leaves are dropped, inner keys descended
  for (const p of EXTRA_TREE_PATHS) {
    let node = root;
    p.forEach((k, i) => {
      const e = entryOf(node, k);
      entries.add(e);
      if (i === p.length - 1) e.extra = 'drop';
      else node = e.sub ??= newNode();
    });
  }
  let slot = 0;
  for (const [name, p] of RECORD_PATHS) {
    let node = root;
    p.forEach((k, i) => {
      const e = entryOf(node, k);
      if (!entries.has(e)) {
        // beneath a dropped leaf (ext.coauthors): read for its column only
        e.extra = 'drop';
        entries.add(e);
      }
      if (i === p.length - 1) e.slot = slot;
      else node = e.sub ??= newNode();
    });
    slots.set(name, slot++);
  }
  return { root, slots, seen: seenCount };
}

const PLAN = buildPlan();

/** The slot of each record column (RECORD_PATHS' names). */
export const SLOTS: ReadonlyMap<string, number> = PLAN.slots;

/** What each slot holds after the last scan (`Span`), and where: bytes [start, end) of the record. */
export const kind = new Uint8Array(PLAN.slots.size);
export const start = new Int32Array(PLAN.slots.size);
export const end = new Int32Array(PLAN.slots.size);

/** The last scan's `extra`: its JSON bytes in `extraBytes()[0, extraLength)`, 0 when none. */
export let extraLength = 0;
/** true when the last scan's `extra` must be parsed and written again (a kept value flagged as in Span.OtherJson) */
export let extraOther = false;
let extraBuf = new Uint8Array(4096);
export function extraBytes(): Uint8Array {
  return extraBuf;
}

const seen = new Uint8Array(PLAN.seen);
/** set while a value is skipped when its bytes might not be JSON.stringify's */
let other = false;

function room(more: number): void {
  if (extraLength + more <= extraBuf.length) return;
  const next = new Uint8Array(Math.max(extraBuf.length * 2, extraLength + more));
  next.set(extraBuf.subarray(0, extraLength));
  extraBuf = next;
}

function keep(b: Uint8Array, s: number, e: number): void {
  room(e - s + 1);
  const out = extraBuf;
  let at = extraLength;
  for (let i = s; i < e; i++) out[at++] = b[i];
  extraLength = at;
}

function keepByte(c: number): void {
  room(1);
  extraBuf[extraLength++] = c;
}

/** index after the string whose opening quote is at `p`, -1 when it is not one; flags escapes */
function skipString(b: Uint8Array, p: number): number {
  const n = b.length;
  for (let i = p + 1; i < n; i++) {
    const c = b[i];
    if (c === QUOTE) return i + 1;
    if (c === BACKSLASH) {
      other = true;
      i++;
    } else if (c < 32) return -1;
  }
  return -1;
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/**
 * index after the number at `p`, -1 when it is not one; `other` is set unless its bytes are
 * certainly `String(n)`: no exponent, no leading zero, no trailing fraction zero, not -0, at most
 * 15 significant digits (any such decimal is the shortest text of its double), and not below 1e-6.
 */
function skipNumber(b: Uint8Array, p: number): number {
  let i = p;
  if (b[i] === 45) i++;
  const intStart = i;
  if (!isDigit(b[i])) return -1;
  if (b[i] === 48) i++;
  else while (isDigit(b[i])) i++;
  const intEnd = i;
  let sig = b[intStart] === 48 ? 0 : intEnd - intStart;
  let odd = false;
  if (b[i] === 46) {
    i++;
    const f = i;
    if (!isDigit(b[i])) return -1;
    while (isDigit(b[i])) i++;
    if (b[i - 1] === 48) odd = true;
    if (sig === 0) {
      let z = f;
      while (b[z] === 48) z++;
      if (z - f > 5) odd = true;
      sig = i - z;
    } else sig += i - f;
  } else if (b[intStart] === 48 && intStart > p) odd = true; // -0
  if (b[i] === 101 || b[i] === 69) {
    odd = true;
    i++;
    if (b[i] === 43 || b[i] === 45) i++;
    if (!isDigit(b[i])) return -1;
    while (isDigit(b[i])) i++;
  }
  if (odd || sig > 15) other = true;
  return i;
}

/** index after `word` at `p`, -1 when it is not there */
function literal(b: Uint8Array, p: number, word: readonly number[]): number {
  for (let k = 0; k < word.length; k++) if (b[p + k] !== word[k]) return -1;
  return p + word.length;
}
const TRUE = [116, 114, 117, 101];
const FALSE = [102, 97, 108, 115, 101];
const NULL = [110, 117, 108, 108];

/** index after the value at `p` (any JSON value), -1 when there is none; sets `other` as above */
function skipValue(b: Uint8Array, p: number): number {
  const c = b[p];
  if (c === QUOTE) return skipString(b, p);
  if (c === LBRACE) {
    let i = p + 1;
    if (b[i] === RBRACE) return i + 1;
    for (;;) {
      if (b[i] !== QUOTE) return -1;
      if (isDigit(b[i + 1])) other = true; // objects put integer keys first
      i = skipString(b, i);
      if (i < 0 || b[i] !== COLON) return -1;
      i = skipValue(b, i + 1);
      if (i < 0) return -1;
      if (b[i] === COMMA) i++;
      else return b[i] === RBRACE ? i + 1 : -1;
    }
  }
  if (c === LBRACKET) {
    let i = p + 1;
    if (b[i] === RBRACKET) return i + 1;
    for (;;) {
      i = skipValue(b, i);
      if (i < 0) return -1;
      if (b[i] === COMMA) i++;
      else return b[i] === RBRACKET ? i + 1 : -1;
    }
  }
  if (c === 116) return literal(b, p, TRUE);
  if (c === 102) return literal(b, p, FALSE);
  if (c === 110) return literal(b, p, NULL);
  return skipNumber(b, p);
}

/** the value at `p` into `slot`: its kind and bytes; index after it, -1 when there is none */
function slotValue(b: Uint8Array, p: number, slot: number): number {
  const c = b[p];
  const was = other;
  other = false;
  const e = skipValue(b, p);
  if (e < 0) return -1;
  let k: Span;
  if (c === QUOTE) k = other ? Span.EscapedText : Span.Text;
  else if (c === LBRACE || c === LBRACKET) k = other ? Span.OtherJson : Span.Json;
  else if (c === 116) k = Span.True;
  else if (c === 102) k = Span.False;
  else if (c === 110) k = Span.Null;
  else k = other ? Span.OtherNumber : Span.Number;
  kind[slot] = k;
  start[slot] = c === QUOTE ? p + 1 : p;
  end[slot] = c === QUOTE ? e - 1 : e;
  other ||= was;
  return e;
}

/** the entry of `node` for the key in bytes [s, e) whose hash is `h` */
function find(b: Uint8Array, node: Node, h: number, s: number, e: number): Entry | undefined {
  for (let entry: Entry | null = node.keys.get(h) ?? null; entry !== null; entry = entry.next) {
    const key = entry.key;
    if (key.length !== e - s) continue;
    let k = 0;
    while (k < key.length && key[k] === b[s + k]) k++;
    if (k === key.length) return entry;
  }
  return undefined;
}

/** `"key":value`, bytes [s, e), appended to `extra` after the members already there (`any`) */
function member(b: Uint8Array, s: number, e: number, any: boolean): void {
  if (any) keepByte(COMMA);
  keep(b, s, e);
}

/** set by scanObject: whether the object's remainder has a member */
let kept = false;
/** set by known: whether it appended a member to `extra` */
let added = false;

/**
 * The value at `vs` of a key the plan knows (`entry`; the member starts at `ks`): its slots, and
 * its part of `extra` when `ex` (after `any` members). Index after it, -1 as scanObject.
 */
function known(b: Uint8Array, entry: Entry, ks: number, vs: number, ex: boolean, any: boolean): number {
  added = false;
  if (seen[entry.seen] === 1) return -1; // a key twice: JSON.parse keeps the last one
  seen[entry.seen] = 1;
  const sub = entry.sub;
  const was = other;
  let ve: number;
  if (sub !== null && b[vs] === LBRACE) {
    other = false;
    if (entry.extra === 'descend' && ex) {
      const mark = extraLength;
      member(b, ks, vs + 1, any); // "key":{
      ve = scanObject(b, vs, sub, true);
      if (ve < 0) return -1;
      if (kept) keepByte(RBRACE);
      else extraLength = mark;
      added = kept;
    } else ve = scanObject(b, vs, sub, false);
    if (ve >= 0 && entry.slot >= 0) {
      kind[entry.slot] = other ? Span.OtherJson : Span.Json;
      start[entry.slot] = vs;
      end[entry.slot] = ve;
    }
  } else if (entry.slot >= 0) return slotValue(b, vs, entry.slot);
  else {
    other = false;
    ve = skipValue(b, vs);
    if (ve >= 0 && entry.extra === 'descend' && ex) {
      // not an object where columns read into one (`labels: null`): kept whole
      member(b, ks, ve, any);
      added = true;
      extraOther ||= other;
    }
  }
  other ||= was;
  return ve;
}

/**
 * The object at `p` (b[p] is `{`) under `node`: slots filled, and when `ex`, what no column shows
 * appended to `extra` (members separated by commas; the caller writes the braces). Index after it,
 * -1 when the scan cannot vouch for the row. Sets `kept`: whether a member was appended.
 */
function scanObject(b: Uint8Array, p: number, node: Node, ex: boolean): number {
  const n = b.length;
  let i = p + 1;
  let any = false;
  if (b[i] === RBRACE) {
    kept = false;
    return i + 1;
  }
  /** the last known key of this object (its `after` is the guess for the next member) */
  let prev: Entry | null = null;
  for (;;) {
    if (b[i] !== QUOTE) return -1;
    const ks = i;
    let j = -1;
    let entry: Entry | undefined;
    // the stored records of an archive spell their keys in the same order: the key that came next
    // last time, compared where it would lie (its closing quote included), before any hashing
    const guess = prev === null ? node.first : prev.after;
    if (guess !== null) {
      const key = guess.key;
      const len = key.length;
      let k = 0;
      while (k < len && key[k] === b[ks + 1 + k]) k++;
      if (k === len && b[ks + 1 + len] === QUOTE) {
        entry = guess;
        j = ks + 1 + len;
      }
    }
    if (j < 0) {
      let h = 0;
      for (j = i + 1; j < n; j++) {
        const c = b[j];
        if (c === QUOTE) break;
        if (c === BACKSLASH || c < 32) return -1; // an escaped key: let JSON.parse read it
        h = (Math.imul(h, 31) + c) | 0;
      }
      if (j >= n) return -1;
      entry = find(b, node, h, ks + 1, j);
      if (entry !== undefined) {
        if (prev === null) node.first = entry;
        else prev.after = entry;
      }
    }
    if (b[j + 1] !== COLON) return -1;
    const vs = j + 2;
    let ve: number;
    if (entry === undefined) {
      const was = other;
      other = isDigit(b[ks + 1]); // integer keys come first in an object
      ve = skipValue(b, vs);
      if (ve < 0) return -1;
      if (ex) {
        member(b, ks, ve, any);
        any = true;
        extraOther ||= other;
      }
      other ||= was;
    } else {
      ve = known(b, entry, ks, vs, ex, any);
      if (ve < 0) return -1;
      any ||= added;
      prev = entry;
    }
    i = ve;
    if (b[i] === COMMA) i++;
    else if (b[i] === RBRACE) {
      kept = any;
      return i + 1;
    } else return -1;
  }
}

/**
 * Scan one stored record (its UTF-8 JSON bytes). True when every slot and `extra` can be read from
 * the bytes (`kind`, `start`, `end`, `extraLength`, `extraOther`); false when the row must be
 * rendered from its parsed record (see the module's comment).
 */
export function scanRecord(b: Uint8Array): boolean {
  const n = b.length;
  kind.fill(0);
  seen.fill(0);
  extraLength = 0;
  extraOther = false;
  other = false;
  if (n < 2 || b[0] !== LBRACE) return false;
  keepByte(LBRACE);
  const e = scanObject(b, 0, PLAN.root, true);
  if (e !== n) return false;
  if (kept) keepByte(RBRACE);
  else extraLength = 0;
  return true;
}
