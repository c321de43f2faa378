/**
 * `loupe export` — the library query to a file: CSV, JSON, JSONL, XLSX, Parquet, or a network as
 * GEXF / GraphML; any of them pseudonymised (docs/cli.md, docs/export.md, docs/analysis.md).
 */
import { Option, type Command } from 'commander';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnyExportFormat } from '../core/export/formats';
import { EXPORT_FORMAT_NAMES as EXPORT_FORMATS } from '../shared/contract-library';
import { NETWORK_KINDS } from '../shared/contract-network';
import type { CliContext } from './context';
import { UsageError } from './context';
import { ExitError } from './exit';
import type { Io } from './io';
import { checkOut } from './line-sink';
import { copyOut } from './output';
import { progress } from './terminal';
import { buildLibraryQuery, withQueryFlags, type QueryFlags } from './query-flags';

const fmt = (n: number): string => n.toLocaleString('en-US');

type ExportFlags = QueryFlags & {
  history: boolean;
  format: AnyExportFormat;
  out: string;
  columns?: string;
  bom: boolean;
  network?: string;
  pseudonymise?: boolean;
};

export function registerExportCommand(program: Command, io: Io, context: () => CliContext): void {
  withQueryFlags(program.command('export'))
    .description('export archived items (the library query) as CSV, JSON, JSONL, XLSX or Parquet, or a network of them as GEXF or GraphML')
    .addOption(new Option('--format <f>', EXPORT_FORMATS.join(' | ')).choices([...EXPORT_FORMATS]).makeOptionMandatory())
    .requiredOption(
      '-o, --out <file>',
      'output file (written to a temp file, renamed when complete); - for standard output; a pipe or device is written through',
    )
    .addOption(new Option('--network <kind>', 'with gexf / graphml: which network').choices([...NETWORK_KINDS]))
    .option(
      '--pseudonymise',
      'replace author ids, handles, names, mentions and the URLs holding them by keyed hashes (stable within this data folder)',
    )
    .option('--sort <field:dir>', 'e.g. published_at:desc, likes:desc')
    .option('--columns <list>', 'CSV / XLSX / Parquet columns, comma-separated (see: loupe columns)')
    .option('--no-bom', 'CSV without the UTF-8 byte-order mark')
    .option('--no-history', 'without the metric history and annotations files (or XLSX sheets) beside the rows')
    .action(async (o: ExportFlags) => {
      const target = checkOut(o.out)!;
      // the writers (exceljs, the Parquet encoder, graphology) load when an export runs
      const [{ CSV_COLUMNS }, { checkExportOptions, exportAny }, { companionsOf }] = await Promise.all([
        import('../shared/export-columns'),
        import('../core/export/formats'),
        import('../core/export/companions'),
      ]);
      const columns = o.columns
        ? o.columns
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : undefined;
      const unknown = columns?.filter((col) => !CSV_COLUMNS.includes(col));
      if (unknown?.length) throw new UsageError(`Unknown CSV column(s): ${unknown.join(', ')}.`);
      try {
        checkExportOptions({ format: o.format, network: o.network, columns });
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
      const c = context();
      const q = buildLibraryQuery(o, c, (nameOrId) => {
        const id = c.archive().watchlists.idByName(nameOrId);
        if (id === undefined) throw new UsageError(`No watchlist named "${nameOrId}"; see: loupe watch list`);
        return id;
      });
      // a network, kind or label Loupe does not know is a usage error naming the nearest (exit 2), never an empty file
      await c.app().checkQuery(q);
      const archive = c.archive();
      const total = archive.count(q);
      // standard output (`-`) or a FIFO / device: a complete file first, then copied through
      // (docs/cli.md "Pipes"); a file: its own temporary name, renamed when complete
      const staging = target.kind === 'file' ? null : mkdtempSync(join(tmpdir(), 'loupe-to-stdout-'));
      const file = target.kind === 'file' ? target.path : join(staging!, `export.${o.format}`);
      const abort = new AbortController();
      const onSig = (): void => abort.abort();
      process.once('SIGINT', onSig);
      try {
        const r = await exportAny(archive.iterateExportRows(q), {
          format: o.format,
          out: file,
          bom: o.bom,
          columns,
          network: o.network,
          pseudonymiseIn: o.pseudonymise ? c.dataDir : null,
          archive,
          query: q,
          // beside a file only (not on standard output); never in a pseudonymised export (notes name people)
          companions: o.history && target.kind === 'file' && !o.pseudonymise ? companionsOf(archive.datasets, { query: q }) : undefined,
          signal: abort.signal,
          total,
          onProgress: (n) => {
            progress(io.stderr, `${o.network ? 'read' : 'exported'} ${fmt(n)} / ${fmt(total)} rows`);
          },
        });
        progress(io.stderr, '');
        if (target.kind !== 'file') await copyOut(file, target, io);
        io.stderr.write(
          `${target.kind === 'file' ? r.summary : r.summary.replace(r.path, target.kind === 'stdout' ? 'standard output' : target.path)}\n`,
        );
      } catch (e) {
        if (abort.signal.aborted) throw new ExitError('cancelled', 'Export cancelled; no file was written.');
        throw e;
      } finally {
        process.removeListener('SIGINT', onSig);
        if (staging) rmSync(staging, { recursive: true, force: true });
      }
    });
}
