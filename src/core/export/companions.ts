/**
 * What every table export writes beside its rows (issue 29, docs/export.md "History and
 * annotations"): the items' long-format metric history (item key, read at, the five counts: one row
 * per reading, oldest first) and their annotations with who made them and when (tags, notes, label
 * overrides). A CSV / JSON / JSONL / Parquet export `name.ext` gets `name.history.ext` and, when any
 * item is annotated, `name.annotations.ext`; an XLSX export gets the sheets "Metric history" (Excel reserves "History") and
 * "Annotations". Kept apart from the item rows so the item files keep their stable columns.
 */
import { writeTable, type TableColumn, type TableFormat } from './tables';

export const HISTORY_COLUMNS: readonly TableColumn[] = [
  { name: 'platform', type: 'text' },
  { name: 'kind', type: 'text' },
  { name: 'id', type: 'text' },
  { name: 'read_at', type: 'time' },
  { name: 'views', type: 'int' },
  { name: 'likes', type: 'int' },
  { name: 'comments', type: 'int' },
  { name: 'shares', type: 'int' },
  { name: 'saves', type: 'int' },
];

/** type: tag | note | override; name: the tag, `note`, or `family.field`; value: the note's text or the override's value (null for a tag) */
export const ANNOTATION_COLUMNS: readonly TableColumn[] = [
  { name: 'platform', type: 'text' },
  { name: 'kind', type: 'text' },
  { name: 'id', type: 'text' },
  { name: 'type', type: 'text' },
  { name: 'name', type: 'text' },
  { name: 'value', type: 'json' },
  { name: 'author', type: 'text' },
  { name: 'at', type: 'time' },
];

/** The rows of both tables for the items an export holds (value arrays in the columns' order). */
export interface CompanionSource {
  history(): Iterable<unknown[]>;
  annotations(): Iterable<unknown[]>;
}

export interface CompanionFile {
  /** history | annotations */
  table: string;
  path: string;
  rows: number;
  bytes: number;
  /** SHA-256 (hex), taken as the file was written */
  sha256: string;
}

/** `dir/name.csv` → `dir/name.history.csv` */
export function companionPath(out: string, table: string): string {
  const m = /^(.*?)(\.[A-Za-z0-9]{1,8})$/.exec(out);
  return m ? `${m[1]}.${table}${m[2]}` : `${out}.${table}`;
}

export async function writeCompanions(
  format: TableFormat,
  out: string,
  src: CompanionSource,
  opts: {
    bom?: boolean;
    signal?: AbortSignal;
    history?: boolean;
    annotations?: boolean;
    /** where a file whose final name is given is written instead (exportAny: every file complete before any is renamed) */
    stage?: (final: string) => string;
  } = {},
): Promise<CompanionFile[]> {
  const files: CompanionFile[] = [];
  const at = (table: string) => (opts.stage ? opts.stage(companionPath(out, table)) : companionPath(out, table));
  // history or annotations false: that table is written elsewhere (a bundle's history by an export worker, bundle-history.ts)
  if (opts.history !== false) {
    const h = await writeTable({ columns: HISTORY_COLUMNS, rows: src.history() }, format, at('history'), opts);
    files.push({ table: 'history', ...h });
  }
  if (opts.annotations === false) return files;
  const it = src.annotations()[Symbol.iterator]();
  const first = it.next();
  if (!first.done) {
    const rows = (function* () {
      yield first.value;
      for (let n = it.next(); !n.done; n = it.next()) yield n.value;
    })();
    files.push({
      table: 'annotations',
      ...(await writeTable({ columns: ANNOTATION_COLUMNS, rows }, format, at('annotations'), opts)),
    });
  } else it.return?.();
  return files;
}

/** The same tables as XLSX sheets (xlsx.ts extraSheets). */
export function companionSheets(
  src: CompanionSource,
): Array<{ name: string; columns: readonly TableColumn[]; rows: () => Iterable<unknown[]> }> {
  return [
    { name: 'Metric history', columns: HISTORY_COLUMNS, rows: () => src.history() },
    { name: 'Annotations', columns: ANNOTATION_COLUMNS, rows: () => src.annotations() },
  ];
}

type HistoryLike = {
  platform: string;
  kind: string;
  id: string;
  readAt: number;
  views: number | null;
  likes: number | null;
  comments: number | null;
  shares: number | null;
  saves: number | null;
};
type AnnotationLike = {
  platform: string;
  kind: string;
  id: string;
  type: string;
  name: string;
  value: unknown;
  author: string | null;
  at: number;
};
type ItemKey = { platform: string; kind: string; id: string };

/** What the archive's dataset tables give (archive.datasets), structurally: the export layer stays above the archive. */
export interface CompanionRows<Q> {
  historyRows(q: Q): Iterable<HistoryLike>;
  annotationRows(q: Q): Iterable<AnnotationLike>;
  historyRowsFor(refs: ItemKey[]): Iterable<HistoryLike>;
  annotationRowsFor(refs: ItemKey[]): Iterable<AnnotationLike>;
}

function* historyArrays(rows: Iterable<HistoryLike>): Generator<unknown[]> {
  for (const r of rows) yield [r.platform, r.kind, r.id, r.readAt, r.views, r.likes, r.comments, r.shares, r.saves];
}
function* annotationArrays(rows: Iterable<AnnotationLike>): Generator<unknown[]> {
  for (const r of rows) yield [r.platform, r.kind, r.id, r.type, r.name, r.value, r.author, r.at];
}

/** The companion tables of a query's items, or of explicit items. */
export function companionsOf<Q>(d: CompanionRows<Q>, of: { query: Q } | { items: ItemKey[] }): CompanionSource {
  return 'items' in of
    ? { history: () => historyArrays(d.historyRowsFor(of.items)), annotations: () => annotationArrays(d.annotationRowsFor(of.items)) }
    : { history: () => historyArrays(d.historyRows(of.query)), annotations: () => annotationArrays(d.annotationRows(of.query)) };
}
