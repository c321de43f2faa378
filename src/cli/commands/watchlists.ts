/**
 * `loupe watch add|list|run|history` — watchlists from the command line (for cron or a server).
 * The composition's watchlist service (onDemandWatchFactory: the app's own without the scheduler,
 * built on first use), reached through the contract's `watchlists.*` methods only; `watch run`
 * records its runs' trigger as 'cli'.
 */
import { scheduleWords } from '../../shared/durations';
import type { Command } from 'commander';
import type { WatchlistInfo, WatchRunInfo } from '../../shared/contract';
import type { CliContext } from '../context';
import { UsageError } from '../context';
import { ExitError } from '../exit';
import type { Io } from '../io';
import { interruptOf } from '../interrupt';
import { guardOf } from '../output';
import { parseParams, parseTarget } from '../targets';
import { progress } from '../terminal';
import { registerWatchImport } from './watchlists-import';
import type { AsksFirst } from './common';

const fmt = (n: number) => n.toLocaleString('en-US');

/** `6h`, `90m`, `1d`, `2.5h` → hours */
export function parseEvery(s: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(m|h|d)?\s*$/i.exec(s);
  if (!m) throw new UsageError(`--every takes a duration like 6h, 90m or 1d; got "${s}".`);
  const n = Number(m[1]);
  const unit = (m[2] ?? 'h').toLowerCase();
  const hours = unit === 'm' ? n / 60 : unit === 'd' ? n * 24 : n;
  if (!(hours > 0) || hours > 24 * 31) throw new UsageError('--every must be between 1 minute and 31 days.');
  return hours;
}

function collect(v: string, prev: string[] = []): string[] {
  return [...prev, v];
}

function describeRun(r: WatchRunInfo, name: string): string {
  const lines = [
    `${name}: ${r.status}${r.complete ? ', complete' : ''} · ${fmt(r.newItems)} new item(s) · ${fmt(r.creditsSpent)} credits${r.alerts ? ` · ${r.alerts} alert(s)` : ''}`,
  ];
  if (r.message) lines.push(`  ${r.message}`);
  for (const w of r.watches) {
    lines.push(
      `  - ${w.watchId}: ${w.pages} page(s), ${fmt(w.credits)} credits, ${w.newItems} new, ${w.complete ? 'complete' : 'INCOMPLETE'}${w.stopReason ? ` (${w.stopReason})` : ''}`,
    );
    if (w.gap) lines.push(`    gap: ${w.gap}`);
  }
  return lines.join('\n') + '\n';
}

/** One watchlist in `watch list`: its line, and the schedule's note when it has one. */
function listLines(w: WatchlistInfo): string {
  const line = `${w.name}  ${w.watches.length} watch(es) · ${scheduleWords(w.schedule)}${w.paused ? ' · paused' : ''}${w.budgetPerRun !== null ? ` · budget ${fmt(w.budgetPerRun)}/run` : ''}${w.forecast ? ` · forecast ~${fmt(w.forecast.perRunCredits)}/run, ~${fmt(w.forecast.perMonthCredits)}/month` : w.forecastNote ? ` · no forecast yet: ${w.forecastNote}` : ''}\n`;
  return w.scheduleNote ? `${line}  note: ${w.scheduleNote} (loupe watch add … --list "${w.name}" --budget N)\n` : line;
}

/** `loupe watch list`: a line or two per watchlist, or JSON. */
function printLists(io: Io, all: WatchlistInfo[], json: boolean): void {
  if (json) return void io.stdout.write(JSON.stringify(all) + '\n');
  if (all.length === 0) io.stderr.write('No watchlists. Add one with: loupe watch add <platform>/<path> -p name=value --list NAME\n');
  for (const w of all) io.stdout.write(listLines(w));
}

/**
 * `loupe watch run`: one watchlist or all, one after the other. Ctrl-C / SIGTERM cancel the run in
 * progress (watchlists.cancel) and start no further list; so does a reader that left stdout.
 */
async function runWatchlists(
  io: Io,
  context: () => CliContext,
  { call, byName }: { call: CliContext['call']; byName: (nameOrId: string) => Promise<WatchlistInfo> },
  name: string | undefined,
  o: { all?: boolean; yes?: boolean; json?: boolean },
): Promise<void> {
  if (!name && !o.all) throw new UsageError('Name a watchlist or pass --all.');
  if (name && o.all) throw new UsageError('Name a watchlist or pass --all, not both.');
  const chosen = o.all ? (await call('watchlists.list', {})).filter((w) => !w.paused) : [await byName(name as string)];
  const runs: WatchRunInfo[] = [];
  let notApproved: string | null = null;
  let incomplete = false;
  // the base URL checked before the service is reached (a bad one: exit 2, nothing sent)
  await context().api();
  // Ctrl-C / SIGTERM cancel the run in progress (watchlists.cancel: before the next request,
  // the page in flight awaited and recorded) and no further list starts (./interrupt.ts);
  // a reader that left stdout (`| head -1`) stops the next list too
  const interrupt = interruptOf(io);
  const guard = guardOf(io);
  let current: string | null = null;
  const offSig = interrupt.onStop(() => {
    if (io.stderr.isTTY) io.stderr.write('\nStopping after the request in flight (again to stop at once)…\n');
    // (a run that has not registered yet is asked again until it has, or has ended)
    const cancel = async (): Promise<void> => {
      for (let i = 0; current && i < 100; i++) {
        if (await call('watchlists.cancel', { id: current }).catch(() => false)) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    void cancel();
  });
  try {
    for (const wl of chosen) {
      if (interrupt.by || guard.closed) break;
      current = wl.id;
      const r = await call('watchlists.run', { id: wl.id, approved: !!o.yes, trigger: 'cli' });
      current = null;
      progress(io.stderr, '');
      runs.push(r);
      if (interrupt.by) {
        const spent = runs.reduce((t, x) => t + x.creditsSpent, 0);
        throw new ExitError(
          'cancelled',
          `Stopped (${interrupt.by}) before the next request: ${fmt(spent)} credits spent, every charge recorded; "${wl.name}" ${r.status === 'cancelled' ? 'was cut short — its next run resumes its watches' : `ended ${r.status}`}; run again with: loupe watch run ${o.all ? '--all' : JSON.stringify(wl.name)}`,
        );
      }
      if (!o.json) io.stdout.write(describeRun(r, wl.name));
      if (r.status === 'over_budget') notApproved = r.message ?? `"${wl.name}" needs approval: re-run with --yes.`;
      else if (!r.complete) incomplete = true;
    }
  } finally {
    offSig();
  }
  if (o.json) io.stdout.write(JSON.stringify(runs) + '\n');
  if (notApproved)
    throw new ExitError('not_approved', `${notApproved}${/--yes/.test(notApproved) ? '' : ' Re-run with --yes to approve.'}`);
  if (incomplete) io.stderr.write('Some watches are incomplete; the next run resumes them (see the gaps above).\n');
}

export function registerWatchCommands(program: Command, io: Io, context: () => CliContext, _opts: AsksFirst): void {
  let listening = false;
  /** the contract's watchlists.* methods of the composed app, its runs' progress lines on a terminal */
  const call: CliContext['call'] = (method, input) => {
    const c = context();
    if (!listening) {
      listening = true;
      c.on((e) => {
        if (e.type === 'watch-run' && e.run.status === 'running' && io.stderr.isTTY)
          progress(
            io.stderr,
            `${fmt(e.run.pagesDone ?? 0)} page(s) · ${fmt(e.run.creditsSpent)} credits${e.run.etaMs ? ` · ETA ${Math.ceil(e.run.etaMs / 1000)} s` : ''}`,
          );
      });
    }
    return c.call(method, input);
  };
  const byName = async (nameOrId: string): Promise<WatchlistInfo> => {
    const all = await call('watchlists.list', {});
    const w = all.find((x) => x.name === nameOrId) ?? all.find((x) => x.id === nameOrId);
    if (!w) throw new UsageError(`No watchlist named "${nameOrId}"; see: loupe watch list`);
    return w;
  };

  const watch = program.command('watch').description('watchlists: incremental refreshes that never miss data and never overspend');

  watch
    .command('add')
    .description('add a watch (one endpoint call) to a watchlist, creating the list if needed')
    .argument('<endpoint>', 'platform/path, e.g. photo_net/profile/posts')
    .option('-p, --param <name=value>', 'a query parameter (repeatable)', collect)
    .requiredOption('--list <name>', 'the watchlist')
    .option('--every <duration>', 'schedule: every 6h, 90m, 1d')
    .option('--cron <expr>', 'schedule: a cron expression, e.g. "0 */6 * * *"')
    .option('--budget <credits>', 'per-run budget in credits')
    .option('--month-budget <credits>', 'per-month budget in credits')
    .option('--label <text>', 'a label for this watch')
    .option(
      '--backfill <all|pages|date>',
      "how deep the first run reads (the baseline): 'all' (up to 100 pages), a number of pages 1-100, or a date YYYY-MM-DD (everything since; date-ordered feeds only). Default: the newest page",
    )
    .action(
      async (
        target: string,
        o: {
          param?: string[];
          list: string;
          every?: string;
          cron?: string;
          budget?: string;
          monthBudget?: string;
          label?: string;
          backfill?: string;
        },
      ) => {
        if (o.every && o.cron) throw new UsageError('Use either --every or --cron, not both.');
        const t = { ...parseTarget(target), params: parseParams(o.param) };
        await context().api();
        const ep = await context().call('catalogue.endpoint', { platform: t.platform, endpoint: t.endpoint });
        if (!ep) throw new UsageError(`${t.platform}/${t.endpoint} is not in the catalogue; see: loupe endpoints`);
        // --backfill: the first run's depth (issue 14 #8); its estimate is printed before anything runs
        let firstRunPages: number | undefined;
        if (o.backfill !== undefined) {
          const b = o.backfill.trim().toLowerCase();
          if (b === 'all') firstRunPages = 100;
          else if (/^\d+$/.test(b)) {
            firstRunPages = Number(b);
            if (firstRunPages < 1 || firstRunPages > 100) throw new UsageError(`--backfill takes 1 to 100 pages; got ${b}.`);
          } else if (/^\d{4}-\d{2}-\d{2}$/.test(b) && Number.isFinite(Date.parse(b))) {
            const has = (n: string) => ep.params.some((p) => p.name === n);
            if (!has('since') || !has('stop_at_id'))
              throw new UsageError(
                `--backfill ${b}: ${t.platform}/${t.endpoint} is not a date-ordered feed (it does not accept since and stop_at_id), so a date cannot bound its first run; use a number of pages.`,
              );
            t.params = { ...t.params, since: b };
            firstRunPages = 100;
          } else throw new UsageError(`--backfill takes all, a number of pages (1-100) or a date YYYY-MM-DD; got "${o.backfill}".`);
        }
        const v = await context().call('api.validate', t);
        if (!v.ok) throw new UsageError(v.message ?? `${t.platform}/${t.endpoint} does not fit the catalogue.`);
        const num = (name: string, s?: string): number | undefined => {
          if (s === undefined) return undefined;
          const n = Number(s);
          if (!Number.isInteger(n) || n < 0) throw new UsageError(`${name} takes a whole number of credits; got "${s}".`);
          return n;
        };
        const schedule = o.every ? { everyHours: parseEvery(o.every) } : o.cron ? { cron: o.cron } : undefined;
        const budgetPerRun = num('--budget', o.budget);
        const budgetPerMonth = num('--month-budget', o.monthBudget);
        const all = await call('watchlists.list', {});
        let wl = all.find((x) => x.name === o.list);
        if (!wl) {
          wl = await call('watchlists.create', {
            name: o.list,
            schedule: schedule ?? null,
            budgetPerRun: budgetPerRun ?? null,
            budgetPerMonth: budgetPerMonth ?? null,
            ...(firstRunPages ? { firstRunPages } : {}),
          });
          io.stderr.write(`Created watchlist "${o.list}".\n`);
        } else if (schedule || budgetPerRun !== undefined || budgetPerMonth !== undefined || firstRunPages !== undefined) {
          wl = await call('watchlists.update', {
            id: wl.id,
            patch: {
              ...(schedule ? { schedule } : {}),
              ...(budgetPerRun !== undefined ? { budgetPerRun } : {}),
              ...(budgetPerMonth !== undefined ? { budgetPerMonth } : {}),
              ...(firstRunPages !== undefined ? { firstRunPages } : {}),
            },
          });
        }
        wl = await call('watchlists.addWatch', { id: wl.id, watch: { ...t, ...(o.label ? { label: o.label } : {}) } });
        io.stderr.write(
          `Watching ${t.platform}/${t.endpoint} in "${wl.name}" (${wl.watches.length} watch(es), ${scheduleWords(wl.schedule)}).\n`,
        );
        if (wl.scheduleNote) io.stderr.write(`Note: ${wl.scheduleNote} Add --budget N to this command to set one.\n`);
        const est = await call('watchlists.estimate', { id: wl.id });
        io.stderr.write(
          `Next run (nothing spent yet): ${fmt(est.creditsMin)}–${fmt(est.creditsMax)} credits over ${est.requests} request(s)${o.backfill ? `; first run reads ${o.backfill.toLowerCase() === 'all' ? 'everything (up to 100 pages)' : /-/.test(o.backfill) ? `everything since ${o.backfill} (up to 100 pages)` : `${firstRunPages} page(s)`}` : ''}. Run it with: loupe watch run "${wl.name}"\n`,
        );
      },
    );

  watch
    .command('list')
    .description('every watchlist: its watches, schedule, budget per run and forecast')
    .option('--json', 'JSON output')
    .action(async (o: { json?: boolean }) => printLists(io, await call('watchlists.list', {}), o.json === true));

  watch
    .command('run')
    .description('refresh a watchlist (or all) now; over-budget runs need --yes')
    .argument('[name]', 'watchlist name or id')
    .option('--all', 'every watchlist that is not paused')
    .option('-y, --yes', 'approve a run whose estimate exceeds its budget / ask threshold')
    .option('--json', 'JSON output')
    .action((name: string | undefined, o: { all?: boolean; yes?: boolean; json?: boolean }) =>
      runWatchlists(io, context, { call, byName }, name, o),
    );

  watch
    .command('history')
    .description('the runs of a watchlist: when each started, what it fetched and spent, and how it ended')
    .argument('<name>', 'watchlist name or id')
    .option('--json', 'JSON output')
    .action(async (name: string, o: { json?: boolean }) => {
      const wl = await byName(name);
      const h = await call('watchlists.history', { id: wl.id });
      if (o.json) return void io.stdout.write(JSON.stringify(h) + '\n');
      if (h.length === 0) io.stderr.write(`No runs yet. Run it with: loupe watch run "${wl.name}"\n`);
      for (const r of h) io.stdout.write(`${new Date(r.startedAt).toISOString()}  ` + describeRun(r, wl.name));
    });

  registerWatchImport(watch, io, context, call, _opts.confirm);
}
