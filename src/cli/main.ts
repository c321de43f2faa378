/**
 * `loupe` — the command line over the core (docs/cli.md).
 *
 * Exit codes: 0 done; 2 usage or parameter error; 3 the API refused (4xx); 4 gave up after
 * retries (or the network failed); 5 over budget / not approved / cancelled; 6 local storage:
 * disk full, read-only folder or damaged archive; 7 `credits --reconcile` found a difference
 * between the ledger and the balance; 141 the reader of the output left (a closed pipe: the walk
 * stopped before its next request, quietly — output.ts); 1 internal error. The codes come from the
 * error model's one table (src/shared/errors.ts), by the error's kind.
 * Errors are one clear sentence on stderr (never a stack); data goes to stdout (or --out).
 */
import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { createInterface } from 'node:readline/promises';
import type { ApiCore, WalkResult } from '../core/api';
import type { ArchiveMode } from '../core/archive';
import { aboveAsk, spendLimit } from '../shared/spend-policy';
import type { CatalogueEndpoint } from '../shared/api-types';
import { registerAnalyzeCommands } from './analyze-commands';
import { registerArchiveCommands } from './archive-commands';
import { registerCollectCommands } from './collect-commands';
import { registerDatasetCommands } from './dataset-commands';
import { registerCreditsCommand } from './credits-commands';
import { registerExportCommand } from './export-command';
import { registerLibraryCommand } from './library-command';
import { cliFailure, ExitError } from './exit';
import { checkOut, itemsOf, LineSink } from './line-sink';
import { EXIT_OUTPUT_CLOSED, guardOf, OutputClosed } from './output';
import { createContext, loadRuntime, UsageError, type CliContext, type GlobalOptions } from './context';
import type { Io } from './io';
import { guarded, progress, rawOf } from './terminal';
import { visible } from '../shared/visible';
import { registerWatchCommands } from './watch';
import { restartNeedsApproval, unreadableLine } from './walk-report';
import { parseParams, parseTarget } from './targets';

export { parseParams, parseTarget };

export type { Io };

const fmt = (n: number) => n.toLocaleString('en-US');

function collect(v: string, prev: string[] = []): string[] {
  return [...prev, v];
}

function intArg(name: string) {
  return (v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new UsageError(`${name} takes a whole number, not "${v}".`);
    return n;
  };
}

function priceText(min: number, max: number): string {
  return min === max ? `${fmt(min)} credits` : `${fmt(min)}–${fmt(max)} credits`;
}

async function confirm(io: Io, question: string): Promise<boolean> {
  if (!io.stdin.isTTY || !io.stderr.isTTY) return false;
  // readline draws on the terminal itself (raw); the question is shown through visible()
  const rl = createInterface({ input: io.stdin, output: rawOf(io.stderr) });
  try {
    const a = await rl.question(`${visible(question)} [y/N] `);
    return /^y(es)?$/i.test(a.trim());
  } finally {
    rl.close();
  }
}

async function readStdin(io: Io): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of io.stdin) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(String(c)));
  return Buffer.concat(chunks).toString('utf8').trim();
}

/** Commands that only read the data folder: they work when it is read-only (context.ts). */
/** Commands that read or copy the archive file as it is: nothing migrates it first. */
const AS_IT_IS = new Set(['archive check', 'archive recover', 'archive snapshot']);
const READING = new Set(['analyze top', 'analyze compare', 'analyze overperformance', 'library', 'walks', 'export', 'columns', 'endpoints', 'credits', 'watch list', 'watch history', 'archive check', 'key list', 'collect status', 'collect inputs']);

async function loadEndpoint(api: ApiCore, platform: string, endpoint: string): Promise<CatalogueEndpoint> {
  await api.catalogue.load();
  const ep = api.catalogue.find(platform, endpoint);
  if (!ep) {
    const known = api.catalogue.list(platform).length > 0;
    throw new UsageError(
      known
        ? `${platform} has no endpoint "${endpoint}" in the catalogue; see: loupe endpoints --platform ${platform}`
        : `"${platform}" is not a network in the catalogue; see: loupe endpoints`,
    );
  }
  return ep;
}

/** The one line a walk stopped by its output says (docs/cli.md "Pipes"). */
function outputStopped(sink: LineSink, r: WalkResult): string {
  const what = `${fmt(sink.lines)} item(s) written, ${r.pagesDone} page(s) and ${fmt(r.creditsSpent)} credits in all, every charge recorded`;
  return r.status === 'done' ? `the walk had ended (${what}).` : `the walk stopped before its next request (${what}); continue with: loupe resume ${r.walkId}`;
}

function progressLine(io: Io, text: string): void {
  progress(io.stderr, text);
}

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
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });

  // ───────── call ─────────
  program
    .command('call')
    .description('call an endpoint: validate, quote, ask above the budget, walk pages, archive, print one JSON line per item')
    .argument('<endpoint>', 'platform/path, e.g. photo_net/profile/posts')
    .option('-p, --param <name=value>', 'a query parameter (repeatable)', collect)
    .option('--pages <n>', 'pages to fetch (default 1)', intArg('--pages'))
    .option('--all', 'walk until the list ends (has_more false)')
    .option('--max-credits <n>', 'never spend more than this on this call (stops before a page that could exceed it)', intArg('--max-credits'))
    .option('--dry-run', 'only quote the price (free)')
    .option('-y, --yes', 'approve spending above the budget without asking')
    .option('--fresh', 'bypass caches (Cache-Control: no-cache): always charged')
    .option('-o, --out <file>', 'write JSON lines to this file instead of stdout')
    .action(async (target: string, o: { param?: string[]; pages?: number; all?: boolean; maxCredits?: number; dryRun?: boolean; yes?: boolean; fresh?: boolean; out?: string }) => {
      if (o.pages !== undefined && o.all) throw new UsageError('Use either --pages or --all, not both.');
      checkOut(o.out);
      if (o.pages === 0) throw new UsageError('--pages must be at least 1.');
      const t = { ...parseTarget(target), params: parseParams(o.param) };
      const c = context();
      const api = await c.api();
      const ep = await loadEndpoint(api, t.platform, t.endpoint);
      const v = await api.validate(t);
      if (!v.ok) throw new UsageError(v.message);

      if (o.dryRun) {
        const q = await api.quote(t, { source: 'cli' });
        io.stdout.write(JSON.stringify(q) + '\n');
        return;
      }

      const pages = o.all ? null : (o.pages ?? 1);
      const est = await api.estimateWalk(t, { pages: pages ?? 1, priority: 'interactive' });
      const askAbove = c.settings.read().app.askAboveCredits;
      const balance = api.balance();
      const estText = pages === null ? `${priceText(est.creditsMin, est.creditsMax)} per page, open-ended (--all)` : priceText(est.creditsMin, est.creditsMax);
      if (o.maxCredits !== undefined && est.creditsMin > o.maxCredits && !ep.paginates)
        throw new ExitError('local_budget', `This call costs ${estText}, above --max-credits ${fmt(o.maxCredits)}; nothing was spent.`);
      // Spending is approved when it is bounded by an explicit --max-credits, stays under the
      // settings threshold, or the user says yes.
      // (the spend policy, src/shared/spend-policy.ts: --max-credits replaces the threshold)
      const bounded = o.maxCredits !== undefined;
      const limit = spendLimit(o.maxCredits, askAbove) ?? askAbove;
      const overThreshold = pages === null ? !bounded : aboveAsk(est.creditsMax, limit);
      if (overThreshold && !o.yes) {
        const what = `Estimated ${estText}${balance !== null ? ` (balance ${fmt(balance)})` : ''}; your budget asks above ${fmt(limit)} credits.`;
        const ok = await confirm(io, `${what} Spend it?`);
        if (!ok)
          throw new ExitError(
            'not_approved',
            `${what} Not approved: re-run with --yes${pages === null ? ' or bound it with --max-credits N' : ''}. Nothing was spent.`,
          );
      }

      const sink = await LineSink.open(io, o.out);
      const abort = new AbortController();
      const onSig = () => abort.abort();
      process.once('SIGINT', onSig);
      // the output went away (the reader closed the pipe, the disk filled): the write that found
      // out runs between two pages, so the walk stops before its next request (docs/cli.md "Pipes")
      sink.onFail(onSig);
      let result: WalkResult | null = null;
      try {
        if (!ep.paginates) {
          const r = await api.call(t, { source: 'cli', priority: 'interactive', fresh: o.fresh, signal: abort.signal });
          for (const it of itemsOf(r.envelope)) sink.write(it);
          const cost = r.fromArchive ? 'Served from the archive (already held inside its cache window): 0 credits' : `Spent ${fmt(r.creditsUsed)} credits`;
          const gone = sink.problem(`${cost}, recorded; the answer is in the archive.`);
          if (gone) throw gone;
          io.stderr.write(`${cost}${r.envelope.credits_remaining !== null && !r.fromArchive ? ` · balance ${fmt(r.envelope.credits_remaining)}` : ''}.\n`);
          unreadableLine(io, r.unreadable, true);
          await sink.finish(true);
          return;
        }
        result = await api.walk(t, {
          source: 'cli',
          priority: 'interactive',
          maxPages: pages ?? undefined,
          maxCredits: o.maxCredits,
          fresh: o.fresh,
          signal: abort.signal,
          onPage: (p) => {
            for (const it of itemsOf(p.result.envelope)) sink.write(it);
            const eta = pages !== null ? api.pacer.eta(Math.max(0, pages - p.pageNumber), 'interactive') : null;
            progressLine(io, `page ${p.pageNumber}${pages ? `/${pages}` : ''} · ${fmt(sink.lines)} items${eta ? ` · ETA ${Math.ceil(eta / 1000)} s` : ''}`);
            return sink.settled(); // the next request waits for the reader (and stops if it left)
          },
        });
      } finally {
        process.removeListener('SIGINT', onSig);
        progress(io.stderr, '');
        await sink.finish(result !== null && result.status !== 'failed');
      }
      if (sink.poll() && !(result.status === 'failed' && result.error)) throw sink.problem(outputStopped(sink, result));
      const bal = api.balance();
      io.stderr.write(
        `${result.pagesDone} page(s), ${fmt(result.itemsSeen)} items (${fmt(result.newItems)} new), ${fmt(result.creditsSpent)} credits spent${bal !== null ? `, balance ${fmt(bal)}` : ''}; stopped: ${result.stopReason ?? 'end'}.\n`,
      );
      if (result.status === 'cancelled') throw new ExitError('cancelled', `Cancelled; resume with: loupe resume ${result.walkId}`);
      unreadableLine(io, result.unreadable);
      if ((result.status === 'failed' || result.status === 'paused') && result.error) {
        // failed, or paused by the service's wait beyond the wait cap / the balance: resumable
        io.stderr.write(`Resume ${result.stopReason === 'rate_limited' ? 'after that time ' : 'later '}with: loupe resume ${result.walkId}\n`);
        throw result.error;
      }
      if (result.stopReason === 'credit_limit') io.stderr.write(`Stopped at --max-credits; continue with: loupe resume ${result.walkId} --max-credits N\n`);
      restartNeedsApproval(result);
    });

  // ───────── resume ─────────
  program
    .command('resume')
    .description('resume an interrupted or limited walk from its saved cursor')
    .argument('<walkId>')
    .option('--pages <n>', 'more pages to fetch', intArg('--pages'))
    .option('--max-credits <n>', 'spending cap for the resumed part', intArg('--max-credits'))
    .option('--pay-restart', 'when the service rejected the saved position: re-read (and pay for) the pages already held outside their free window')
    .option('-o, --out <file>', 'write JSON lines to this file instead of stdout')
    .action(async (walkId: string, o: { pages?: number; maxCredits?: number; payRestart?: boolean; out?: string }) => {
      checkOut(o.out);
      const c = context();
      const w = c.archive().getWalk(walkId);
      if (!w) throw new UsageError(`No walk ${walkId} in this archive; see: loupe walks`);
      if (w.status === 'running') {
        const where = w.owner ? ` (pid ${w.owner.pid}${w.owner.host !== hostname() ? ` on ${w.owner.host}` : ''})` : '';
        throw new UsageError(`Walk ${walkId} is still running in another Loupe process${where}; let it finish or stop that process, then resume.`);
      }
      const api = await c.api();
      const sink = await LineSink.open(io, o.out);
      const abort = new AbortController();
      const onSig = () => abort.abort();
      process.once('SIGINT', onSig);
      sink.onFail(onSig); // the output went away: stop before the next request, as `call` does
      let r: WalkResult | null = null;
      try {
        r = await api.resumeWalk(walkId, {
          source: w.source,
          priority: 'interactive',
          maxPages: o.pages !== undefined ? w.pagesDone + o.pages : undefined,
          maxCredits: o.maxCredits !== undefined ? w.creditsSpent + o.maxCredits : undefined,
          payRestart: o.payRestart === true,
          signal: abort.signal,
          onPage: (p) => {
            for (const it of itemsOf(p.result.envelope)) sink.write(it);
            return sink.settled();
          },
        });
      } finally {
        process.removeListener('SIGINT', onSig);
        await sink.finish(r !== null);
      }
      if (sink.poll() && !(r.status === 'failed' && r.error)) throw sink.problem(outputStopped(sink, r));
      io.stderr.write(`${r.pagesDone} page(s) in all, ${fmt(r.creditsSpent)} credits; stopped: ${r.stopReason ?? 'end'}.\n`);
      unreadableLine(io, r.unreadable);
      if (r.status === 'cancelled') throw new ExitError('cancelled', `Cancelled; resume with: loupe resume ${walkId}`);
      restartNeedsApproval(r);
      if ((r.status === 'failed' || r.status === 'paused') && r.error) {
        if (r.stopReason === 'rate_limited') io.stderr.write(`Resume after that time with: loupe resume ${walkId}\n`);
        throw r.error;
      }
    });

  program
    .command('walks')
    .description('list saved walks (resumable ones first)')
    .option('--json', 'JSON output')
    .action((o: { json?: boolean }) => {
      const ws = context().archive().listWalks();
      if (o.json) return void io.stdout.write(JSON.stringify(ws) + '\n');
      for (const w of ws)
        io.stdout.write(`${w.walkId}  ${w.status.padEnd(11)} ${w.platform}/${w.endpoint}  pages ${w.pagesDone}  credits ${w.creditsSpent}  ${w.stopReason ?? ''}\n`);
      if (ws.some((w) => w.status === 'interrupted'))
        io.stderr.write('An interrupted walk was left running by a Loupe process that is gone; continue it with: loupe resume <walkId>\n');
    });

  // ───────── quote ─────────
  program
    .command('quote')
    .description('the free price quote of a call (dry_run=1)')
    .argument('<endpoint>', 'platform/path')
    .option('-p, --param <name=value>', 'a query parameter (repeatable)', collect)
    .option('--pages <n>', 'also estimate a walk of n pages', intArg('--pages'))
    .action(async (target: string, o: { param?: string[]; pages?: number }) => {
      const t = { ...parseTarget(target), params: parseParams(o.param) };
      const api = await context().api();
      await loadEndpoint(api, t.platform, t.endpoint);
      const v = await api.validate(t);
      if (!v.ok) throw new UsageError(v.message);
      const q = await api.quote(t, { source: 'cli' });
      const out: Record<string, unknown> = { ...q };
      if (o.pages) out.walk = await api.estimateWalk(t, { pages: o.pages });
      io.stdout.write(JSON.stringify(out) + '\n');
    });

  // ───────── endpoints ─────────
  program
    .command('endpoints')
    .description('list the catalogue (free, keyless)')
    .option('--platform <p>', 'only this network')
    .option('--json', 'JSON output')
    .action(async (o: { platform?: string; json?: boolean }) => {
      const api = await context().api();
      await api.catalogue.load();
      const eps = api.catalogue.list(o.platform);
      if (o.platform && eps.length === 0) throw new UsageError(`"${o.platform}" is not a network in the catalogue.`);
      if (o.json) return void io.stdout.write(JSON.stringify(eps) + '\n');
      for (const e of eps) {
        const price = typeof e.credits === 'number' ? `${e.credits}` : `${e.credits.min}-${e.credits.max}`;
        const req = e.params.filter((p) => p.required).map((p) => p.name);
        const groups = [...new Set(e.params.map((p) => p.one_of_group).filter(Boolean))];
        io.stdout.write(
          `${e.path.padEnd(48)} ${price.padStart(10)} cr  ${e.paginates ? 'paged' : '     '}  ${e.available ? '' : '(not callable) '}${[...req, ...groups.map((g) => `one of ${g}`)].join(', ')}\n`,
        );
      }
    });

  // ───────── keys ─────────
  const key = program
    .command('key')
    .description('API keys in the OS keychain (the key is read from stdin, never an argument); every stored key is in the pool work is spread over');
  key
    .command('add')
    .alias('set')
    .argument('<name>', 'a name for the key (up to 64 characters)')
    .option('--no-activate', 'store it retiring: out of use until `loupe key use NAME`')
    .description('store a key read from stdin, e.g.  loupe key add work < key.txt')
    .action(async (name: string, o: { activate: boolean }) => {
      if (io.stdin.isTTY) io.stderr.write('Paste the key, then press Enter and Ctrl-D:\n');
      const value = await readStdin(io);
      if (!value) throw new UsageError('No key on stdin.');
      // the key ring itself, not the contract's keys.add: that one adds the desktop's sentence
      // "used from the next start" when the app runs on the sandbox, which is not the CLI's rule
      // (the CLI uses a key whenever a base URL is given) — docs/doors.md
      const keys = context().app().keys;
      const r = await keys.add(name, value, o.activate);
      if (r.warning) io.stderr.write(`Warning: ${r.warning}\n`);
      io.stderr.write(`Stored key "${r.name}" in ${keys.store.backend}.\n`);
    });
  key
    .command('list')
    .option('--json', 'JSON output')
    .action(async (o: { json?: boolean }) => {
      // the contract's keys.list: each key also carries its last use from the ledger (lastUsedAt)
      const ks = await context().call('keys.list', {});
      if (o.json) return void io.stdout.write(JSON.stringify(ks) + '\n');
      if (ks.length === 0) io.stderr.write('No keys stored. Add one with: loupe key set <name> < keyfile\n');
      if (ks.length === 0) return;
      io.stderr.write('  (* in use; work is spread over every key in use)\n');
      for (const k of ks) {
        const state = k.refused ? `, refused by the service: ${k.refused} — replace it with \`loupe key add ${k.name}\`` : k.retiring ? ', retiring' : '';
        io.stdout.write(`${k.active ? '*' : ' '} ${k.name}  (${k.mode}${k.looksValid ? '' : ', does not look like a service key'}${state})\n`);
      }
    });
  key
    .command('use')
    .argument('<name>')
    .description('put a key (back) into use')
    .action(async (name: string) => {
      await context().call('keys.use', { name });
      io.stderr.write(`Key "${name}" is in use.\n`);
    });
  key
    .command('retire')
    .argument('<name>')
    .description('rotation: no new work goes to the key while another can take it (then confirm the new key is used, and revoke this one in the dashboard)')
    .action(async (name: string) => {
      await context().call('keys.retire', { name });
      io.stderr.write(`Key "${name}" is retiring: new work goes to the other keys.\n`);
    });
  key
    .command('remove')
    .argument('<name>')
    .action(async (name: string) => {
      await context().call('keys.remove', { name });
      io.stderr.write(`Removed key "${name}".\n`);
    });

  // ───────── export ─────────
  registerExportCommand(program, io, context);
  registerLibraryCommand(program, io, context);

  program
    .command('columns')
    .description('the stable list of CSV export columns')
    .action(async () => {
      const { CSV_COLUMNS } = await import('../core/export/columns');
      io.stdout.write(CSV_COLUMNS.join('\n') + '\n');
    });
  registerCreditsCommand(program, io, context);
  registerWatchCommands(program, io, context, { confirm: (q) => confirm(io, q) });
  registerArchiveCommands(program, io, context);
  registerCollectCommands(program, io, context, { confirm: (q) => confirm(io, q) });
  registerDatasetCommands(program, io, context, { confirm: (q) => confirm(io, q) });
  registerAnalyzeCommands(program, io, context);
  return { program, context: () => ctx };
}

export async function runCli(argv: string[], given: Io): Promise<number> {
  // every line a command writes shows control and bidi characters escaped (./terminal.ts)
  const io: Io = { ...given, stdout: guarded(given.stdout), stderr: guarded(given.stderr) };
  // a closed stdout or stderr never crashes the run (a stack trace, exit 1): see output.ts
  const guard = guardOf(io);
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
      code = f.code;
      // the sentence may quote the service or a file: one line, every control shown escaped
      guard.say(`loupe: ${visible(f.sentence)}`);
    }
  } finally {
    await context()?.close();
  }
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
  const code = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env });
  process.exitCode = code;
}
