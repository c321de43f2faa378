/**
 * Cell rules for CSV exports (docs/export.md "Cell rules").
 *
 *  - null / undefined            → empty cell (empty = not provided)
 *  - booleans                    → `true` / `false`
 *  - numbers                     → exact decimal, never an exponent (1e21 → 1000000000000000000000)
 *  - strings                     → unchanged (ids stay text: they are never turned into numbers)
 *  - arrays / objects            → compact JSON (reversible with JSON.parse)
 *  - every cell is then neutralised against formula injection (OWASP "CSV Injection"):
 *    a cell starting with `=`, `+`, `-`, `@`, TAB (0x09) or CR (0x0D) gets a single quote `'` in front.
 *    So that the rule can be undone without ambiguity, a cell that itself starts with `'` gets
 *    one more `'` too. `unneutraliseCell` removes exactly one leading `'`.
 */

import { neutraliseCell } from '../../shared/csv-cell';

export { neutraliseCell, unneutraliseCell } from '../../shared/csv-cell';

/**
 * A number as exact decimal text, no exponent. JS prints 1e21 and 1e-7 with an exponent;
 * spreadsheets and many readers handle plain digits better, so those are expanded.
 */
export function formatNumber(n: number): string {
  // the common case first: integers below 1e21 and ordinary fractions print without an exponent
  if ((n >= 1e-6 && n < 1e21) || (n <= -1e-6 && n > -1e21)) return String(n);
  if (!Number.isFinite(n)) return String(n); // NaN / Infinity cannot come from JSON; kept visible if they do
  if (Object.is(n, -0)) return '0';
  const s = String(n);
  if (!s.includes('e')) return s;
  if (Number.isInteger(n)) return BigInt(n).toString();
  // Non-integer with exponent: only tiny magnitudes (|n| < 1e-6) get here.
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!m) return s;
  const [, sign, lead, frac = '', expStr] = m;
  const exp = Number(expStr);
  const digits = lead + frac;
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  // positive exponent with a fraction part (not reachable for finite non-integers, kept for safety)
  const intLen = exp + 1;
  return intLen >= digits.length
    ? sign + digits + '0'.repeat(intLen - digits.length)
    : `${sign}${digits.slice(0, intLen)}.${digits.slice(intLen)}`;
}

/** Render one value as raw cell text (before neutralisation). */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  switch (typeof v) {
    case 'string':
      return v;
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      return formatNumber(v);
    case 'bigint':
      return v.toString();
    case 'object':
      return JSON.stringify(v);
    default:
      return String(v);
  }
}

/** Render and neutralise. */
export function cell(v: unknown): string {
  return neutraliseCell(cellText(v));
}

/** `cell(v)` already quoted for CSV (see csvRecord): the export's per-cell hot path. */
export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  let s: string;
  if (typeof v === 'number') s = formatNumber(v);
  else if (typeof v === 'boolean') return v ? '"true"' : '"false"';
  else s = typeof v === 'string' ? v : cellText(v);
  if (s.length === 0) return '';
  const c = s.charCodeAt(0);
  // = + - @ TAB CR and ' itself (see neutraliseCell)
  if (c === 61 || c === 43 || c === 45 || c === 64 || c === 9 || c === 13 || c === 39) s = "'" + s;
  return s.includes('"') ? '"' + s.replaceAll('"', '""') + '"' : '"' + s + '"';
}

/**
 * One CSV record (RFC 4180, the OWASP "quote every cell" advice): every non-empty cell is quoted
 * with `"` doubled inside; an empty cell stays bare (empty = not provided); CRLF ends the record.
 * Byte-identical to csv-stringify with `{ quoted: true, quoted_empty: false, record_delimiter:
 * 'windows' }` (export.test.ts checks it against csv-stringify on hostile text), but about 4×
 * faster on 82-column rows, which is what brings a 1M-row export near the sqlite3 CLI's time
 * (docs/export.md "Performance").
 */
export function csvRecord(cells: readonly string[]): string {
  let line = '';
  for (let i = 0; i < cells.length; i++) {
    const s = cells[i];
    if (i > 0) line += ',';
    if (s.length === 0) continue;
    line += s.includes('"') ? '"' + s.replaceAll('"', '""') + '"' : '"' + s + '"';
  }
  return line + '\r\n';
}
