/**
 * What a door's export asks (`export.start`, `local.exportFile`: the contract's options) as
 * exportAny's options: one builder for both, so an option the contract gains reaches every door.
 */
import type { MethodParsedInput } from '../../shared/contract';
import type { LibraryQuery } from '../../shared/query';
import type { Archive } from '../archive';
import { companionsOf, type AnyExportOptions } from '../export';

/** The options of an export the contract names, whichever door asks. */
export type AskedExport = Pick<MethodParsedInput<'export.start'>, 'format' | 'bom' | 'columns' | 'network' | 'pseudonymise' | 'history'>;

export interface ExportRun {
  archive: Archive;
  /** where the project's pseudonymisation secret lives */
  dataDir: string;
  out: string;
  /** the rows' source: a library query, or the items picked one by one */
  of: { query: LibraryQuery } | { items: Array<{ platform: string; kind: string; id: string }> };
  signal?: AbortSignal;
  total: number;
  onProgress: (rows: number) => void;
}

export function exportAnyOptions(i: AskedExport, run: ExportRun): AnyExportOptions {
  const { archive, of } = run;
  return {
    format: i.format,
    out: run.out,
    bom: i.bom,
    columns: i.columns,
    network: i.network,
    pseudonymiseIn: i.pseudonymise ? run.dataDir : null,
    archive,
    query: 'query' in of ? of.query : undefined,
    // the metric history and annotations beside the rows (docs/export.md); never in a pseudonymised export: notes name people
    companions: i.history && !i.pseudonymise ? companionsOf(archive.datasets, of) : undefined,
    signal: run.signal,
    total: run.total,
    onProgress: run.onProgress,
  };
}
