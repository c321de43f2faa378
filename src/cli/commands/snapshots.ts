/**
 * `loupe archive snapshot <file> [--force] [--json]` (issue 24 #10; docs/cli.md, docs/archive.md
 * "Copies to share or back up"): a consistent single-file copy of the archive while Loupe (the app,
 * a walk, a cron job) keeps writing it — what to share or back up instead of copying loupe.db,
 * which misses everything still in its write-ahead log. Progress on stderr on a terminal; the
 * file is written under a temporary name and renamed when complete; an existing file is replaced
 * only with --force. Reads the archive as it is (nothing migrates it first).
 */
import type { Command } from 'commander';
import type { ArchiveCopyReport } from '../../shared/contract-maintenance';
import type { CliContext } from '../context';
import type { Io } from '../io';
import { interruptOf } from '../interrupt';
import { progress } from '../terminal';

const fmt = (n: number): string => n.toLocaleString('en-US');

function size(bytes: number): string {
  if (bytes < 1024 * 1024) return `${fmt(Math.ceil(bytes / 1024))} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
}

export function snapshotSummary(r: ArchiveCopyReport): string {
  const c = r.counts;
  return (
    `Copied the archive to ${r.path} (${size(r.bytes)}, one file): ${fmt(c.items)} items, ${fmt(c.tags)} tags, ${fmt(c.notes)} notes, ` +
    `${fmt(c.overrides)} label overrides, ${fmt(c.resultSets)} saved sets, ${fmt(c.watchlists)} watchlists, ${fmt(c.ledgerRows)} ledger rows. ` +
    `Open it as a data folder's loupe.db, or read it with any SQLite tool.`
  );
}

export function registerSnapshotCommand(archive: Command, io: Io, context: () => CliContext): void {
  archive
    .command('snapshot')
    .description('a consistent single-file copy of the archive, safe while Loupe runs: how to share or back up an archive')
    .argument('<file>', 'where to write the copy (e.g. ~/backups/loupe-2025-06-01.db)')
    .option('--force', 'replace the file if it exists')
    .option('--json', 'JSON output')
    .action(async (file: string, o: { force?: boolean; json?: boolean }) => {
      const abort = new AbortController();
      // Ctrl-C / SIGTERM: stopped, nothing left behind, exit 130 / 143 (./interrupt.ts)
      const offSig = interruptOf(io).onStop(() => abort.abort());
      let shown = -1;
      try {
        const r = await context().maintain(
          'maintenance.copy',
          { file, force: o.force === true },
          {
            signal: abort.signal,
            onEvent: ({ done, pages }) => {
              const pct = pages > 0 ? Math.floor((done / pages) * 100) : 0;
              if (pct === shown) return;
              shown = pct;
              progress(io.stderr, `Copying the archive: ${pct} % (${fmt(done)} of ${fmt(pages)} pages)`);
            },
          },
        );
        progress(io.stderr, '');
        io.stdout.write(o.json ? JSON.stringify(r) + '\n' : snapshotSummary(r) + '\n');
      } finally {
        offSig();
        progress(io.stderr, '');
      }
    });
}
