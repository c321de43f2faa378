/**
 * The cells and rows of an XLSX sheet (xlsx.ts; the rules are in its header and docs/export.md
 * "XLSX"), apart from the workbook around them: the same code renders rows on the exporting thread
 * and in the XLSX workers that read rows by rid (xlsx-worker.ts, xlsx-rids.ts).
 */
import { xmlSafe } from '../text';
import type { ExportRow } from '../ports';
import { formatNumber } from './cells';
import { resolveColumns, valuesRenderer } from './columns';

/** the sheets' deflate level (1: fastest; XML compresses ~10× even so), here and in the workers */
export const XLSX_DEFLATE_LEVEL = 1;
export const XLSX_MAX_CELL_CHARS = 32_767;
export const XLSX_DATE_FORMAT = 'yyyy-mm-dd hh:mm:ss';
/** Columns whose values are times (ISO text from the API, or the archive's ms) written as dates. */
export const XLSX_DATE_COLUMNS: ReadonlySet<string> = new Set([
  'published_at',
  'author.joined_at',
  'first_seen_at',
  'last_seen_at',
  'checked_at',
  'missing_since',
]);

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

export class CellWriter {
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

/**
 * A renderer of these columns' rows (all, or a subset in the order given): a row's XML as row `r`
 * of its sheet (the header is row 1).
 */
export function xlsxRowRenderer(columns: readonly string[] | undefined, cells: CellWriter): (row: ExportRow, r: number) => string {
  const defs = resolveColumns(columns);
  const values = valuesRenderer(defs);
  const isDate = defs.map((d) => XLSX_DATE_COLUMNS.has(d.name));
  const letters = defs.map((_, i) => columnLetters(i));
  return (row, r) => {
    const vs = values(row);
    let x = `<row r="${r}">`;
    for (let i = 0; i < vs.length; i++) x += cells.value(letters[i] + r, vs[i], isDate[i]);
    return x + '</row>';
  };
}
