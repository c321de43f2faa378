/** `loupe call`, `loupe quote`, `loupe endpoints` (the core's side: src/core/methods/calls.ts). */
import type { Command } from 'commander';
import type { CliContext } from '../context';
import type { Io } from '../io';
import type { CatalogueEndpoint } from '../../shared/api-types';
import { randomUUID } from 'node:crypto';
import type { CallResult, WalkOutcome } from '../../shared/contract';
import { aboveAsk, spendLimit } from '../../shared/spend-policy';
import { UsageError } from '../context';
import { ExitError } from '../exit';
import { checkOut, itemsOf, LineSink } from '../line-sink';
import { interruptOf } from '../interrupt';
import { progress } from '../terminal';
import { parseParams, parseTarget } from '../targets';
import { readWalk, restartNeedsApproval, unreadableLine, walkError } from '../walk-report';
import { collect, confirm, fmt, intArg, interruptedWalk, loadEndpoint, outputStopped, priceText, progressLine } from './common';

export function registerCallCommands(program: Command, io: Io, context: () => CliContext): void {
  registerCatalogueCommands(program, io, context);
  // ───────── call ─────────
  program
    .command('call')
    .description('call an endpoint: validate, quote, ask above the budget, walk pages, archive, print one JSON line per item')
    .argument('<endpoint>', 'platform/path, e.g. photo_net/profile/posts')
    .option('-p, --param <name=value>', 'a query parameter (repeatable)', collect)
    .option('--pages <n>', 'pages to fetch (default 1)', intArg('--pages'))
    .option('--all', 'walk until the list ends (has_more false)')
    .option(
      '--max-credits <n>',
      'never spend more than this on this call (stops before a page that could exceed it)',
      intArg('--max-credits'),
    )
    .option('--dry-run', 'only quote the price (free)')
    .option('-y, --yes', 'approve spending above the budget without asking')
    .option('--fresh', 'bypass caches (Cache-Control: no-cache): always charged')
    .option('-o, --out <file>', 'write JSON lines to this file instead of stdout')
    .action(async (target: string, o: CallFlags) => runCall(io, context(), target, o));
}

function registerCatalogueCommands(program: Command, io: Io, context: () => CliContext): void {
  // ───────── quote ─────────
  program
    .command('quote')
    .description('the free price quote of a call (dry_run=1)')
    .argument('<endpoint>', 'platform/path')
    .option('-p, --param <name=value>', 'a query parameter (repeatable)', collect)
    .option('--pages <n>', 'also estimate a walk of n pages', intArg('--pages'))
    .action(async (target: string, o: { param?: string[]; pages?: number }) => {
      const t = { ...parseTarget(target), params: parseParams(o.param) };
      const c = context();
      await c.api();
      await loadEndpoint(c, t.platform, t.endpoint);
      await validate(c, t);
      const q = await c.call('api.dryRun', { target: t, source: 'cli' });
      const out: Record<string, unknown> = { ...q };
      if (o.pages) {
        const { creditsMin, creditsMax, requests, etaMs } = await c.call('api.estimateWalk', { target: t, pages: o.pages });
        out.walk = { creditsMin, creditsMax, requests, etaMs };
      }
      io.stdout.write(JSON.stringify(out) + '\n');
    });

  // ───────── endpoints ─────────
  program
    .command('endpoints')
    .description('list the catalogue (free, keyless)')
    .option('--platform <p>', 'only this network')
    .option('--json', 'JSON output')
    .action(async (o: { platform?: string; json?: boolean }) => {
      const c = context();
      await c.api();
      const eps = catalogueList((await c.call('catalogue.get', {})).endpoints, o.platform);
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
}

/** The catalogue's endpoints (of one network), in the catalogue's order within each network. */
function catalogueList(all: CatalogueEndpoint[], platform?: string): CatalogueEndpoint[] {
  const out = platform ? all.filter((e) => e.platform === platform) : [...all];
  return out.sort((a, b) => (a.platform === b.platform ? a.order - b.order : a.platform < b.platform ? -1 : 1));
}

/** The target against the catalogue (free): a misfit is a usage error. */
async function validate(c: CliContext, t: Target): Promise<void> {
  const v = await c.call('api.validate', t);
  if (!v.ok) throw new UsageError(v.message ?? 'The call does not fit the catalogue.');
}

type CallFlags = {
  param?: string[];
  pages?: number;
  all?: boolean;
  maxCredits?: number;
  dryRun?: boolean;
  yes?: boolean;
  fresh?: boolean;
  out?: string;
};
type Target = { platform: string; endpoint: string; params: Record<string, string> };

/** `loupe call`: validate, quote, ask above the budget, then one call or a walk of pages. */
async function runCall(io: Io, c: CliContext, target: string, o: CallFlags): Promise<void> {
  if (o.pages !== undefined && o.all) throw new UsageError('Use either --pages or --all, not both.');
  checkOut(o.out);
  if (o.pages === 0) throw new UsageError('--pages must be at least 1.');
  const t = { ...parseTarget(target), params: parseParams(o.param) };
  await c.api();
  const ep = await loadEndpoint(c, t.platform, t.endpoint);
  await validate(c, t);
  if (o.dryRun) {
    const q = await c.call('api.dryRun', { target: t, source: 'cli' });
    io.stdout.write(JSON.stringify(q) + '\n');
    return;
  }
  const pages = o.all ? null : (o.pages ?? 1);
  await approveSpend(io, c, t, o, pages, ep.paginates);
  const sink = await LineSink.open(io, o.out);
  let result: WalkOutcome | null = null;
  try {
    if (!ep.paginates) return await callOnce(io, c, t, o, sink);
    result = await walkPages(io, c, t, o, pages, sink);
  } finally {
    progress(io.stderr, '');
    await sink.finish(result !== null && result.status !== 'failed');
  }
  reportWalk(io, sink, result);
}

/**
 * Spending is approved when it is bounded by an explicit --max-credits, stays under the settings
 * threshold, or the user says yes (the spend policy, src/shared/spend-policy.ts: --max-credits
 * replaces the threshold).
 */
export async function approveSpend(
  io: Io,
  c: CliContext,
  t: Target,
  o: Pick<CallFlags, 'maxCredits' | 'yes'>,
  pages: number | null,
  paginates: boolean,
): Promise<void> {
  const est = await c.call('api.estimateWalk', { target: t, pages: pages ?? 1 });
  const { askAboveCredits: askAbove } = await c.call('settings.get', {});
  const balance = est.balance;
  const estText =
    pages === null
      ? `${priceText(est.creditsMin, est.creditsMax)} per page, open-ended (to the end of the list)`
      : priceText(est.creditsMin, est.creditsMax);
  if (o.maxCredits !== undefined && est.creditsMin > o.maxCredits && !paginates)
    throw new ExitError('local_budget', `This call costs ${estText}, above --max-credits ${fmt(o.maxCredits)}; nothing was spent.`);
  const bounded = o.maxCredits !== undefined;
  const limit = spendLimit(o.maxCredits, askAbove) ?? askAbove;
  const overThreshold = pages === null ? !bounded : aboveAsk(est.creditsMax, limit);
  if (!overThreshold || o.yes) return;
  const what = `Estimated ${estText}${balance !== null ? ` (balance ${fmt(balance)})` : ''}; your budget asks above ${fmt(limit)} credits.`;
  const ok = await confirm(io, `${what} Spend it?`);
  if (!ok)
    throw new ExitError(
      'not_approved',
      `${what} Not approved: re-run with --yes${pages === null ? ' or bound it with --max-credits N' : ''}. Nothing was spent.`,
    );
}

/**
 * An endpoint without pages: one call, its items written, its cost said. Ctrl-C / SIGTERM cancel it
 * through the request core's cancel path (`api.cancel`): nothing more is sent, the request in
 * flight is awaited for the grace and recorded, else left pending in the journal (./interrupt.ts).
 */
async function callOnce(io: Io, c: CliContext, t: Target, o: CallFlags, sink: LineSink): Promise<void> {
  const callId = `cli:${process.pid}:${randomUUID()}`;
  const interrupt = interruptOf(io);
  const off = interrupt.onStop(() => void c.call('api.cancel', { callId }).catch(() => undefined));
  let r: CallResult;
  try {
    r = await c.call('api.call', { target: t, source: 'cli', fresh: o.fresh === true, callId });
  } catch (e) {
    if (interrupt.by && (e as { kind?: unknown }).kind === 'cancelled')
      throw new ExitError(
        'cancelled',
        `Stopped (${interrupt.by}) before an answer came: nothing was recorded as spent. A request still in flight stays in the journal — the next run of this call takes it over (a free replay when the service charged it); loupe credits --reconcile shows any difference meanwhile.`,
      );
    throw e;
  } finally {
    off();
  }
  for (const it of itemsOf(r.envelope)) sink.write(it);
  const cost = r.fromArchive
    ? 'Served from the archive (already held inside its cache window): 0 credits'
    : `Spent ${fmt(r.creditsUsed ?? 0)} credits`;
  const gone = sink.problem(`${cost}, recorded; the answer is in the archive.`);
  if (gone) throw gone;
  if (interrupt.by)
    io.stderr.write(
      `Stopped (${interrupt.by}) after the answer came: ${cost.replace(/^S/, 's')}, recorded; the answer is in the archive.\n`,
    );
  else
    io.stderr.write(
      `${cost}${r.envelope.credits_remaining !== null && !r.fromArchive ? ` · balance ${fmt(r.envelope.credits_remaining)}` : ''}.\n`,
    );
  unreadableLine(io, r.unreadable ?? 0, true);
  await sink.finish(true);
}

/** A walk of pages read through the contract, each page's items written as it arrives; the next request waits for the reader. */
async function walkPages(io: Io, c: CliContext, t: Target, o: CallFlags, pages: number | null, sink: LineSink): Promise<WalkOutcome> {
  const { walkId } = await c.call('walks.stream', {
    target: t,
    source: 'cli',
    maxPages: pages ?? undefined,
    maxCredits: o.maxCredits,
    fresh: o.fresh === true,
  });
  return readWalk(io, c, walkId, sink, (p) =>
    progressLine(
      io,
      `page ${p.pageNumber}${pages ? `/${pages}` : ''} · ${fmt(sink.lines)} items${p.etaMs ? ` · ETA ${Math.ceil(p.etaMs / 1000)} s` : ''}`,
    ),
  );
}

/** What a finished walk says on stderr, and how it ends the command (resumable failures throw). */
function reportWalk(io: Io, sink: LineSink, result: WalkOutcome | null): void {
  if (!result) return;
  if (sink.poll() && !(result.status === 'failed' && result.error)) throw sink.problem(outputStopped(sink, result));
  const by = interruptOf(io).by;
  if (result.status === 'cancelled' && by) throw new ExitError('cancelled', interruptedWalk(by, result));
  const bal = result.balance;
  io.stderr.write(
    `${result.pagesDone} page(s), ${fmt(result.itemsSeen)} items (${fmt(result.newItems)} new), ${fmt(result.creditsSpent)} credits spent${bal !== null ? `, balance ${fmt(bal)}` : ''}; stopped: ${result.stopReason ?? 'end'}.\n`,
  );
  if (result.status === 'cancelled') throw new ExitError('cancelled', `Cancelled; resume with: loupe resume ${result.walkId}`);
  unreadableLine(io, result.unreadable);
  if ((result.status === 'failed' || result.status === 'paused') && result.error) {
    // failed, or paused by the service's wait beyond the wait cap / the balance: resumable
    io.stderr.write(`Resume ${result.stopReason === 'rate_limited' ? 'after that time ' : 'later '}with: loupe resume ${result.walkId}\n`);
    throw walkError(result.error);
  }
  if (result.stopReason === 'credit_limit')
    io.stderr.write(`Stopped at --max-credits; continue with: loupe resume ${result.walkId} --max-credits N\n`);
  restartNeedsApproval(result);
}
