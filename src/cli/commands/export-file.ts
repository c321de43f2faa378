/**
 * `loupe export` — the library query to a file: CSV, JSON, JSONL, XLSX, Parquet, or a network as
 * GEXF / GraphML; any of them pseudonymised (docs/cli.md, docs/export.md, docs/analysis.md).
 */
import { Option, type Command } from 'commander';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXPORT_FORMAT_NAMES as EXPORT_FORMATS, type ExportFormatName } from '../../shared/contract-library';
import { NETWORK_KINDS, type NetworkKindName } from '../../shared/contract-network';
import type { CliContext } from '../context';
import { EXPORT_OPTIONS, type ExportOptionName } from '../export-options';
import { UsageError } from '../context';
import { ExitError } from '../exit';
import type { Io } from '../io';
import { interruptOf } from '../interrupt';
import { checkOut } from '../line-sink';
import { copyOut, type OutTarget } from '../output';
import { progress } from '../terminal';
import { libraryQueryOf, withQueryFlags, type QueryFlags } from '../query-flags';
import { grouped } from '../../shared/grouped';
import { freshTempDir } from '../../core/partial-files';

const fmt = grouped;

type ExportFlags = QueryFlags & {
  history: boolean;
  format: ExportFormatName;
  out: string;
  columns?: string;
  bom: boolean;
  network?: NetworkKindName;
  pseudonymise?: boolean;
};

/**
 * Where the export is written: the file itself, or a staged file copied to standard output, a FIFO
 * or a device — in `loupe-to-stdout-<host>-<pid>-XXXXXX` in the system temp folder, removed when
 * the command ends; what a killed run (`kill -9`: up to the whole export) left there is removed by
 * the next run that stages one (partial-files.ts freshTempDir).
 */
function fileFor(target: OutTarget, format: string): { file: string; staging: string | null } {
  if (target.kind === 'file') return { file: target.path, staging: null };
  const staging = freshTempDir(tmpdir(), 'loupe-to-stdout');
  return { file: join(staging, `export.${format}`), staging };
}

export function registerExportCommand(program: Command, io: Io, context: () => CliContext): void {
  // exactly the options of ./export-options.ts (the early start reads that list): one entry a name
  const f = EXPORT_OPTIONS;
  const options: Record<ExportOptionName, Option> = {
    format: new Option(f.format.flags, EXPORT_FORMATS.join(' | ')).choices([...EXPORT_FORMATS]).makeOptionMandatory(),
    out: new Option(
      f.out.flags,
      'output file (written to a temp file, renamed when complete); - for standard output; a pipe or device is written through',
    ).makeOptionMandatory(),
    network: new Option(f.network.flags, 'with gexf / graphml: which network').choices([...NETWORK_KINDS]),
    pseudonymise: new Option(
      f.pseudonymise.flags,
      'replace author ids, handles, names, mentions and the URLs holding them by keyed hashes (stable within this data folder)',
    ),
    sort: new Option(f.sort.flags, 'e.g. published_at:desc, likes:desc'),
    columns: new Option(f.columns.flags, 'CSV / XLSX / Parquet columns, comma-separated (see: loupe columns)'),
    bom: new Option(f.bom.flags, 'CSV without the UTF-8 byte-order mark'),
    history: new Option(f.history.flags, 'without the metric history and annotations files (or XLSX sheets) beside the rows'),
  };
  const command = withQueryFlags(program.command('export')).description(
    'export archived items (the library query) as CSV, JSON, JSONL, XLSX or Parquet, or a network of them as GEXF or GraphML',
  );
  for (const o of Object.values(options)) command.addOption(o);
  command.action(async (o: ExportFlags) => {
    const target = checkOut(o.out);
    if (!target) throw new UsageError('--out names the file to write, or - for standard output.');
    const { CSV_COLUMNS } = await import('../../shared/export-columns');
    const columns = o.columns
      ? o.columns
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : undefined;
    const unknown = columns?.filter((col) => !CSV_COLUMNS.includes(col));
    if (unknown?.length) throw new UsageError(`Unknown CSV column(s): ${unknown.join(', ')}.`);
    const c = context();
    const query = await libraryQueryOf(o, c);
    // standard output (`-`) or a FIFO / device: a complete file first, then copied through
    // (docs/cli.md "Pipes"); a file (a link's target): its own temporary name, renamed when complete
    const { file, staging } = fileFor(target, o.format);
    const abort = new AbortController();
    // Ctrl-C / SIGTERM: stopped, nothing left behind, exit 130 / 143 (./interrupt.ts)
    const offSig = interruptOf(io).onStop(() => abort.abort());
    try {
      // local.exportFile (src/shared/contract-local.ts): the options checked, unknown names in the
      // query refused (exit 2, never an empty file), the writers loaded when it runs
      const r = await c.local(
        'local.exportFile',
        {
          query,
          format: o.format,
          network: o.network,
          pseudonymise: o.pseudonymise ?? false,
          columns,
          bom: o.bom,
          // beside a file only (not on standard output)
          history: o.history && target.kind === 'file',
          file,
        },
        {
          signal: abort.signal,
          onEvent: (e) => {
            if (e.type === 'export-rows') progress(io.stderr, `${o.network ? 'read' : 'exported'} ${fmt(e.rows)} / ${fmt(e.total)} rows`);
          },
        },
      );
      progress(io.stderr, '');
      if (target.kind !== 'file') await copyOut(file, target, io);
      io.stderr.write(
        `${target.kind === 'file' ? r.summary : r.summary.replace(r.path, target.kind === 'stdout' ? 'standard output' : target.path)}\n`,
      );
    } catch (e) {
      if (abort.signal.aborted) throw new ExitError('cancelled', 'Export cancelled; no file was written.');
      throw e;
    } finally {
      offSig();
      if (staging) rmSync(staging, { recursive: true, force: true });
    }
  });
}
