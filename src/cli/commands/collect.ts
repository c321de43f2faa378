/**
 * `loupe collect plan | run | status | inputs | cancel` — collection plans from the command line
 * (issue 28, docs/collect.md): a list priced as one plan before anything is spent, then a run that
 * resumes after a cancel or a crash; usable from cron (a plan with a budget runs without asking).
 * Every command calls the contract's `collect.*` methods of the composed app.
 */
import { basename } from 'node:path';
import type { Command } from 'commander';
import {
  COLLECT_DOS,
  COLLECT_RANKS,
  type CollectDesign,
  type CollectDo,
  type CollectRank,
  type CollectStatus,
} from '../../shared/contract-collect';
import type { CliContext } from '../context';
import { UsageError } from '../context';
import { ExitError } from '../exit';
import type { Io } from '../io';
import { describePlan, describeStatus, fmt } from '../collect-words';
import { progress } from '../terminal';
import { interruptOf } from '../interrupt';
import { parseParams } from '../targets';
import { collect, intBetween, readListFile, type AsksFirst } from './common';

interface PlanOpts {
  do?: string;
  networks?: string[];
  pages?: number;
  budget?: number;
  name?: string;
  column?: string;
  endpoint?: string[];
  param?: string[];
  top?: number;
  by?: string;
  fromSet?: string;
  dryRun?: boolean;
  json?: boolean;
}

/** `--networks a,b --networks c` → [a, b, c] */
const networksOf = (list: string[] | undefined): string[] => [
  ...new Set(
    (list ?? [])
      .flatMap((s) => s.split(','))
      .map((s) => s.trim())
      .filter(Boolean),
  ),
];

type RunFlags = { budget?: number; yes?: boolean; json?: boolean };

/** `loupe collect run`: progress on a terminal, Ctrl-C / SIGTERM cancel through collect.cancel (./interrupt.ts). */
async function runPlanCommand(io: Io, c: () => CliContext, opts: AsksFirst, name: string, o: RunFlags): Promise<void> {
  await c().api();
  const off = c().on((e) => {
    if (e.type !== 'collect-progress' || e.plan.status !== 'running' || !io.stderr.isTTY) return;
    const p = e.plan;
    const done = p.counts.done + p.counts.held + p.counts.failed + p.counts.skipped;
    progress(
      io.stderr,
      `${fmt(done)}/${fmt(p.total)} input(s) · ${fmt(p.spent)} credits (plan ${fmt(p.figures.creditsMin)}–${fmt(p.figures.creditsMax)})${p.etaMs ? ` · at least ${Math.ceil(p.etaMs / 1000)} s left` : ''}`,
    );
  });
  // Ctrl-C / SIGTERM: the run is cancelled through collect.cancel (nothing new sent, the
  // request in flight awaited and recorded) and the command ends with one line (./interrupt.ts)
  const interrupt = interruptOf(io);
  const offSig = interrupt.onStop(() => {
    if (io.stderr.isTTY) io.stderr.write('\nStopping after the request in flight (again to stop at once)…\n');
    void c()
      .call('collect.cancel', { id: name })
      .catch(() => undefined);
  });
  let st: CollectStatus;
  try {
    const input = { id: name, approved: o.yes ?? false, ...(o.budget !== undefined ? { budget: o.budget } : {}) };
    try {
      st = await c().call('collect.run', input);
    } catch (e) {
      if ((e as { kind?: string }).kind !== 'not_approved' || o.yes) throw e;
      if (!(await opts.confirm(`${(e as Error).message.replace(/ Approve it.*$/, '')} Run it?`))) throw e;
      st = await c().call('collect.run', { ...input, approved: true });
    }
  } finally {
    offSig();
    off();
    progress(io.stderr, '');
  }
  if (interrupt.by && st.status === 'cancelled')
    throw new ExitError(
      'cancelled',
      `Stopped (${interrupt.by}) before the next request: ${fmt(st.spent)} credits spent this run, every charge recorded; continue with: loupe collect run "${st.name}"`,
    );
  io.stderr.write(describeStatus(st));
  if (o.json) io.stdout.write(JSON.stringify({ status: st }) + '\n');
  if (st.status === 'cancelled') throw new ExitError('cancelled', `Cancelled; continue with: loupe collect run "${st.name}"`);
  if (st.status === 'partial')
    throw new ExitError('local_budget', `Not finished: ${st.message ?? ''} Continue with: loupe collect run "${st.name}" [--budget N]`);
  if (st.status === 'failed') throw new ExitError('storage', st.message ?? 'The run stopped.');
}

export function registerCollectCommands(program: Command, io: Io, c: () => CliContext, opts: AsksFirst): void {
  const cmd = program
    .command('collect')
    .description('collect from a list (accounts, posts, queries, hashtags) or a saved set, priced as one plan before anything is spent');

  cmd
    .command('plan')
    .description(
      'read a list (one a line, or a CSV column), map each input to its calls and price the whole plan; saves it (nothing is spent)',
    )
    .argument('[file]', 'the list or CSV; - reads standard input (or --from-set)')
    .requiredOption('--do <what>', `what to collect for each input: ${COLLECT_DOS.join(', ')}`)
    .option(
      '--networks <list>',
      'networks to use, comma-separated (a search or a handle goes to each; an address must be on one of them)',
      collect,
    )
    .option('--pages <n>', 'depth: pages per input on list endpoints (default 1)', intBetween('--pages', 1, 100))
    .option(
      '--budget <credits>',
      'one ceiling for the whole run (then it runs without asking, e.g. from cron)',
      intBetween('--budget', 0, 1e12),
    )
    .option('--name <name>', 'the plan’s name (its results become a saved set of that name); default: the file’s name')
    .option('--column <name>', 'the CSV column to read (default: the first known one)')
    .option('--endpoint <network=path>', 'another endpoint for a network, e.g. photo_net=search/reels (repeatable)', collect)
    .option('-p, --param <name=value>', 'a parameter every call carries (repeatable)', collect)
    .option('--from-set <name>', 'fan out from a saved set of the Library instead of a file')
    .option('--top <n>', 'a set’s top N by --by (default engagement)', intBetween('--top', 1, 1_000_000))
    .option('--by <field>', `rank for --top: ${COLLECT_RANKS.join(', ')}`)
    .option('--dry-run', 'price it only; save nothing')
    .option('--json', 'the plan as JSON on stdout')
    .action(async (file: string | undefined, o: PlanOpts) => {
      const what = (o.do ?? '').trim().toLowerCase();
      if (!(COLLECT_DOS as readonly string[]).includes(what))
        throw new UsageError(`--do takes one of ${COLLECT_DOS.join(', ')}; got "${o.do}".`);
      if (o.by !== undefined && !(COLLECT_RANKS as readonly string[]).includes(o.by))
        throw new UsageError(`--by takes one of ${COLLECT_RANKS.join(', ')}; got "${o.by}".`);
      if ((file === undefined) === (o.fromSet === undefined))
        throw new UsageError('Give a list file (- for standard input) or --from-set NAME, one of them.');
      const endpoints: Record<string, string> = {};
      for (const e of o.endpoint ?? []) {
        const i = e.indexOf('=');
        if (i <= 0) throw new UsageError(`--endpoint takes network=path, e.g. photo_net=search/reels; got "${e}".`);
        endpoints[e.slice(0, i).trim()] = e.slice(i + 1).trim();
      }
      // the base URL is checked before the service is reached (a bad one: exit 2, nothing sent)
      await c().api();
      let source: CollectDesign['source'];
      let name = o.name;
      if (o.fromSet !== undefined) {
        const sets = await c().call('library.resultSets', {});
        const set = sets.find((s) => s.name === o.fromSet) ?? sets.find((s) => s.id === o.fromSet);
        if (!set) throw new UsageError(`No saved set named "${o.fromSet}"; see the Library's saved sets.`);
        source = { type: 'set', id: set.id };
        name ??= `${set.name} — ${what}`;
      } else {
        source = { type: 'text', text: await readListFile(io, file as string), ...(o.column ? { column: o.column } : {}) };
        name ??=
          file === '-'
            ? `plan ${new Date().toISOString().slice(0, 16).replace('T', ' ')}`
            : basename(file as string).replace(/\.[^.]+$/, '');
      }
      const design: CollectDesign = {
        name,
        source,
        do: what as CollectDo,
        networks: networksOf(o.networks),
        endpoints,
        pages: o.pages ?? 1,
        params: parseParams(o.param),
        budget: o.budget ?? null,
        ...(o.top !== undefined ? { topK: { n: o.top, by: (o.by ?? 'engagement') as CollectRank } } : {}),
      };
      const plan = await c().call(o.dryRun ? 'collect.preview' : 'collect.create', design);
      io.stderr.write(describePlan(plan));
      if (o.json) io.stdout.write(JSON.stringify({ plan }) + '\n');
      if (plan.inputs === 0 && !plan.id) throw new UsageError('Nothing to collect: no line names an input (see above).');
      if (o.dryRun) io.stderr.write('Dry run: nothing saved, nothing spent.\n');
      else io.stderr.write(`Saved as plan "${plan.name}"; nothing spent. Run it with: loupe collect run "${plan.name}"\n`);
    });

  cmd
    .command('run')
    .description(
      'run a plan (or continue an unfinished run: after a cancel or a crash each input goes on from where it stopped, nothing paid twice)',
    )
    .argument('<plan>', 'the plan’s name or id')
    .option('--budget <credits>', 'a ceiling for this run (instead of the plan’s)', intBetween('--budget', 0, 1e12))
    .option('-y, --yes', 'approve a plan whose ceiling is above your confirmation threshold')
    .option('--json', 'the final status as JSON on stdout')
    .action((name: string, o: RunFlags) => runPlanCommand(io, c, opts, name, o));

  cmd
    .command('status')
    .description('plans and how far they got (one plan: its inputs by state, spending against its figures, failures and their reasons)')
    .argument('[plan]', 'a plan’s name or id')
    .option('--json', 'as JSON on stdout')
    .action(async (name: string | undefined, o: { json?: boolean }) => {
      if (name === undefined) {
        const all = await c().call('collect.list', {});
        if (o.json) io.stdout.write(JSON.stringify(all) + '\n');
        else if (all.length === 0) io.stderr.write('No collection plans yet; make one with: loupe collect plan FILE --do …\n');
        else
          for (const p of all)
            io.stdout.write(
              `${p.name}\t${p.status}\t${fmt(p.counts.done + p.counts.held)}/${fmt(p.total)} done\t${fmt(p.spentTotal)} credits\t${p.id}\n`,
            );
        return;
      }
      const st = await c().call('collect.get', { id: name });
      if (!st) throw new UsageError(`No collection plan "${name}"; see: loupe collect status`);
      if (o.json) io.stdout.write(JSON.stringify(st) + '\n');
      else {
        io.stdout.write(describeStatus(st));
        const bad = await c().call('collect.inputs', { id: st.id, state: ['failed', 'skipped'], limit: 20 });
        for (const r of bad.rows) io.stdout.write(`  ${r.state} · ${r.label} (${r.platform}/${r.endpoint}): ${r.reason ?? ''}\n`);
        if (bad.total > bad.rows.length)
          io.stdout.write(`  … and ${fmt(bad.total - bad.rows.length)} more (loupe collect inputs "${st.name}" --state failed,skipped)\n`);
      }
    });

  cmd
    .command('inputs')
    .description('a plan’s inputs as JSON lines (state, reason, pages, credits, items)')
    .argument('<plan>', 'a plan’s name or id')
    .option('--state <list>', 'only these states: waiting, running, done, held, failed, skipped (comma-separated)')
    .action(async (name: string, o: { state?: string }) => {
      const states = o.state ? o.state.split(',').map((s) => s.trim()) : undefined;
      for (let offset = 0; ; offset += 1000) {
        const page = await c().call('collect.inputs', { id: name, ...(states ? { state: states as never } : {}), offset, limit: 1000 });
        for (const r of page.rows) io.stdout.write(JSON.stringify(r) + '\n');
        if (page.rows.length < 1000) break;
      }
    });

  cmd
    .command('cancel')
    .description('mark an interrupted run cancelled (a run in this terminal stops with Ctrl-C)')
    .argument('<plan>', 'a plan’s name or id')
    .action(async (name: string) => {
      const st = await c().call('collect.cancel', { id: name });
      io.stderr.write(describeStatus(st));
    });
}
