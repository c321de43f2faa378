/**
 * CSV formula neutralisation (docs/export.md "Cell rules"; OWASP "CSV Injection"): a cell starting
 * with `=`, `+`, `-`, `@`, TAB or CR gets a single quote in front; so that the rule can be undone
 * without ambiguity, a cell that itself starts with `'` gets one more. Shared by the exports
 * (src/core/export) and the analysis tables (./analysis-csv.ts, written by the CLI and the app).
 */
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
