/**
 * Reading a pasted list or a file the way analysts write them (docs/watchlists.md "Importing
 * accounts", docs/collect.md "Inputs"): one value a line, or a CSV read from one column.
 *
 * - A byte-order mark is dropped; `\r\n`, `\n` and `\r` all end a line.
 * - Blank lines and lines starting with `#` are skipped (not counted).
 * - A first line with a separator (`,` `;` or tab: the one it has most of) whose cells name a
 *   known column (any case, a leading `@` ignored), or the column the caller picked by name, makes
 *   the text a CSV read from that column; RFC 4180 quotes, a quoted cell may span lines (one
 *   record, numbered by its first line). An empty cell is a problem with its line.
 * - A CSV-looking first line without such a column is, by the caller's choice, a problem on every
 *   line (accounts: nothing is guessed) or plain lines (search queries may hold commas).
 *
 * Nothing is dropped silently: values + problems = lines read.
 */

export interface RawLine {
  /** 1-based line of the text (a CSV record: its first line) */
  line: number;
  /** the line (record) as written */
  text: string;
  /** the value read from it (the line trimmed, or the CSV cell) */
  value: string;
}

export interface LineProblem {
  line: number;
  text: string;
  reason: string;
}

export interface ReadLines {
  /** the CSV column the values came from (lowercase), null: one value a line */
  column: string | null;
  raw: RawLine[];
  problems: LineProblem[];
  /** lines read: records (+ the header) — blank and # lines not counted */
  lines: number;
}

export interface ReadOptions {
  /** CSV column names that hold the value, most specific first (compared in lowercase) */
  columns: readonly string[];
  /** a column picked by name (any case): the text must be a CSV with it */
  column?: string;
  /** words naming the column for problems, e.g. "handle, username or url" */
  what: string;
  /** what one value a line is, for problems, e.g. "one account per line" */
  perLine: string;
  /** a first line with separators but no known column: plain lines (true) or a problem (false) */
  plainWithoutColumn?: boolean;
  /** a first line that is only a known column's name (no separator) is a one-column CSV's header */
  singleColumnHeader?: boolean;
  maxLines?: number;
  /** the words for what a text holds, for the size refusal: "An import", "A plan" */
  subject?: string;
}

/** A refusal of the whole text (too long): the caller turns it into its validation error. */
export class TooManyLines extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TooManyLines';
  }
}

/** Cells of one CSV line (RFC 4180 quotes; a quote left open runs to the end of the line). */
export function cells(line: string, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  let q = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (q) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') q = false;
      else cur += c;
    } else if (c === '"' && cur.trim() === '') {
      q = true;
      cur = '';
    } else if (c === sep) {
      out.push(cur.trim());
      cur = '';
    } else cur += c;
  }
  out.push(cur.trim());
  return out;
}

/**
 * Characters a copy from a web page, a chat or a sheet leaves in a value that nobody typed and
 * nobody sees: zero-width space, word joiner, byte-order marks inside the text, left-to-right and
 * right-to-left marks, direction embeddings and isolates. (Zero-width joiners stay: they are part
 * of emoji and of some scripts' words.)
 */
const INVISIBLE = /[\u200B\u2060\uFEFF\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** A value as written, without invisible characters and surrounding spaces. */
export const cleanValue = (t: string): string => t.replace(INVISIBLE, '').trim();

const skipped = (t: string): boolean => cleanValue(t) === '' || cleanValue(t).startsWith('#');

/**
 * The CSV's records after its header (physical line `header`): a quoted cell may hold line breaks
 * (RFC 4180), so a line whose quotes are left open is joined with the next ones; blank and `#`
 * lines between records are skipped. Each record keeps the number of its first line.
 */
function csvRecords(all: string[], header: number): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  let open: { line: number; text: string } | null = null;
  const quotes = (t: string): number => t.split('"').length - 1;
  for (let i = header; i < all.length; i++) {
    const t = all[i];
    if (open) {
      open.text += '\n' + t;
      if (quotes(open.text) % 2 === 0) open = null;
      continue;
    }
    if (skipped(t)) continue;
    const rec = { line: i + 1, text: t };
    out.push(rec);
    if (quotes(t) % 2 === 1) open = rec;
  }
  return out;
}

/** The lines of the text: values to look at, and lines that cannot be one. */
export function readLines(text: string, o: ReadOptions): ReadLines {
  const all = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  const problems: LineProblem[] = [];
  const raw: RawLine[] = [];
  const rows: Array<{ line: number; text: string }> = [];
  for (let i = 0; i < all.length; i++) if (!skipped(all[i])) rows.push({ line: i + 1, text: all[i] });
  const max = o.maxLines ?? 20_000;
  if (rows.length > max)
    throw new TooManyLines(
      `${o.subject ?? 'An import'} takes up to ${max.toLocaleString('en-US')} lines; this one has ${rows.length.toLocaleString('en-US')}. Split it.`,
    );
  if (rows.length === 0) return { column: null, raw, problems, lines: 0 };
  const head = rows[0].text;
  const picked = o.column?.trim().toLowerCase().replace(/^@/, '');
  // a separator only after the value (`@nasa,`: a list copied one to a line) makes no CSV header
  const headCore = head.replace(/[,;\s]+$/, '');
  const sep = [',', ';', '\t'].map((s) => ({ s, n: headCore.split(s).length - 1 })).sort((a, b) => b.n - a.n)[0];
  const names =
    sep.n > 0
      ? cells(head, sep.s).map((c) => cleanValue(c).toLowerCase().replace(/^@/, ''))
      : [cleanValue(headCore).toLowerCase().replace(/^@/, '')];
  const col = picked !== undefined ? names.indexOf(picked) : o.columns.map((c) => names.indexOf(c)).find((i) => i >= 0);
  if (picked !== undefined && (col === undefined || col < 0)) {
    problems.push({
      line: rows[0].line,
      text: head,
      reason: `no column named "${o.column}" in the first line (its columns: ${names.join(', ') || 'none'})`,
    });
    for (const r of rows.slice(1))
      problems.push({ line: r.line, text: r.text, reason: `not read: the CSV has no column named "${o.column}"` });
    return { column: null, raw, problems, lines: rows.length };
  }
  if (col !== undefined && col >= 0 && (sep.n > 0 || picked !== undefined || o.singleColumnHeader)) {
    const name = names[col];
    const s = sep.n > 0 ? sep.s : ',';
    const records = csvRecords(all, rows[0].line);
    for (const r of records) {
      const v = cleanValue(cells(r.text, s)[col] ?? '');
      if (v === '') problems.push({ line: r.line, text: r.text, reason: `no ${name} in this row` });
      else raw.push({ line: r.line, text: r.text, value: v });
    }
    return { column: name, raw, problems, lines: records.length + 1 };
  }
  if (sep.n > 0 && !o.plainWithoutColumn) {
    problems.push({
      line: rows[0].line,
      text: head,
      reason: `a CSV needs a column named ${o.what} (its columns: ${names.join(', ') || 'none'}); or give ${o.perLine}`,
    });
    for (const r of rows.slice(1)) problems.push({ line: r.line, text: r.text, reason: `not read: the CSV has no ${o.what} column` });
    return { column: null, raw, problems, lines: rows.length };
  }
  for (const r of rows) raw.push({ line: r.line, text: r.text, value: cleanValue(r.text) });
  return { column: null, raw, problems, lines: rows.length };
}
