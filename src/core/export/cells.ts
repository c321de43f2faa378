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

// the code lives in src/shared/csv-cell.ts, shared with the analysis tables (one set of rules)
export { neutraliseCell, unneutraliseCell, formatNumber, cellText, cell, csvCell, csvRecord } from '../../shared/csv-cell';
