/**
 * XLSX exports analysts open directly (docs/export.md "XLSX").
 *
 * Loupe writes the workbook itself: each sheet's XML is rendered here, row by row, into a ZIP entry
 * deflated as it streams (zip.ts, with backpressure), and the fixed parts around the sheets
 * (xlsx-parts.ts) are added at the end. exceljs wrote the container until issue 26: it brought 178
 * of the 242 production packages for what is ~400 lines here, and its row model cost 65 s per 1M rows
 * (the rows already bypassed it). The archive's rows are read, rendered and deflated by worker
 * threads instead (xlsx-rids.ts; the cells' code is xlsx-cells.ts, from the stored bytes xlsx-spans.ts).
 * The cells written:
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
import { rename, unlink } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ExportRow, ExportRowSource } from '../ports';
import { resolveColumns } from './columns';
import { abortError } from './abort';
import { CellWriter, columnLetters, XLSX_DATE_FORMAT, XLSX_DEFLATE_LEVEL, xlsxRowRenderer } from './xlsx-cells';
import { DATE_STYLE, SHEET_HEAD, SHEET_TAIL, SheetNames, sheetPath, workbookParts } from './xlsx-parts';
import { xlsxFromRids } from './xlsx-rids';
import { ridThreads } from './csv-rids';
import { ZipWriter, type DeflatedPiece, type ZipEntryStream, type ZipPieceEntry } from './zip';
import { freshPartial } from '../partial-files';

export { columnLetters, XLSX_DATE_COLUMNS, XLSX_DATE_FORMAT, XLSX_MAX_CELL_CHARS } from './xlsx-cells';

export const XLSX_MAX_DATA_ROWS = 1_048_575;
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
  /**
   * The archive's rows (a source with a rid walk): worker threads that read, render and compress
   * them (xlsx-rids.ts; default one per core, at most four; 0 = none, all on this thread).
   */
  threads?: number;
  /** rows below which an export stays on this thread (default 5,000) */
  parallelAfter?: number;
}

export interface XlsxResult {
  rows: number;
  bytes: number;
  path: string;
  sheets: number;
  /** cells cut at 32,767 characters */
  truncatedCells: number;
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
 * With `pieces` set, a sheet is written from pieces deflated elsewhere (the rows' XML compressed by
 * the workers that rendered it, xlsx-rids.ts); its own XML (header, tail) is deflated here.
 */
class SheetWriter {
  readonly names = new SheetNames();
  /** sheets opened from now on take deflated pieces (ZipWriter.pieces) */
  pieces = false;
  private entry: ZipEntryStream | ZipPieceEntry | null = null;
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
    const path = sheetPath(this.names.names.length - 1);
    this.entry = this.pieces ? await this.zip.pieces(path) : await this.zip.stream(path);
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

  /** Append rows deflated elsewhere (a sheet opened with `pieces` set). */
  async piece(p: DeflatedPiece): Promise<void> {
    await this.flush();
    if (!this.entry || !('piece' in this.entry)) throw new Error('xlsx: a deflated piece for a sheet not written from pieces');
    await this.entry.piece(p);
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

/** The rows rendered on this thread, into the rows' sheets (the first not yet open); returns their count. */
async function rowsHere(
  rows: Iterable<ExportRow> | AsyncIterable<ExportRow>,
  o: {
    sheets: SheetWriter;
    renderRow: (row: ExportRow, r: number) => string;
    names: readonly string[];
    sheetName: string;
    perSheet: number;
    signal?: AbortSignal;
    progress: (rows: number) => void;
  },
): Promise<number> {
  const { sheets, renderRow, perSheet, signal } = o;
  let count = 0;
  let inSheet = 0;
  let part = 1;
  /** One row into the sheet; true when a piece is ready to write. */
  const render = (row: ExportRow): boolean => {
    count++;
    return sheets.add(renderRow(row, ++inSheet + 1));
  };
  const nextSheet = async (): Promise<void> => {
    await sheets.open(o.sheetName, ++part, o.names);
    inSheet = 0;
  };
  const after = async (): Promise<void> => {
    if (signal?.aborted) throw abortError(signal);
    await sheets.flush();
    o.progress(count);
  };
  await sheets.open(o.sheetName, part, o.names);
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
  return count;
}

/**
 * Export rows to an XLSX workbook at `opts.out` (written under a temporary name, renamed when
 * complete; removed on failure or cancel).
 */
export async function exportXlsx(rows: Iterable<ExportRow> | AsyncIterable<ExportRow>, opts: XlsxOptions): Promise<XlsxResult> {
  const names = resolveColumns(opts.columns).map((d) => d.name);
  const perSheet = Math.min(XLSX_MAX_DATA_ROWS, Math.max(1, opts.rowsPerSheet ?? XLSX_MAX_DATA_ROWS));
  const sheetName = opts.sheetName ?? 'Loupe export';
  const { signal, onProgress } = opts;
  signal?.throwIfAborted();
  const finalPath = resolve(opts.out);
  const tmp = freshPartial(finalPath);
  const every = opts.total && opts.total > 0 ? Math.max(1, Math.floor(opts.total / 200)) : 1000;
  const created = new Date();
  const cells = new CellWriter(DATE_STYLE);
  const renderRow = xlsxRowRenderer(opts.columns, cells);
  const zip = await ZipWriter.create(tmp, { level: XLSX_DEFLATE_LEVEL, forceZip64: opts.forceZip64, date: created });
  const sheets = new SheetWriter(zip, cells, signal);
  try {
    let nextReport = every;
    const progress = (count: number): void => {
      if (onProgress && count >= nextReport) {
        nextReport = count + every;
        onProgress(count);
      }
    };
    const threads = opts.threads ?? ridThreads();
    const walk = !(Symbol.asyncIterator in rows) && threads > 0 ? ((rows as ExportRowSource).ridWalk?.() ?? null) : null;
    let done: { rows: number; truncated: number } | null = null;
    if (walk)
      try {
        sheets.pieces = true;
        done = await xlsxFromRids(walk, {
          sheets: {
            open: (part) => sheets.open(sheetName, part, names),
            piece: (p) => sheets.piece(p),
            write: async (xml) => (sheets.add(xml), await sheets.flush()),
          },
          renderRow,
          columns: opts.columns,
          perSheet,
          threads,
          parallelAfter: opts.parallelAfter ?? 5000,
          signal,
          progress,
        });
      } finally {
        sheets.pieces = false;
        walk.close();
      }
    const count = done ? done.rows : await rowsHere(rows, { sheets, renderRow, names, sheetName, perSheet, signal, progress });
    if (signal?.aborted) throw abortError(signal);
    for (const extra of opts.extraSheets ?? []) await sheets.extra(extra, perSheet);
    await sheets.close();
    for (const [path, xml] of workbookParts(sheets.names.names, XLSX_DATE_FORMAT, created)) await zip.add(path, xml);
    const bytes = await zip.finish();
    if (signal?.aborted) throw abortError(signal);
    await rename(tmp, finalPath);
    onProgress?.(count);
    const truncatedCells = cells.truncated + (done?.truncated ?? 0);
    return { rows: count, bytes, path: finalPath, sheets: sheets.names.names.length, truncatedCells };
  } catch (e) {
    await zip.destroy().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
}
