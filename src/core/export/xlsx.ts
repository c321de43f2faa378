/**
 * XLSX exports analysts open directly (docs/export.md "XLSX").
 *
 * The workbook is written by exceljs's streaming `WorkbookWriter` (zip container, workbook,
 * relationships, content types, styles, each sheet's frame and header row). Data rows are
 * rendered here, straight into the sheet's stream, with backpressure: exceljs builds a Row and a
 * Cell object per cell (measured 65 s per 1M rows of 82 columns, 150 s with its style manager),
 * and its sheet stream never pushes back, so a fast producer filled memory. The cells written:
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
import { rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import ExcelJS from 'exceljs';
import { xmlSafe } from '../text';
import type { ExportRow } from '../ports';
import { formatNumber } from './cells';
import { resolveColumns, valuesRenderer } from './columns';
import { abortError } from './abort';

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
  /** sheet name (numbered from the second sheet on) */
  sheetName?: string;
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

/** Internals of exceljs 4.4's streaming writer this module relies on (checked at start). */
interface SheetInternals {
  stream: { write(s: string): unknown; pipes?: Array<{ _writableState?: { length: number; needDrain: boolean }; once(ev: 'drain', f: () => void): void }> };
  addRow(values: unknown[]): { commit(): void };
  commit(): void;
}
interface StylesInternals {
  addStyleModel(model: object, type: number): number;
  model: { styles: Array<{ numFmtId: number }>; numFmts: Array<{ id: number; formatCode: string }> };
}

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
    // an inline string: the canonical text cell (`t="str"` means a formula's text result, and
    // exceljs's own reader decodes its entities twice); whitespace at the ends needs preserve
    return /^\s|\s$/.test(s) ? `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${s}</t></is></c>` : `<c r="${ref}" t="inlineStr"><is><t>${s}</t></is></c>`;
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
        if (Number.isFinite(v) && (Number.isSafeInteger(v) ? Math.abs(v) < 1e15 : Number(v.toPrecision(15)) === v)) return `<c r="${ref}"><v>${v}</v></c>`;
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
  const sheetName = (opts.sheetName ?? 'Loupe export').slice(0, 25);
  const { signal, onProgress } = opts;
  signal?.throwIfAborted();
  const finalPath = resolve(opts.out);
  const tmp = join(dirname(finalPath), `.${basename(finalPath)}.${randomBytes(6).toString('hex')}.partial`);
  const every = opts.total && opts.total > 0 ? Math.max(1, Math.floor(opts.total / 200)) : 1000;

  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: tmp, useStyles: false, useSharedStrings: false, zip: { zlib: { level: 1 } } } as ExcelJS.stream.xlsx.WorkbookStreamWriterOptions);
  // the date format: exceljs's style stand-in (useStyles: false) gives dates its one date style, numFmt 14
  // (the locale's short date, no time); that style is pointed at a custom date-and-time format
  const styles = (wb as unknown as { styles: StylesInternals }).styles;
  if (typeof styles?.addStyleModel !== 'function' || !Array.isArray(styles.model?.styles) || !Array.isArray(styles.model?.numFmts))
    throw new Error('xlsx: this exceljs version has an unexpected streaming writer (expected 4.4)');
  const dateStyle = styles.addStyleModel({}, ExcelJS.ValueType.Date);
  styles.model.numFmts.push({ id: 164, formatCode: XLSX_DATE_FORMAT });
  styles.model.styles[dateStyle].numFmtId = 164;
  const cells = new CellWriter(dateStyle);

  let count = 0;
  let sheets = 0;
  let sheet: SheetInternals | null = null;
  let inSheet = 0;
  let buf = '';
  let committed = false;
  const newSheet = (): SheetInternals => {
    sheets++;
    const ws = wb.addWorksheet(sheets === 1 ? sheetName : `${sheetName} (${sheets})`, { views: [{ state: 'frozen', ySplit: 1 }] }) as unknown as SheetInternals;
    // the header through exceljs: it opens the sheet's data section
    ws.addRow(names).commit();
    if (typeof ws.stream?.write !== 'function') throw new Error('xlsx: this exceljs version has an unexpected streaming writer (expected 4.4)');
    inSheet = 0;
    return ws;
  };
  let turn = performance.now();
  /**
   * Hand the pending rows to the sheet; wait while the zip stage holds more than 4 MiB, and give
   * the event loop a turn at least every 25 ms (a synchronous source never waits by itself).
   */
  const flush = async (): Promise<void> => {
    if (!sheet || buf.length === 0) return;
    sheet.stream.write(buf);
    buf = '';
    if (performance.now() - turn >= 25) {
      await new Promise<void>((res) => setImmediate(res));
      turn = performance.now();
    }
    for (;;) {
      const pipe = sheet.stream.pipes?.[0];
      const st = pipe?._writableState;
      if (!pipe) {
        // the zip has not started reading this sheet yet (the previous one is still compressing)
        await new Promise<void>((res) => setTimeout(res, 5));
        if (signal?.aborted) throw abortError(signal);
        continue;
      }
      if (st?.needDrain && st.length > 1 << 22) await new Promise<void>((res) => pipe.once('drain', res));
      return;
    }
  };
  try {
    let nextReport = every;
    const source: AsyncIterable<ExportRow> | Iterable<ExportRow> = rows;
    const iter = Symbol.asyncIterator in source ? source : (source as Iterable<ExportRow>);
    sheet = newSheet();
    for await (const row of iter as AsyncIterable<ExportRow>) {
      if (signal?.aborted) throw abortError(signal);
      if (inSheet === perSheet) {
        await flush();
        sheet.commit();
        sheet = newSheet();
      }
      const r = inSheet + 2;
      const vs = values(row);
      let x = `<row r="${r}">`;
      for (let i = 0; i < vs.length; i++) x += cells.value(letters[i] + r, vs[i], isDate[i]);
      buf += x + '</row>';
      inSheet++;
      count++;
      if (buf.length >= 65_536) {
        await flush();
        if (onProgress && count >= nextReport) {
          nextReport = count + every;
          onProgress(count);
        }
      }
    }
    await flush();
    sheet.commit();
    for (const extra of opts.extraSheets ?? []) {
      const exNames = extra.columns.map((c) => c.name);
      const exDate = extra.columns.map((c) => c.type === 'time');
      const exLetters = exNames.map((_, i) => columnLetters(i));
      let part = 0;
      let n = perSheet;
      for (const vs of extra.rows()) {
        if (signal?.aborted) throw abortError(signal);
        if (n === perSheet) {
          await flush();
          if (part > 0) sheet.commit();
          part++;
          sheet = wb.addWorksheet(part === 1 ? extra.name.slice(0, 25) : `${extra.name.slice(0, 25)} (${part})`, { views: [{ state: 'frozen', ySplit: 1 }] }) as unknown as SheetInternals;
          sheet.addRow(exNames).commit();
          n = 0;
        }
        const r = n + 2;
        let x = `<row r="${r}">`;
        for (let i = 0; i < vs.length; i++) x += cells.value(exLetters[i] + r, exDate[i] ? vs[i] : typeof vs[i] === 'object' && vs[i] !== null ? JSON.stringify(vs[i]) : vs[i], exDate[i]);
        buf += x + '</row>';
        n++;
        if (buf.length >= 65_536) await flush();
      }
      if (part > 0) {
        await flush();
        sheet.commit();
        sheets += part;
      }
    }
    committed = true;
    await wb.commit();
    if (signal?.aborted) throw abortError(signal);
    const bytes = (await stat(tmp)).size;
    await rename(tmp, finalPath);
    onProgress?.(count);
    return { rows: count, bytes, path: finalPath, sheets, truncatedCells: cells.truncated };
  } catch (e) {
    // close the zip so its file handle is released, then remove the partial file
    if (!committed) {
      try {
        sheet?.commit();
        await wb.commit();
      } catch {
        /* the file goes anyway */
      }
    }
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
}
