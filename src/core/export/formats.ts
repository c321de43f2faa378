/**
 * Every export format behind one call, for the doors (the app's `export.start`, `loupe export`):
 * CSV / JSON / JSONL (`exportRows`), XLSX, Parquet, and the network files GEXF / GraphML; any of
 * them pseudonymised (docs/export.md).
 */
import { isNetworkKind, type ParentAuthorsSource } from '../analysis';
import { EXPORT_FORMAT_NAMES, EXPORT_FORMAT_TRAITS, type ExportFormatName } from '../../shared/contract-library';
import { NETWORK_KINDS } from '../../shared/contract-network';
import type { LibraryQuery } from '../../shared/query';
import type { FactsSource } from '../analysis';
import type { ExportRow } from '../ports';
import { exportRows } from './rows';
import { Pseudonymiser } from '../text';
import { renameSync, rmSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { freshPartial } from '../partial-files';
import { companionPath, companionSheets, writeCompanions, type CompanionFile, type CompanionSource } from './companions';
import type { TableFormat } from './tables';
import { grouped } from '../../shared/grouped';

// the XLSX writer, the Parquet encoder and the network builder (graphology) are read
// when an export of their format runs: the command line and the app start without them

/** The contract's list (one list for every door). */
export const EXPORT_FORMATS = EXPORT_FORMAT_NAMES;
export type AnyExportFormat = ExportFormatName;

export interface AnyExportOptions {
  format: AnyExportFormat;
  out: string;
  /** CSV: byte-order mark (default true) */
  bom?: boolean;
  /** CSV / XLSX / Parquet: a subset of the CSV columns */
  columns?: string[];
  /** GEXF / GraphML: which network */
  network?: string;
  /** replace identities by keyed hashes; the project's secret is read from (or created in) this data folder */
  pseudonymiseIn?: string | null;
  /** the archive: replies' parents outside the rows (the `mentions` network) */
  archive?: ParentAuthorsSource & FactsSource;
  /**
   * GEXF / GraphML: the library query the rows come from. With it (and archive) a network reads
   * only the columns it needs from the archive (network-source.ts), ~5× faster than whole rows.
   */
  query?: LibraryQuery;
  signal?: AbortSignal;
  onProgress?: (rows: number) => void;
  total?: number;
  /** the items' metric history and annotations, written beside a table export (companions.ts) */
  companions?: CompanionSource;
}

export interface AnyExportResult {
  rows: number;
  bytes: number;
  path: string;
  /** one sentence for the person who asked: what the file holds */
  summary: string;
  /** the history and annotations files written beside it (CSV, JSON, JSONL, Parquet; XLSX holds them as sheets) */
  files?: CompanionFile[];
}

const fmt = grouped;

export function isExportFormat(s: string): s is AnyExportFormat {
  return (EXPORT_FORMATS as readonly string[]).includes(s);
}

/** Check the options before any row is read (a clear sentence for a wrong combination). */
export function checkExportOptions(o: Pick<AnyExportOptions, 'format' | 'network' | 'columns'>): void {
  if (!isExportFormat(o.format)) throw new Error(`Unknown export format "${String(o.format)}"; use one of ${EXPORT_FORMATS.join(', ')}.`);
  const graph = EXPORT_FORMAT_TRAITS[o.format].network;
  if (graph && !o.network)
    throw new Error(`A ${o.format.toUpperCase()} export is a network: choose one with --network (${NETWORK_KINDS.join(', ')}).`);
  if (graph && !isNetworkKind(o.network ?? '')) throw new Error(`Unknown network "${o.network}"; use one of ${NETWORK_KINDS.join(', ')}.`);
  if (!graph && o.network)
    throw new Error(`A network is exported as GEXF or GraphML, not ${o.format.toUpperCase()}: use --format gexf or --format graphml.`);
  if (graph && o.columns?.length) throw new Error('Columns apply to table exports (CSV, XLSX, Parquet), not to network files.');
}

/** The sentence `checkExportOptions` would throw, or null when the options go together. */
export function exportOptionsError(o: Pick<AnyExportOptions, 'format' | 'network' | 'columns'>): string | null {
  try {
    checkExportOptions(o);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

function* mapRows(rows: Iterable<ExportRow>, f: (r: ExportRow) => ExportRow): Generator<ExportRow> {
  for (const r of rows) yield f(r);
}

export async function exportAny(rows: Iterable<ExportRow>, o: AnyExportOptions): Promise<AnyExportResult> {
  if (!o.companions || !writesCompanionFiles(o.format)) return exportMain(rows, o);
  // the rows and their history / annotations files are each written complete under a temporary
  // name and renamed only when all are: a failure on the way (a disk that fills while the history
  // is written) leaves the files that were there before as they were — before, the new rows had
  // already replaced the old file, beside the old history, under an error saying nothing was left
  const final = resolve(o.out);
  const staged: string[] = [];
  const stage = (p: string): string => {
    const s = freshPartial(p, 'staged');
    staged.push(s);
    return s;
  };
  try {
    const r = await exportMain(rows, { ...o, out: stage(final) }, final);
    const written = await writeCompanions(o.format, final, o.companions, { bom: o.bom, signal: o.signal, stage });
    renameSync(r.path, final);
    const files = written.map((f) => {
      const to = companionPath(final, f.table);
      renameSync(f.path, to);
      return { ...f, path: to };
    });
    const said = files.map((f) => `${fmt(f.rows)} ${f.table} rows to ${basename(f.path)}`).join(', ');
    return { ...r, path: final, files, summary: `${r.summary} Also ${said}.` };
  } catch (e) {
    for (const s of staged) rmSync(s, { force: true });
    throw e;
  }
}

/** What one export of a format gets besides the rows: the options, the pseudonymiser, shared words. */
interface FormatRun {
  o: AnyExportOptions;
  p: Pseudonymiser | null;
  /** ' (pseudonymised)' or '' */
  what: string;
  /** the final path the summary names (the file may be written under a temporary name first: exportAny) */
  shown: string;
  common: { out: string; signal?: AbortSignal; onProgress?: (rows: number) => void; total?: number };
}

/**
 * One entry per export format (issue 25, as 4CAT's processors: name, options, run; what the format
 * is — a network file, a table with columns — is EXPORT_FORMAT_TRAITS in the contract): where the items' history and annotations go (`files` beside it, `sheets` inside it,
 * or `none`), and the run. A format is its name in EXPORT_FORMAT_NAMES (the contract) and its entry
 * here; the type fails until both exist.
 */
export interface ExportFormatDef {
  companions: 'files' | 'sheets' | 'none';
  run(src: Iterable<ExportRow>, r: FormatRun): Promise<AnyExportResult>;
}

const rowsFormat = (format: 'csv' | 'json' | 'jsonl'): ExportFormatDef => ({
  companions: 'files',
  async run(src, { o, what, shown, common }) {
    const r = await exportRows(src, { ...common, format, bom: o.bom, columns: o.columns });
    return { ...r, summary: `Exported ${fmt(r.rows)} rows${what} to ${shown}.` };
  },
});

const networkFormat = (format: 'gexf' | 'graphml'): ExportFormatDef => ({
  companions: 'none',
  async run(src, { o, p, what, common }) {
    // (network-methods loads these already: no lazy chunk of their own to keep)
    const { archiveParentLookup, exportNetwork, pseudonymousLookup, archiveFacts, factsOptionsFor } = await import('../analysis');
    const network = o.network ?? '';
    if (!isNetworkKind(network)) throw new Error(`Unknown network "${network}"; use one of ${NETWORK_KINDS.join(', ')}.`);
    const base = o.archive ? archiveParentLookup(o.archive) : undefined;
    const lookup = base && p ? pseudonymousLookup(base, p) : base;
    const facts = o.query && o.archive ? archiveFacts(o.archive, o.query, p, factsOptionsFor(network)) : undefined;
    const r = await exportNetwork(facts ?? src, { ...common, network, format, lookupParents: lookup, facts: facts !== undefined });
    const s = r.stats;
    const un = s.unresolvedReplies > 0 ? ` ${fmt(s.unresolvedReplies)} repl(ies) point at items not in the archive and have no edge.` : '';
    return {
      rows: r.rows,
      bytes: r.bytes,
      path: r.path,
      summary: `Exported a ${network} network${what} of ${fmt(s.nodes)} nodes and ${fmt(s.edges)} edges (from ${fmt(s.itemsInNetwork)} of ${fmt(s.items)} items) to ${r.path}.${un}`,
    };
  },
});

export const FORMATS: Readonly<Record<AnyExportFormat, ExportFormatDef>> = {
  csv: rowsFormat('csv'),
  json: rowsFormat('json'),
  jsonl: rowsFormat('jsonl'),
  xlsx: {
    companions: 'sheets',
    async run(src, { o, what, common }) {
      const { exportXlsx } = await import('./xlsx');
      const r = await exportXlsx(src, {
        ...common,
        columns: o.columns,
        extraSheets: o.companions ? companionSheets(o.companions) : undefined,
      });
      const cut =
        r.truncatedCells > 0
          ? ` ${fmt(r.truncatedCells)} cell(s) longer than Excel's 32,767 characters were cut; the JSON export keeps them whole.`
          : '';
      return { ...r, summary: `Exported ${fmt(r.rows)} rows${what} in ${r.sheets} sheet(s) to ${r.path}.${cut}` };
    },
  },
  parquet: {
    companions: 'files',
    async run(src, { o, what, shown, common }) {
      const { exportParquet } = await import('./parquet');
      const r = await exportParquet(src, { ...common, columns: o.columns });
      const odd =
        r.untypedValues > 0
          ? ` ${fmt(r.untypedValues)} value(s) did not fit their column's type and are kept in the "untyped" column.`
          : '';
      return { ...r, summary: `Exported ${fmt(r.rows)} rows${what} in ${r.rowGroups} row group(s) to ${shown}.${odd}` };
    },
  },
  gexf: networkFormat('gexf'),
  graphml: networkFormat('graphml'),
};

/** The formats whose history and annotations are files beside them (the table formats companions.ts writes). */
function writesCompanionFiles(f: AnyExportFormat): f is TableFormat {
  return FORMATS[f].companions === 'files';
}

async function exportMain(rows: Iterable<ExportRow>, o: AnyExportOptions, shown = resolve(o.out)): Promise<AnyExportResult> {
  checkExportOptions(o);
  const p = o.pseudonymiseIn ? Pseudonymiser.forDataDir(o.pseudonymiseIn) : null;
  const src = p ? mapRows(rows, (r) => p.row(r)) : rows;
  return FORMATS[o.format].run(src, {
    o,
    p,
    what: p ? ' (pseudonymised)' : '',
    shown,
    common: { out: o.out, signal: o.signal, onProgress: o.onProgress, total: o.total },
  });
}
