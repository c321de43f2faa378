/**
 * `loupe archive check` / `loupe archive recover` (docs/cli.md, docs/archive.md "Checking and
 * recovering"), "The analysis index"). `loupe archive index` builds the analysis index with progress
 * (a query never builds it: it answers from the items and exits): the contract's
 * `analysis.buildIndex`. Check and recover do not open the archive through the context (which
 * would migrate it): the maintenance methods (src/shared/contract-maintenance.ts) check the file
 * as it is; recover works on copies and only swaps files when the copy checks out.
 */
import { Option, type Command } from 'commander';
import { RECOVER_ENGINES, type ArchiveCheckReport, type RecoverEngine } from '../../shared/contract-maintenance';
import { envValue } from '../../shared/settings';
import type { CliContext } from '../context';
import { ExitError } from '../exit';
import type { Io } from '../io';
import { progress } from '../terminal';
import { registerSnapshotCommand } from './snapshots';

const fmt = (n: number) => n.toLocaleString('en-US');

function describeCheck(r: ArchiveCheckReport): string {
  if (!r.exists) return `There is no archive at ${r.path} yet; nothing to check.\n`;
  if (r.healthy)
    return `The archive at ${r.path} is healthy (${fmt(r.items ?? 0)} items, ${fmt(r.ledgerRows ?? 0)} ledger rows)${r.quick ? ' — quick check' : ''}.\n`;
  return (
    `The archive at ${r.path} has problems:\n` +
    r.problems.map((p) => `  - ${p}\n`).join('') +
    'Way out: `loupe archive recover` copies what can be read into a new archive and puts it in place (the damaged file is kept beside it); close the Loupe app first.\n'
  );
}

/** `loupe archive index`: the contract's analysis.buildIndex, its index-progress events as progress on stderr. */
async function buildIndex(io: Io, c: CliContext): Promise<void> {
  let shown = -1;
  c.on((e) => {
    if (e.type !== 'index-progress') return;
    const pct = Math.min(99, Math.floor((e.done / Math.max(1, e.total)) * 100));
    if (io.stderr.isTTY) progress(io.stderr, `Building the analysis index: ${pct} %`);
    else if (Math.floor(pct / 10) > Math.floor(shown / 10)) io.stderr.write(`Building the analysis index: ${pct} %\n`);
    shown = pct;
  });
  const r = await c.call('analysis.buildIndex', {});
  progress(io.stderr, '');
  if (!r.built) return void io.stdout.write(`The analysis index is current (${fmt(r.archiveItems)} items).\n`);
  const s = r.ms / 1000;
  io.stdout.write(
    `Built the analysis index of ${fmt(r.items)} items in ${s.toFixed(1)} s (${fmt(Math.round(r.items / Math.max(s, 0.001)))} items/s).\n`,
  );
}

export function registerArchiveCommands(program: Command, io: Io, context: () => CliContext): void {
  const archive = program
    .command('archive')
    .description('check the archive file, copy it safely (snapshot), or recover what can be read from a damaged one');
  registerSnapshotCommand(archive, io, context);

  archive
    .command('check')
    .description("SQLite's integrity check of the archive (nothing is written)")
    .option('--quick', 'quick_check instead of the full integrity_check (faster on a large archive)')
    .option('--json', 'JSON output')
    .action(async (o: { quick?: boolean; json?: boolean }) => {
      const r = await context().maintain('maintenance.check', { quick: o.quick === true });
      if (o.json) io.stdout.write(JSON.stringify(r) + '\n');
      else io.stdout.write(describeCheck(r));
      if (!r.healthy)
        throw new ExitError(
          'damaged',
          `The archive at ${r.path} is damaged (${r.problems.length} problem(s)); recover it with: loupe archive recover`,
        );
    });

  archive
    .command('index')
    .description(
      'build the analysis index now, with progress (the app builds it in the background; a query answers from the items meanwhile)',
    )
    .action(() => buildIndex(io, context()));

  archive
    .command('recover')
    .description('copy what can be read from a damaged archive into a new one and put it in place (the damaged file is kept beside it)')
    .option('--out <file>', 'write the recovered archive here and leave the damaged one where it is')
    .addOption(
      new Option(
        '--engine <engine>',
        "auto: SQLite's .recover through the sqlite3 program when it works, else the built-in table copy; sqlite3 or copy to choose",
      )
        .choices([...RECOVER_ENGINES])
        .default('auto'),
    )
    .option('--force', 'recover even when the archive passes the check')
    .option('--json', 'JSON output')
    .action(async (o: { out?: string; force?: boolean; json?: boolean; engine: RecoverEngine }) => {
      const r = await context().maintain('maintenance.recover', {
        out: o.out,
        force: o.force === true,
        engine: o.engine,
        sqlite3: envValue(io.env, 'sqlite3') ?? null,
      });
      // a healthy archive not forced: nothing was done (a missing file or an existing output is the user's: 2, the rest storage: 6)
      if ('healthy' in r) return void io.stderr.write(r.message + '\n');
      if (o.json) return void io.stdout.write(JSON.stringify(r) + '\n');
      const kept = `${fmt(r.items)} items, ${fmt(r.ledgerRows)} ledger rows, ${fmt(r.walks)} walks (${r.engine === 'sqlite3' ? "SQLite's .recover" : 'built-in table copy'})`;
      const unplaced =
        r.unplaced > 0
          ? ` ${fmt(r.unplaced)} row(s) SQLite found but could not place in a table were left out (they stay in the damaged file).`
          : '';
      io.stdout.write(
        r.inPlace
          ? `Recovered ${kept} into a new archive at ${r.recovered}; the damaged file is kept at ${r.aside}.${unplaced}\n`
          : `Recovered ${kept} into ${r.recovered}; the damaged archive at ${r.path} is unchanged.${unplaced}\n`,
      );
    });
}
