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

/** First characters that spreadsheet programs may treat as the start of a formula (OWASP). */
const FORMULA_STARTS = new Set(['=', '+', '-', '@', '\t', '\r']);

/** Prefix a single quote when the cell could be read as a formula (or already starts with a quote). */
export function neutraliseCell(s: string): string {
  if (s.length === 0) return s;
  const c = s[0];
  if (FORMULA_STARTS.has(c) || c === "'") return "'" + s;
  return s;
}

/** The inverse of `neutraliseCell`: drop one leading quote, if any. */
export function unneutraliseCell(s: string): string {
  return s.startsWith("'") ? s.slice(1) : s;
}

/**
 * A number as exact decimal text, no exponent. JS prints 1e21 and 1e-7 with an exponent;
 * spreadsheets and many readers handle plain digits better, so those are expanded.
 */
export function formatNumber(n: number): string {
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
