/**
 * The stable, documented CSV column list (docs/export.md "Columns").
 *
 * The list is fixed: it never depends on which fields the exported rows happen to have, so two
 * exports always have the same header in the same order. Every label family field the spec names
 * (post and comment families) has its own column. Whatever a record carries that no column shows
 * (unknown label fields, evidence, author.ext, fields of non-post records...) goes, as JSON, into
 * the column `extra`, so a CSV export loses nothing. After `extra` come the re-check marks
 * (`checked_at`, `missing_since`; added 2026-11-28 at the end so every older column keeps its place).
 */
import type { ExportRow } from '../ports';
import { cell, csvCell } from './cells';
import { cellBytes, commaBytes, eolBytes } from './csv-bytes';
import { CSV_COLUMNS as COLUMN_NAMES, LABEL_COLUMNS, LABEL_FIELDS, RECORD_COLUMNS, RELEVANCE_COLUMNS } from '../../shared/export-columns';

export { COMMENT_LABEL_FIELDS, LABEL_FIELDS, POST_LABEL_FIELDS } from '../../shared/export-columns';

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Second-level objects of a record that columns read from (`S_author`... in column expressions). */
const SUBS = ['author', 'content', 'engagement', 'flags', 'ext', 'computed'] as const;

/**
 * A column is a JS expression over the locals every row renderer sets up first (see PRELUDE):
 * `row` (the ExportRow), `rec` (its record, {} when not an object), `S_<sub>` for the SUBS (the
 * object or undefined), `L` (computed.labels), `L_<family>` (one label family), `R`
 * (computed.relevance), and the helpers `iso`, `extraOf`, `overridesCell`. From these one
 * definition, the export compiles one function per column list that renders a whole CSV row
 * (no call per cell: -25 % render time on 82 columns against a getter per cell), and one getter per column
 * for the cell-by-cell view (flattenForCsv). Only the fixed names below ever reach the compiler.
 */
interface ColumnDef {
  name: string;
  expr: string;
}

const key = (k: string): string => JSON.stringify(k);

const EMPTY: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

/** the last times written and their text (iso: also csv-spans.ts): an archive's rows share their first / last seen times in runs (one ingest) */
const isoMs = [NaN, NaN];
const isoText = ['', ''];
let isoNext = 0;
export const iso = (ms: number): string | null => {
  if (ms === isoMs[0]) return isoText[0];
  if (ms === isoMs[1]) return isoText[1];
  if (!Number.isFinite(ms)) return null;
  const t = new Date(ms).toISOString();
  isoMs[isoNext] = ms;
  isoText[isoNext] = t;
  isoNext ^= 1;
  return t;
};

/** Tree of the record paths above: `true` = leaf shown whole, object = descend. */
type PathTree = { [k: string]: PathTree | true };
function buildTree(paths: string[][]): PathTree {
  const root: PathTree = {};
  for (const p of paths) {
    let node = root;
    p.forEach((k, i) => {
      if (i === p.length - 1) node[k] = true;
      else {
        const next = node[k];
        if (next === true) return; // a leaf already covers this subtree
        if (!next) node[k] = {};
        node = node[k] as PathTree;
      }
    });
  }
  return root;
}
const RECORD_TREE: PathTree = buildTree([
  ['id'],
  ...RECORD_COLUMNS.map(([, p]) => p),
  ...LABEL_COLUMNS.map(([, p]) => p),
  ...RELEVANCE_COLUMNS.map(([, p]) => p),
]);

type Rest = (obj: Record<string, unknown>) => Record<string, unknown> | undefined;

/**
 * `rest` for one tree, compiled: a `switch` on each key instead of a lookup in the tree (the
 * `extra` column of every row walks the whole record). A tree's own keys only: a record key
 * named like an Object.prototype member (`constructor`, `__proto__`) is kept whole like any other.
 */
function compileRest(tree: PathTree): Rest {
  const fns: string[] = [];
  const fn = (t: PathTree): string => {
    const name = `r${fns.length}`;
    fns.push('');
    const cases: string[] = [];
    const leaves = Object.keys(t).filter((k) => t[k] === true);
    if (leaves.length > 0) cases.push(`${leaves.map((k) => `case ${key(k)}:`).join(' ')} continue;`);
    for (const k of Object.keys(t)) {
      const sub = t[k];
      if (sub !== true) cases.push(`case ${key(k)}: v = o[k]; keep = isObj(v) ? ${fn(sub)}(v) : v; break;`);
    }
    fns[Number(name.slice(1))] = `function ${name}(o) {
  let out, v, keep;
  const ks = Object.keys(o);
  for (let i = 0; i < ks.length; i++) {
    const k = ks[i];
    switch (k) {
      ${cases.join('\n      ')}
      default: keep = o[k];
    }
    if (keep === undefined) continue;
    if (out === undefined) out = {};
    if (k === '__proto__') Object.defineProperty(out, k, { value: keep, enumerable: true, writable: true, configurable: true });
    else out[k] = keep;
  }
  return out;
}`;
    return name;
  };
  fn(tree);
  // fixed keys from the column list only, never user input
  return new Function('isObj', `'use strict';\n${fns.join('\n')}\nreturn r0;`)(isObj) as Rest;
}

/**
 * What of `obj` no column shows. Keys outside the tree are kept whole. Keys that the tree
 * descends into are kept only for what is not covered beneath them; a non-object value where the
 * tree expects an object (e.g. `computed.labels: null`, "could not be judged") is kept as is.
 */
const restOfRecord = compileRest(RECORD_TREE);

/** Record fields not shown by any other column (JSON in the `extra` column); undefined when none. */
export function extraOf(row: ExportRow): Record<string, unknown> | undefined {
  const r = row.record;
  return isObj(r) ? restOfRecord(r) : undefined;
}

/** `rec.a` or `S_a.b` */
function pathExpr(path: readonly string[]): string {
  if (path.length === 1) return `rec[${key(path[0])}]`;
  if (path.length === 2 && (SUBS as readonly string[]).includes(path[0])) return `S_${path[0]}?.[${key(path[1])}]`;
  throw new Error(`export: unsupported column path ${path.join('.')}`);
}

const DEFS: ColumnDef[] = [
  { name: 'platform', expr: 'row.platform' },
  { name: 'kind', expr: 'row.kind' },
  { name: 'id', expr: 'row.id' },
  ...RECORD_COLUMNS.map(([name, path]) => ({ name, expr: pathExpr(path) })),
  // co-authors of collab posts live in ext.coauthors; repeated here as their own column for convenience
  { name: 'coauthors', expr: pathExpr(['ext', 'coauthors']) },
  // the effective label: the analyst's override first, as the library filters on it (issue 14 #4)
  ...LABEL_COLUMNS.map(([name, path]) => ({
    name,
    expr: `(O_${path[2]} !== undefined && hasOwn(O_${path[2]}, ${key(path[3])}) ? O_${path[2]}[${key(path[3])}] : L_${path[2]}?.[${key(path[3])}])`,
  })),
  ...RELEVANCE_COLUMNS.map(([name, path]) => ({ name, expr: `R?.[${key(path[2])}]` })),
  { name: 'tags', expr: 'row.tags' },
  { name: 'note', expr: 'row.note' },
  { name: 'overrides', expr: 'overridesCell(row.overrides)' },
  { name: 'first_seen_at', expr: 'iso(row.firstSeenAt)' },
  { name: 'last_seen_at', expr: 'iso(row.lastSeenAt)' },
  { name: 'extra', expr: 'extraOf(row)' },
  // a re-check's marks (docs/datasets.md "Re-check and attrition"): empty when never re-checked / available
  { name: 'checked_at', expr: 'iso(row.checkedAt ?? NaN)' },
  { name: 'missing_since', expr: 'iso(row.missingSince ?? NaN)' },
];

const overridesCell = (o: ExportRow['overrides'] | undefined): ExportRow['overrides'] | null => (o && Object.keys(o).length > 0 ? o : null);

const sub = (v: unknown): Record<string, unknown> | undefined => (isObj(v) ? v : undefined);
/** the row's overrides, undefined when it has none (most rows: one test per row, none per cell) */
const ovr = (o: unknown): Record<string, unknown> | undefined => (isObj(o) && Object.keys(o).length > 0 ? o : undefined);
const hasOwn = (o: Record<string, unknown>, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** The locals column expressions read (see ColumnDef). */
const PRELUDE = [
  'const rec = isObj(row.record) ? row.record : EMPTY;',
  ...SUBS.map((k) => `const S_${k} = sub(rec[${key(k)}]);`),
  'const L = S_computed === undefined ? undefined : sub(S_computed.labels);',
  'const R = S_computed === undefined ? undefined : sub(S_computed.relevance);',
  ...Object.keys(LABEL_FIELDS).map((f) => `const L_${f} = L === undefined ? undefined : sub(L[${key(f)}]);`),
  'const O = ovr(row.overrides);',
  ...Object.keys(LABEL_FIELDS).map((f) => `const O_${f} = O === undefined ? undefined : sub(O[${key(f)}]);`),
].join('\n');

const HELPERS = { isObj, sub, ovr, hasOwn, EMPTY, iso, extraOf, overridesCell, csvCell, cell, cellBytes, commaBytes, eolBytes };
type RowFn<T> = (row: ExportRow) => T;

/**
 * Compile `body` (after PRELUDE) into a function of `row`; the code is built from DEFS only.
 * `outer`: statements run once, whose bindings the function keeps (a reused array).
 */
function compile<T, F = RowFn<T>>(body: string, params = '', outer = ''): F {
  const names = Object.keys(HELPERS);
  // fixed expressions from DEFS only, never user input
  const make = new Function(...names, `'use strict';\n${outer}\nreturn function (row${params}) {\n${PRELUDE}\n${body}\n};`) as (
    ...h: unknown[]
  ) => F;
  return make(...names.map((n) => HELPERS[n as keyof typeof HELPERS]));
}

const getterCache = new Map<string, RowFn<unknown>>();
function getter(d: ColumnDef): RowFn<unknown> {
  let g = getterCache.get(d.name);
  if (!g) getterCache.set(d.name, (g = compile<unknown>(`return ${d.expr};`)));
  return g;
}

const rendererCache = new Map<string, RowFn<string>>();
/**
 * One function that renders a whole CSV record (quoted cells, CRLF) for these columns, compiled
 * once per column list. Hot loops take it once (exportRows, the worker), not per row.
 */
export function csvRenderer(defs: readonly ColumnDef[]): RowFn<string> {
  const k = defs.map((d) => d.name).join('\n');
  let f = rendererCache.get(k);
  if (!f) {
    // the cells into one reused array, joined once: one flat string per record (`a + ',' + b`
    // for 82 cells made a tree of ~330 string pieces per record, walked again when encoded)
    const cells = defs.map((d, i) => `C[${i}] = csvCell(${d.expr});`);
    rendererCache.set(
      k,
      (f = compile<string>(`${cells.join('\n')}\nreturn C.join(',') + '\\r\\n';`, '', `const C = new Array(${defs.length}).fill('');`)),
    );
  }
  return f;
}

const bytesCache = new Map<string, RowFn<void>>();
/**
 * csvRenderer's record written as UTF-8 at the end of this thread's batch buffer (csv-bytes.ts:
 * `beginBytes`, then this per row, then `takeBytes`), with no string per cell, record or batch.
 * The export workers' renderer. Compiled once per column list.
 */
export function csvBytesRenderer(defs: readonly ColumnDef[]): RowFn<void> {
  const k = defs.map((d) => d.name).join('\n');
  let f = bytesCache.get(k);
  if (!f) bytesCache.set(k, (f = compile<void>(`${defs.map((d) => `cellBytes(${d.expr});`).join('\ncommaBytes();\n')}\neolBytes();`)));
  return f;
}

const valuesCache = new Map<string, RowFn<unknown[]>>();
/**
 * One function that returns a row's raw column values (before any cell formatting or
 * neutralisation: numbers stay numbers, objects stay objects) for these columns — the typed
 * exports (XLSX, Parquet) read the same columns as the CSV through it. Compiled once per list.
 */
export function valuesRenderer(defs: readonly ColumnDef[]): RowFn<unknown[]> {
  const k = defs.map((d) => d.name).join('\n');
  let f = valuesCache.get(k);
  if (!f) valuesCache.set(k, (f = compile<unknown[]>(`return [${defs.map((d) => d.expr).join(', ')}];`)));
  return f;
}

/** A column's consumer: takes the row's raw value, false when it does not fit (then `miss`). */
export interface ValueSink {
  add(v: unknown): boolean;
}
export type SinkFn = (row: ExportRow, sinks: readonly ValueSink[], miss: (i: number, v: unknown) => void) => void;

const sinkCache = new Map<string, SinkFn>();
/**
 * valuesRenderer's values handed straight to one consumer per column (`sinks[i].add(value)`, and
 * `miss(i, value)` when it refuses one), with no array per row and one call site per column (the
 * Parquet encoder's column builders: each site sees one builder class). Compiled once per list.
 */
export function valuesSink(defs: readonly ColumnDef[]): SinkFn {
  const k = defs.map((d) => d.name).join('\n');
  let f = sinkCache.get(k);
  if (!f)
    sinkCache.set(
      k,
      (f = compile<void, SinkFn>(
        `let v;\n${defs.map((d, i) => `if (!sinks[${i}].add(v = ${d.expr})) miss(${i}, v);`).join('\n')}`,
        ', sinks, miss',
      )),
    );
  return f;
}

export type SinkCsvFn = (row: ExportRow, sinks: readonly ValueSink[], miss: (i: number, v: unknown) => void) => string;
const sinkCsvCache = new Map<string, SinkCsvFn>();
/**
 * valuesSink and csvRenderer in one (a dataset bundle's Parquet and CSV from one evaluation of
 * each column, bundle-render.ts): each value goes to its column's consumer and becomes its CSV cell;
 * returns the CSV record (as csvRenderer's, CRLF included). Compiled once per list.
 */
export function valuesSinkCsv(defs: readonly ColumnDef[]): SinkCsvFn {
  const k = defs.map((d) => d.name).join('\n');
  let f = sinkCsvCache.get(k);
  if (!f)
    sinkCsvCache.set(
      k,
      (f = compile<string, SinkCsvFn>(
        `let v;\n${defs.map((d, i) => `if (!sinks[${i}].add(v = ${d.expr})) miss(${i}, v);\nC[${i}] = csvCell(v);`).join('\n')}\nreturn C.join(',') + '\\r\\n';`,
        ', sinks, miss',
        `const C = new Array(${defs.length}).fill('');`,
      )),
    );
  return f;
}

/** The stable CSV column list, in order (src/shared/export-columns.ts: the renderers give exactly its names). */
export const CSV_COLUMNS: readonly string[] = COLUMN_NAMES;
if (DEFS.map((d) => d.name).join('\n') !== COLUMN_NAMES.join('\n'))
  throw new Error('export: the column renderers and the column names (src/shared/export-columns.ts) differ');

const DEF_BY_NAME = new Map(DEFS.map((d) => [d.name, d]));

/** Resolve a column subset (kept in the order given); throws on an unknown name. */
export function resolveColumns(columns?: readonly string[]): ColumnDef[] {
  if (!columns) return DEFS;
  if (columns.length === 0) throw new Error('export: columns must name at least one column');
  const seen = new Set<string>();
  return columns.map((c) => {
    const d = DEF_BY_NAME.get(c);
    if (!d) throw new Error(`export: unknown CSV column '${c}' (see CSV_COLUMNS)`);
    if (seen.has(c)) throw new Error(`export: CSV column '${c}' named twice`);
    seen.add(c);
    return d;
  });
}

/** One row as final CSV cell texts (already neutralised), for the given columns: one getter per cell. */
export function rowCells(row: ExportRow, defs: readonly ColumnDef[]): string[] {
  return defs.map((d) => cell(getter(d)(row)));
}

/** One row as a CSV record (quoted cells, CRLF), for the given columns: `csvRecord(rowCells(...))`, compiled. */
export function rowCsv(row: ExportRow, defs: readonly ColumnDef[]): string {
  return csvRenderer(defs)(row);
}

/**
 * One row flattened to every CSV column: column name → cell text, exactly as written to the file
 * (formatted and neutralised; the CSV quoting is not applied here).
 */
export function flattenForCsv(row: ExportRow): Record<string, string> {
  const cells = rowCells(row, DEFS);
  const out: Record<string, string> = {};
  DEFS.forEach((d, i) => (out[d.name] = cells[i]));
  return out;
}
