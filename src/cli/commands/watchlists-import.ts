/**
 * `loupe watch import FILE --list NAME --endpoint platform/path` — many accounts into one
 * watchlist (issue 16): a list of handles / profile addresses (one a line) or a CSV with a
 * handle, username or url column; `-` reads standard input. Prints what it would add, every
 * duplicate and every line it cannot use (by line number), and one estimate of the imported
 * watches' first run — before anything is created. Creating spends nothing; `loupe watch run`
 * spends, under the list's budgets. See docs/watchlists.md "Importing accounts". The plan and the
 * import are the contract's watchlists.planImport / watchlists.import of the composed app.
 */
import type { Command } from 'commander';
import type { WatchImportPlan } from '../../shared/contract-watch-import';
import type { CliContext } from '../context';
import { UsageError } from '../context';
import { ExitError } from '../exit';
import type { Io } from '../io';
import { parseParams, parseTarget } from '../targets';
import { collect, readListFile } from './common';

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const range = (a: number, b: number) => (a === b ? `${fmt(a)}` : `${fmt(a)}–${fmt(b)}`);
const SHOWN = 20;

/** The plan in words: what is added, what is not and why, and the estimate. */
export function describePlan(p: WatchImportPlan): string {
  const out: string[] = [];
  const where = p.list.id ? `watchlist "${p.list.name}" (${p.list.watches} watch(es) now)` : `a new watchlist "${p.list.name}"`;
  out.push(
    `${fmt(p.lines)} line(s) read${p.column ? ` (CSV, column "${p.column}")` : ''}: ${fmt(p.accounts.length)} account(s) to add to ${where} on ${p.platform}/${p.endpoint}.`,
  );
  if (p.duplicates.length) {
    out.push(`${fmt(p.duplicates.length)} duplicate(s), not added again:`);
    for (const d of p.duplicates.slice(0, SHOWN))
      out.push(`  line ${d.line}: ${d.account} — ${d.sameAs === null ? 'already in the watchlist' : `same account as line ${d.sameAs}`}`);
    if (p.duplicates.length > SHOWN) out.push(`  … and ${fmt(p.duplicates.length - SHOWN)} more (--json lists all)`);
  }
  if (p.problems.length) {
    out.push(`${fmt(p.problems.length)} line(s) not imported:`);
    for (const x of p.problems.slice(0, SHOWN))
      out.push(`  line ${x.line}: ${JSON.stringify(x.text.length > 80 ? x.text.slice(0, 80) + '…' : x.text)} — ${x.reason}`);
    if (p.problems.length > SHOWN) out.push(`  … and ${fmt(p.problems.length - SHOWN)} more (--json lists all)`);
  }
  const e = p.estimate;
  out.push(
    `Estimate for the whole import (nothing is spent by importing): the imported watches' first run, ${range(e.creditsMin, e.creditsMax)} credits over ${fmt(e.requests)} request(s)` +
      `${e.etaMs > 0 ? `, about ${Math.ceil(e.etaMs / 1000)} s` : ''}${e.balance !== null ? `; balance ${fmt(e.balance)}` : ''} (${e.basis}).`,
  );
  if (e.reason) out.push(e.reason);
  return out.join('\n') + '\n';
}

export function registerWatchImport(
  watch: Command,
  io: Io,
  context: () => CliContext,
  call: CliContext['call'],
  confirm: (q: string) => Promise<boolean>,
): void {
  watch
    .command('import')
    .description(
      'add many accounts to a watchlist from a list of handles / profile addresses or a CSV (handle, username or url column); one estimate first',
    )
    .argument('<file>', 'the list or CSV file; - reads standard input')
    .requiredOption('--list <name>', 'the watchlist (created when it does not exist)')
    .requiredOption('--endpoint <platform/path>', 'the list endpoint each account is watched on, e.g. photo_net/profile/posts')
    .option('-p, --param <name=value>', 'a fixed parameter every imported watch carries (repeatable)', collect)
    .option('--backfill <all|pages>', "a new list's first-run depth: 'all' (up to 100 pages) or 1-100 pages; default the newest page")
    .option('--dry-run', 'show what would be imported and the estimate; create nothing')
    .option('-y, --yes', 'create without asking')
    .option('--json', 'the plan (and the result) as JSON on stdout')
    .action(
      async (
        file: string,
        o: { list: string; endpoint: string; param?: string[]; backfill?: string; dryRun?: boolean; yes?: boolean; json?: boolean },
      ) => {
        const t = parseTarget(o.endpoint);
        const params = parseParams(o.param);
        let firstRunPages: number | undefined;
        if (o.backfill !== undefined) {
          const b = o.backfill.trim().toLowerCase();
          firstRunPages = b === 'all' ? 100 : /^\d+$/.test(b) ? Number(b) : NaN;
          if (!Number.isInteger(firstRunPages) || firstRunPages < 1 || firstRunPages > 100)
            throw new UsageError(`--backfill takes all or 1 to 100 pages; got "${o.backfill}".`);
        }
        const text = await readListFile(io, file);
        const existing = (await call('watchlists.list', {})).find((l) => l.name === o.list);
        if (existing && firstRunPages !== undefined)
          throw new UsageError(
            `--backfill sets a new list's first-run depth; "${o.list}" exists (its depth: ${existing.firstRunPages} page(s)). Change it with: loupe watch add … --list "${o.list}" --backfill ${o.backfill}`,
          );
        // the base URL checked before the service is reached (a bad one: exit 2, nothing sent)
        await context().api();
        const input = {
          text,
          platform: t.platform,
          endpoint: t.endpoint,
          list: existing ? { id: existing.id } : { name: o.list },
          params,
          ...(firstRunPages ? { firstRunPages } : {}),
        };
        let plan: WatchImportPlan;
        try {
          plan = await call('watchlists.planImport', input);
        } catch (e) {
          if ((e as { kind?: string }).kind === 'validation') throw new UsageError((e as Error).message);
          throw e;
        }
        io.stderr.write(describePlan(plan));
        if (plan.accounts.length === 0) {
          if (o.json) io.stdout.write(JSON.stringify({ plan }) + '\n');
          throw new UsageError('Nothing to import: no line names an account that is not already watched (see above).');
        }
        if (o.dryRun) {
          if (o.json) io.stdout.write(JSON.stringify({ plan }) + '\n');
          io.stderr.write('Dry run: nothing created.\n');
          return;
        }
        if (!o.yes && !(await confirm(`Create ${fmt(plan.accounts.length)} watch(es) in "${plan.list.name}"?`))) {
          if (o.json) io.stdout.write(JSON.stringify({ plan }) + '\n');
          throw new ExitError('not_approved', 'Nothing created: confirm at the prompt, or re-run with --yes.');
        }
        const r = await call('watchlists.import', input);
        if (o.json) io.stdout.write(JSON.stringify({ plan: r.plan, watchlist: r.watchlist, added: r.added }) + '\n');
        io.stderr.write(
          `${existing ? `Added ${fmt(r.added)} watch(es) to "${r.watchlist.name}"` : `Created watchlist "${r.watchlist.name}" with ${fmt(r.added)} watch(es)`} (${fmt(r.watchlist.watches.length)} in all). Nothing spent. Run it with: loupe watch run "${r.watchlist.name}"\n`,
        );
      },
    );
}
