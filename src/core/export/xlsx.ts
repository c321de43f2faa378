/**
 * XLSX exports analysts open directly (docs/export.md "XLSX").
 *
 * Loupe writes the workbook itself: each sheet's XML is rendered here, row by row, into a ZIP entry
 * deflated as it streams (zip.ts, with backpressure), and the fixed parts around the sheets
 * (xlsx-parts.ts) are added at the end. exceljs wrote the container until issue 26: it brought 178
 * of the 242 production packages for what is ~400 lines here, and its row model cost 65 s per 1M rows
 * (the rows already bypassed it). The cells written:
 *
 *  - text (inline strings, never a shared-string table that would grow with the file): ids and every
 *    other string, digits included, stay exactly as the API gave them; `=`, `+`, `-`, `@` at the
 *    start stay plain text (a typed text cell is never evaluated — no `'` prefix as in CSV);
 *  - numbers (`<v>`) when exact in a spreadsheet (at most 15 significant digits), else text;
 *  - booleans (`t="b"`), dates (a serial day number with a `yyyy-mm-dd hh:mm:ss` format, UTC);
 *  - objects and arrays as compact JSON text; nothing is ever a formula (no `<f>` element).
 *
 * Characters XML cannot hold become U+FFFD; a text longer than Excel's 32,767-character cell
 * limit is cut there (counted in the result; the JSON export keeps it whole). A sheet holds at most
 * 1,048,575 data rows under its header; the next rows go to a new sheet.
 */
import { randomBytes } from 'node:crypto';
import { rename, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { xmlSafe } from '../text';
import type { ExportRow } from '../ports';
import { formatNumber } from './cells';
import { resolveColumns, valuesRenderer } from './columns';
import { abortError } from './abort';
import { DATE_STYLE, SHEET_HEAD, SHEET_TAIL, SheetNames, sheetPath, workbookParts } from './xlsx-parts';
import { ZipWriter, type ZipEntryStream } from './zip';

export const XLSX_MAX_DATA_ROWS = 1_048_575;
export const XLSX_MAX_CELL_CHARS = 32_767;
export const XLSX_DATE_FORMAT = 'yyyy-mm-dd hh:mm:ss';
/** Columns whose values are times (ISO text from the API, or the archive's ms) written as dates. */
export const XLSX_DATE_COLUMNS: ReadonlySet<string> = new Set(['published_at', 'author.joined_at', 'first_seen_at', 'last_seen_at']);

export interface XlsxOptions {
  out: string;
  columns?: string[];
  signal?: AbortSignal;
  onProgress?: (rows: number) => void;
  total?: number;
  /** data rows per sheet (tests use a small number); default and maximum 1,048,575 */
  rowsPerSheet?: number;
  /** sheet name (numbered from the second sheet on; made a legal sheet name, xlsx-parts.ts SheetNames) */
  sheetName?: string;
  /** write the ZIP as Zip64 whatever its size (tests: the path a file past 4 GiB takes) */
  forceZip64?: boolean;
  /**
   * More sheets after the rows' (companions.ts: "Metric history", "Annotations"), each with its header and
   * typed cells (times as dates, JSON as text); numbered like the rows' sheets past 1,048,575 rows.
   * A sheet without rows is left out.
   */
  extraSheets?: Array<{ name: string; columns: ReadonlyArray<{ name: string; type: string }>; rows: () => Iterable<unknown[]> }>;
}

export interface XlsxResult {
  rows: number;
  bytes: number;
  path: string;
  sheets: number;
  /** cells cut at 32,767 characters */
  truncatedCells: number;
}

/** `A`, `B`, … `Z`, `AA`, … */
export function columnLetters(i: number): string {
  let s = '';
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#13;' };
const NEEDS_ESC = /[&<>\r]/;
/** 1970-01-01 as an Excel serial day (1900 date system) */
const EPOCH_SERIAL = 25_569;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:Z|[+-]\d{2}:?\d{2})?$/;

class CellWriter {
  truncated = 0;
  constructor(private readonly dateStyle: number) {}

  text(ref: string, s: string): string {
    if (s.length > XLSX_MAX_CELL_CHARS) {
      this.truncated++;
      s = s.slice(0, XLSX_MAX_CELL_CHARS);
      if (/[\uD800-\uDBFF]$/.test(s)) s = s.slice(0, -1);
    }
    s = xmlSafe(s);
    if (NEEDS_ESC.test(s)) s = s.replace(/[&<>\r]/g, (c) => ESC[c]);
    // an inline string: the canonical text cell (`t="str"` means a formula's text result);
    // whitespace at the ends needs preserve
    return /^\s|\s$/.test(s)
      ? `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${s}</t></is></c>`
      : `<c r="${ref}" t="inlineStr"><is><t>${s}</t></is></c>`;
  }

  date(ref: string, ms: number): string {
    return `<c r="${ref}" s="${this.dateStyle}"><v>${ms / 86_400_000 + EPOCH_SERIAL}</v></c>`;
  }

  value(ref: string, v: unknown, isDate: boolean): string {
    if (v === null || v === undefined) return '';
    switch (typeof v) {
      case 'string': {
        if (isDate && ISO_TIME.test(v)) {
          const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v);
          if (Number.isFinite(ms)) return this.date(ref, ms);
        }
        return v.length === 0 ? '' : this.text(ref, v);
      }
      case 'number':
        if (isDate && Number.isFinite(v)) return this.date(ref, v);
        // exact in a spreadsheet only up to 15 significant digits; longer numbers are kept as text
        if (Number.isFinite(v) && (Number.isSafeInteger(v) ? Math.abs(v) < 1e15 : Number(v.toPrecision(15)) === v))
          return `<c r="${ref}"><v>${v}</v></c>`;
        return this.text(ref, formatNumber(v));
      case 'boolean':
        return `<c r="${ref}" t="b"><v>${v ? 1 : 0}</v></c>`;
      case 'bigint':
        return this.text(ref, v.toString());
      default:
        return this.text(ref, JSON.stringify(v));
    }
  }
}

type ExtraSheet = NonNullable<XlsxOptions['extraSheets']>[number];

/** characters of sheet XML handed to the deflater at once */
const PIECE = 256 * 1024;

/**
 * The workbook's sheets, one ZIP entry each, written one after the other: rows' XML is gathered
 * into 256 KiB pieces and handed to the entry's deflater (waiting while it is behind). After each
 * piece the event loop gets a turn, so the deflater's answers are taken at once and it compresses
 * one piece in zlib's thread pool while this thread renders the next (a synchronous source never
 * waits by itself: with a turn only every 25 ms the two took turns instead).
 */
class SheetWriter {
  readonly names = new SheetNames();
  private entry: ZipEntryStream | null = null;
  private buf = '';
  constructor(
    private readonly zip: ZipWriter,
    private readonly cells: CellWriter,
    private readonly signal?: AbortSignal,
  ) {}

  /** Start a sheet (part `part` of `name`) with its header row, closing the one before. */
  async open(name: string, part: number, header: readonly string[]): Promise<void> {
    await this.close();
    this.names.add(name, part);
    this.entry = await this.zip.stream(sheetPath(this.names.names.length - 1));
    let x = `${SHEET_HEAD}<row r="1">`;
    for (let i = 0; i < header.length; i++) x += this.cells.text(columnLetters(i) + '1', header[i]);
    this.buf = x + '</row>';
  }

  /** Append a row's XML; true when a piece waits to be written (then `flush`). */
  add(xml: string): boolean {
    this.buf += xml;
    return this.buf.length >= PIECE;
  }

  async flush(): Promise<void> {
    if (!this.entry || this.buf.length === 0) return;
    const s = this.buf;
    this.buf = '';
    await this.entry.write(s);
    await new Promise<void>((res) => setImmediate(res));
    if (this.signal?.aborted) throw abortError(this.signal);
  }

  async close(): Promise<void> {
    if (!this.entry) return;
    this.buf += SHEET_TAIL;
    await this.flush();
    await this.entry.close();
    this.entry = null;
  }

  /** A companion table (history, annotations): its own sheets, left out when it has no rows. */
  async extra(extra: ExtraSheet, perSheet: number): Promise<void> {
    const names = extra.columns.map((c) => c.name);
    const isDate = extra.columns.map((c) => c.type === 'time');
    const letters = names.map((_, i) => columnLetters(i));
    let part = 0;
    let n = perSheet;
    for (const vs of extra.rows()) {
      if (this.signal?.aborted) throw abortError(this.signal);
      if (n === perSheet) {
        await this.open(extra.name, ++part, names);
        n = 0;
      }
      const r = ++n + 1;
      let x = `<row r="${r}">`;
      for (let i = 0; i < vs.length; i++)
        x += this.cells.value(
          letters[i] + r,
          isDate[i] ? vs[i] : typeof vs[i] === 'object' && vs[i] !== null ? JSON.stringify(vs[i]) : vs[i],
          isDate[i],
        );
      if (this.add(x + '</row>')) await this.flush();
    }
  }
}

/**
 * Export rows to an XLSX workbook at `opts.out` (written under a temporary name, renamed when
 * complete; removed on failure or cancel).
 */
export async function exportXlsx(rows: Iterable<ExportRow> | AsyncIterable<ExportRow>, opts: XlsxOptions): Promise<XlsxResult> {
  const defs = resolveColumns(opts.columns);
  const values = valuesRenderer(defs);
  const names = defs.map((d) => d.name);
  const isDate = names.map((n) => XLSX_DATE_COLUMNS.has(n));
  const letters = names.map((_, i) => columnLetters(i));
  const perSheet = Math.min(XLSX_MAX_DATA_ROWS, Math.max(1, opts.rowsPerSheet ?? XLSX_MAX_DATA_ROWS));
  const sheetName = opts.sheetName ?? 'Loupe export';
  const { signal, onProgress } = opts;
  signal?.throwIfAborted();
  const finalPath = resolve(opts.out);
  const tmp = join(dirname(finalPath), `.${basename(finalPath)}.${randomBytes(6).toString('hex')}.partial`);
  const every = opts.total && opts.total > 0 ? Math.max(1, Math.floor(opts.total / 200)) : 1000;
  const created = new Date();
  const cells = new CellWriter(DATE_STYLE);
  const zip = await ZipWriter.create(tmp, { level: 1, forceZip64: opts.forceZip64, date: created });
  const sheets = new SheetWriter(zip, cells, signal);
  try {
    let nextReport = every;
    let count = 0;
    let inSheet = 0;
    let part = 1;
    /** One row into the sheet; true when a piece is ready to write. */
    const render = (row: ExportRow): boolean => {
      const r = ++inSheet + 1;
      const vs = values(row);
      let x = `<row r="${r}">`;
      for (let i = 0; i < vs.length; i++) x += cells.value(letters[i] + r, vs[i], isDate[i]);
      count++;
      return sheets.add(x + '</row>');
    };
    const nextSheet = async (): Promise<void> => {
      await sheets.open(sheetName, ++part, names);
      inSheet = 0;
    };
    const after = async (): Promise<void> => {
      if (signal?.aborted) throw abortError(signal);
      await sheets.flush();
      if (onProgress && count >= nextReport) {
        nextReport = count + every;
        onProgress(count);
      }
    };
    await sheets.open(sheetName, part, names);
    // a synchronous source (the archive) is drained in a plain loop: no await per row
    if (Symbol.asyncIterator in rows) {
      for await (const row of rows) {
        if (inSheet === perSheet) await nextSheet();
        if (render(row) || signal?.aborted) await after();
      }
    } else
      for (const row of rows) {
        if (inSheet === perSheet) await nextSheet();
        if (render(row) || signal?.aborted) await after();
      }
    if (signal?.aborted) throw abortError(signal);
    for (const extra of opts.extraSheets ?? []) await sheets.extra(extra, perSheet);
    await sheets.close();
    for (const [path, xml] of workbookParts(sheets.names.names, XLSX_DATE_FORMAT, created)) await zip.add(path, xml);
    const bytes = await zip.finish();
    if (signal?.aborted) throw abortError(signal);
    await rename(tmp, finalPath);
    onProgress?.(count);
    return { rows: count, bytes, path: finalPath, sheets: sheets.names.names.length, truncatedCells: cells.truncated };
  } catch (e) {
    await zip.destroy().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
}
