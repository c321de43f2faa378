/**
 * `loupe` — the command line over the core (docs/cli.md).
 *
 * Exit codes: 0 done; 2 usage or parameter error; 3 the API refused (4xx); 4 gave up after
 * retries (or the network failed); 5 over budget / not approved / cancelled; 6 local storage:
 * disk full, read-only folder or damaged archive; 7 `credits --reconcile` found a difference
 * between the ledger and the balance; 130 / 143 stopped by SIGINT / SIGTERM (./interrupt.ts); 141 the reader of the output left (a closed pipe: the walk
 * stopped before its next request, quietly — output.ts); 1 internal error. The codes come from the
 * error model's one table (src/shared/errors.ts), by the error's kind.
 * Errors are one clear sentence on stderr (never a stack); data goes to stdout (or --out).
 */
import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import type { ArchiveMode } from '../core/compose';
import { registerAnalyzeCommands } from './commands/analysis';
import { registerArchiveCommands } from './commands/maintenance';
import { registerCollectCommands } from './commands/collect';
import { registerDatasetCommands } from './commands/datasets';
import { registerCreditsCommand } from './commands/usage';
import { registerExportCommand } from './commands/export-file';
import { registerLibraryCommand } from './commands/library';
import { registerCallCommands } from './commands/calls';
import { registerKeyCommands } from './commands/account';
import { registerAlertCommands } from './commands/alerts';
import { registerWalkCommands } from './commands/walks';
import { registerColumnsCommand } from './commands/exports';
import { registerTagCommands } from './commands/tags';
import { confirm } from './commands/common';
import { cliFailure } from './exit';
import { EXIT_OUTPUT_CLOSED, guardOf, OutputClosed } from './output';
import { interruptOf, listenForSignals } from './interrupt';
import { createContext, loadRuntime, type CliContext, type GlobalOptions } from './context';
import type { Io } from './io';
import { guarded, rawOf } from './terminal';
import { visible } from '../shared/visible';
import { registerWatchCommands } from './commands/watchlists';
import { parseParams, parseTarget } from './targets';

export { parseParams, parseTarget };

export type { Io };

/** Commands that only read the data folder: they work when it is read-only (context.ts). */
/** Commands that read or copy the archive file as it is: nothing migrates it first. */
const AS_IT_IS = new Set(['archive check', 'archive recover', 'archive snapshot']);
const READING = new Set([
  'analyze top',
  'analyze compare',
  'analyze overperformance',
  'library',
  'walks',
  'export',
  'columns',
  'endpoints',
  'credits',
  'watch list',
  'watch history',
  'archive check',
  'key list',
  'collect status',
  'collect inputs',
  'tags list',
]);

export function buildProgram(io: Io): { program: Command; context: () => CliContext | null } {
  let ctx: CliContext | null = null;
  let mode: ArchiveMode = 'write';
  const program = new Command('loupe');
  const context = (): CliContext => {
    if (!ctx) {
      const g = program.opts<GlobalOptions>();
      ctx = createContext(g, io.env, (s) => io.stderr.write(s + '\n'), mode);
    }
    return ctx;
  };
  program.hook('preAction', async (_root, action) => {
    const parent = action.parent && action.parent !== program ? `${action.parent.name()} ` : '';
    const name = parent + action.name();
    mode = READING.has(name) ? 'read' : 'write';
    // the core is loaded here, when a command runs (never for --help / --version)
    const { migrationPrinter, prepareDoor } = await loadRuntime();
    if (AS_IT_IS.has(name)) return;
    // an archive written by an older Loupe is brought up to date before the command opens it (a
    // worker thread, src/core/archive/prepare.ts); progress on stderr only on a terminal: scripts
    // read stdout, and a log gets no progress lines
    const printer = io.stderr.isTTY ? migrationPrinter(rawOf(io.stderr)) : null;
    try {
      await prepareDoor({ dataDir: context().dataDir }, { onProgress: printer?.onProgress });
    } finally {
      printer?.end();
    }
  });
  program
    .description('Loupe: research public social-media data through the Social Data Read API, carefully with credits.')
    .option('--base-url <url>', 'service base URL (env LOUPE_BASE_URL); default: an in-process sandbox with synthetic data')
    .option('--data-dir <dir>', 'archive and settings folder (env LOUPE_HOME); default: the app’s user-data folder')
    .version(readVersion(), '-V, --version', 'print the version of Loupe')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });

  registerCallCommands(program, io, context);
  registerWalkCommands(program, io, context);
  registerKeyCommands(program, io, context);
  registerAlertCommands(program, io, context);

  registerExportCommand(program, io, context);
  registerLibraryCommand(program, io, context);

  registerColumnsCommand(program, io);
  registerTagCommands(program, io, context, (q) => confirm(io, q));

  registerCreditsCommand(program, io, context);
  registerWatchCommands(program, io, context, { confirm: (q) => confirm(io, q) });
  registerArchiveCommands(program, io, context);
  registerCollectCommands(program, io, context, { confirm: (q) => confirm(io, q) });
  registerDatasetCommands(program, io, context, { confirm: (q) => confirm(io, q) });
  registerAnalyzeCommands(program, io, context);
  oneLineUsageErrors(program);
  return { program, context: () => ctx };
}

/**
 * A usage error (an unknown option, a missing argument, a value outside its choices) as one line on
 * stderr, as every other error of the command line: `loupe: <commander's sentence>; see: loupe
 * export --help`, not the sentence followed by the whole help (docs/cli.md "Exit codes"). Set on
 * every command, each naming its own help.
 */
function oneLineUsageErrors(c: Command, path: string[] = []): void {
  const help = ['loupe', ...path, '--help'].join(' ');
  c.configureOutput({
    ...c.configureOutput(),
    outputError: (message, write) =>
      write(
        `loupe: ${message
          .replace(/^error:\s*/, '')
          .replace(/\s+/g, ' ')
          .trim()
          .replace(/\.$/, '')}; see: ${help}\n`,
      ),
  });
  for (const s of c.commands) oneLineUsageErrors(s, [...path, s.name()]);
}

export async function runCli(argv: string[], given: Io): Promise<number> {
  // every line a command writes shows control and bidi characters escaped (./terminal.ts)
  const io: Io = { ...given, stdout: guarded(given.stdout), stderr: guarded(given.stderr) };
  // a closed stdout or stderr never crashes the run (a stack trace, exit 1): see output.ts
  const guard = guardOf(io);
  // SIGINT / SIGTERM: the command stops through its cancel path, then exits 130 / 143 (./interrupt.ts)
  const unlisten = given.signals ? listenForSignals(io, given.signals, (line) => guard.say(line)) : () => {};
  const { program, context } = buildProgram(io);
  let code = 0;
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      code = e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.exitCode === 0 ? 0 : 2;
    } else if (e instanceof OutputClosed) {
      code = EXIT_OUTPUT_CLOSED;
      if (e.line) guard.say(`loupe: ${e.line}`);
    } else {
      const f = cliFailure(e, context());
      // stopped by a signal: 130 / 143, whatever the command's own cancel code (a failure stays)
      const stopped = interruptOf(io).code;
      code = stopped !== null && (e as { kind?: unknown }).kind === 'cancelled' ? stopped : f.code;
      // the sentence may quote the service or a file: one line, every control shown escaped
      guard.say(`loupe: ${visible(f.sentence)}`);
    }
  } finally {
    await context()?.close();
    unlisten();
  }
  // a command that finished after a signal (its answer came in time) still ends as stopped by it
  const stoppedBy = interruptOf(io).code;
  if (code === 0 && stoppedBy !== null) code = stoppedBy;
  await guard.settled(); // what is still buffered for a slow reader, or the news that it left
  // the reader left while a command that did not stop for it wrote (library, analyze, …): quiet, 141
  if (code === 0 && guard.closed) {
    const p = guard.problem('');
    if (p instanceof OutputClosed) code = EXIT_OUTPUT_CLOSED;
    else if (p) {
      const f = cliFailure(p, context());
      code = f.code;
      guard.say(`loupe: ${f.sentence}`);
    }
  }
  return code;
}

declare const __LOUPE_VERSION__: string | undefined;

/** Loupe's version: set by the build (scripts/build-cli.mjs), else read from package.json (sources). */
export function readVersion(): string {
  if (typeof __LOUPE_VERSION__ === 'string') return __LOUPE_VERSION__;
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

// `tsx src/cli/main.ts` (npm run loupe: the sources, for development); the built command line
// starts from ./bin.ts (bin/loupe.js)
const isMain = process.argv[1] && /src\/cli\/main\.ts$/.test(process.argv[1]);
if (isMain) {
  const code = await runCli(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    signals: { on: (s, f) => process.on(s, f), off: (s, f) => process.off(s, f), exit: (c) => process.exit(c) },
  });
  process.exitCode = code;
}
