/** `loupe resume`, `loupe walks` (the core's side: src/core/methods/walks.ts). */
import type { Command } from 'commander';
import type { CliContext } from '../context';
import type { Io } from '../io';
import { hostname } from 'node:os';
import type { WalkOutcome } from '../../shared/contract';
import { UsageError } from '../context';
import { ExitError } from '../exit';
import { checkOut, LineSink } from '../line-sink';
import { readWalk, restartNeedsApproval, unreadableLine, walkError } from '../walk-report';
import { fmt, intArg, interruptedWalk, outputStopped } from './common';
import { approveSpend } from './calls';
import { interruptOf } from '../interrupt';

export function registerWalkCommands(program: Command, io: Io, context: () => CliContext): void {
  // ───────── resume ─────────
  program
    .command('resume')
    .description('resume an interrupted or limited walk from its saved cursor')
    .argument('<walkId>')
    .option('--pages <n>', 'more pages to fetch', intArg('--pages'))
    .option('--max-credits <n>', 'spending cap for the resumed part', intArg('--max-credits'))
    .option(
      '--pay-restart',
      'when the service rejected the saved position: re-read (and pay for) the pages already held outside their free window',
    )
    .option('-y, --yes', 'approve spending above the budget without asking (without --pages or --max-credits the walk is open-ended)')
    .option('-o, --out <file>', 'write JSON lines to this file instead of stdout')
    .action(async (walkId: string, o: { pages?: number; maxCredits?: number; payRestart?: boolean; yes?: boolean; out?: string }) => {
      checkOut(o.out);
      const c = context();
      const [w] = await c.call('walks.saved', { walkId });
      if (!w) throw new UsageError(`No walk ${walkId} in this archive; see: loupe walks`);
      if (w.status === 'running') {
        const where = w.owner ? ` (pid ${w.owner.pid}${w.owner.host !== hostname() ? ` on ${w.owner.host}` : ''})` : '';
        throw new UsageError(
          `Walk ${walkId} is still running in another Loupe process${where}; let it finish or stop that process, then resume.`,
        );
      }
      await c.api();
      // the resumed part is approved as `loupe call` approves a walk (docs/cli.md "Budget rule"):
      // without --pages it runs to the end, so it needs --yes or --max-credits; nothing unapproved is sent
      if (o.pages === 0) throw new UsageError('--pages must be at least 1.');
      const target = { platform: w.platform, endpoint: w.endpoint, params: JSON.parse(w.params) as Record<string, string> };
      await approveSpend(io, c, target, o, o.pages ?? null, true);
      const sink = await LineSink.open(io, o.out);
      let r: WalkOutcome | null = null;
      try {
        // the page that was in flight is re-sent with its idempotency key; limits count more pages / credits
        await c.call('walks.streamResume', { walkId, maxPages: o.pages, maxCredits: o.maxCredits, payRestart: o.payRestart === true });
        r = await readWalk(io, c, walkId, sink);
      } finally {
        await sink.finish(r !== null);
      }
      if (sink.poll() && !(r.status === 'failed' && r.error)) throw sink.problem(outputStopped(sink, r));
      const by = interruptOf(io).by;
      if (r.status === 'cancelled' && by) throw new ExitError('cancelled', interruptedWalk(by, r));
      io.stderr.write(`${r.pagesDone} page(s) in all, ${fmt(r.creditsSpent)} credits; stopped: ${r.stopReason ?? 'end'}.\n`);
      unreadableLine(io, r.unreadable);
      if (r.status === 'cancelled') throw new ExitError('cancelled', `Cancelled; resume with: loupe resume ${walkId}`);
      restartNeedsApproval(r);
      if ((r.status === 'failed' || r.status === 'paused') && r.error) {
        if (r.stopReason === 'rate_limited') io.stderr.write(`Resume after that time with: loupe resume ${walkId}\n`);
        throw walkError(r.error);
      }
    });

  program
    .command('walks')
    .description('list saved walks (resumable ones first)')
    .option('--json', 'JSON output')
    .action(async (o: { json?: boolean }) => {
      const ws = await context().call('walks.saved', {});
      // the walk's parameters as an object, as `loupe call -p` took them (the contract keeps them as text)
      if (o.json) return void io.stdout.write(JSON.stringify(ws.map((w) => ({ ...w, params: JSON.parse(w.params) as unknown }))) + '\n');
      for (const w of ws)
        io.stdout.write(
          `${w.walkId}  ${w.status.padEnd(11)} ${w.platform}/${w.endpoint}  pages ${w.pagesDone}  credits ${w.creditsSpent}  ${w.stopReason ?? ''}\n`,
        );
      if (ws.some((w) => w.status === 'interrupted'))
        io.stderr.write('An interrupted walk was left running by a Loupe process that is gone; continue it with: loupe resume <walkId>\n');
    });
}
