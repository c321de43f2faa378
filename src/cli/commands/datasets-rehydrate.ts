/**
 * `loupe dataset rehydrate <bundle>` (issue 29, docs/datasets.md "Rehydrate"): a dehydrated bundle's
 * items collected again — priced now as one plan and shown beside the bundle's own quote, nothing
 * spent without `--yes`, an answer at the prompt or a `--max-credits` ceiling; an unfinished
 * rehydration of the same bundle (a cancel, a crash, a ceiling reached) continues. Calls the
 * local doors' `local.rehydratePlan` and `local.rehydrate` only (the bundle at a path: src/shared/contract-local.ts).
 */
import type { Command } from 'commander';
import type { RehydratePlan, RehydrateReport } from '../../shared/contract-datasets';
import { UsageError, type CliContext } from '../context';
import { describePlan, describeStatus, fmt } from '../collect-words';
import { ExitError } from '../exit';
import type { Io } from '../io';
import { interruptOf } from '../interrupt';
import { stopCollectRunsOnSignal } from '../collect-stop';
import type { AsksFirst } from './common';

function pages(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 100) throw new UsageError(`--pages takes a whole number from 1 to 100, not "${v}".`);
  return n;
}

function credits(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 1e12) throw new UsageError(`--max-credits takes a whole number of credits, not "${v}".`);
  return n;
}

export function describeRehydratePlan(p: RehydratePlan): string {
  const out: string[] = [`Bundle ${p.root.slice(0, 16)}…: ${fmt(p.items)} item(s) from ${fmt(p.calls)} call(s).`];
  const q = p.quoted;
  out.push(
    q
      ? `The bundle's quote (${q.quoted_at}, stale): ${fmt(q.credits_min)}–${fmt(q.credits_max)} credits, likely ${fmt(q.credits_likely)}, ${fmt(q.requests)} request(s).`
      : 'The bundle carries no quote.',
  );
  if (p.held) out.push(`${fmt(p.held)} item(s) already held here inside their cache window: free, no call.`);
  if (p.cannotCount) {
    out.push(`${fmt(p.cannotCount)} item(s) cannot be re-collected:`);
    for (const c of p.cannot.slice(0, 10)) out.push(`  ${c.key}: ${c.reason}`);
  }
  if (p.resume)
    out.push(`This archive already rehydrated this bundle (plan "${p.resume.name}", ${p.resume.status}): running continues it.`);
  const head = out.join('\n') + '\n';
  if (!p.plan) return head + 'Today: nothing to collect.\n';
  return head + 'Today:\n' + describePlan(p.plan);
}

export function describeRehydrateReport(r: RehydrateReport): string {
  const c = r.counts;
  const out = [
    `Rehydrated bundle ${r.root.slice(0, 16)}…: ${fmt(c.recollected)} re-collected, ${fmt(c.held)} already held (free), ${fmt(c.unavailable)} unavailable (not found: deleted or private), ${fmt(c.missing)} not in the answers, ${fmt(c.failed + c.pending)} failed or not read — of ${fmt(r.items)}.`,
  ];
  for (const x of r.notRecollected.slice(0, 20)) out.push(`  ${x.key}: ${x.state}${x.reason ? ` — ${x.reason}` : ''}`);
  if (r.notRecollected.length > 20) out.push(`  … (--json lists the first ${r.notRecollected.length})`);
  out.push(
    r.verify.ok
      ? `Checked: all ${fmt(r.verify.present)} key(s) of the bundle are in this archive.`
      : `Checked: ${fmt(r.verify.present)} of ${fmt(r.items)} key(s) are in this archive; ${fmt(r.verify.absent)} are not (named above${r.verify.absent > r.verify.absentKeys.length ? `; --json names the first ${r.verify.absentKeys.length}` : ''}).`,
  );
  if (r.plan) out.push(`Saved set and plan: "${r.plan}" (loupe collect status "${r.plan}").`);
  return out.join('\n') + '\n';
}

export function registerRehydrateCommand(cmd: Command, io: Io, c: () => CliContext, opts: AsksFirst): void {
  cmd
    .command('rehydrate')
    .description(
      "re-collect a dehydrated bundle's items, priced now as one plan (beside the bundle's quote); nothing spent without --yes, a yes at the prompt or --max-credits; resumes an unfinished one",
    )
    .argument('<bundle>', 'the dehydrated bundle folder or .zip')
    .option('-y, --yes', "approve the plan's price")
    .option('--max-credits <credits>', 'one ceiling for the re-collection (the approval): what does not fit is not sent', credits)
    .option('--pages <n>', "pages per list walk (default: as deep as the bundle's walks went)", pages)
    .option('--dry-run', 'price it only: nothing saved, nothing spent')
    .option('--json', 'the plan (dry run) or the report as JSON on stdout')
    .action(async (dir: string, o: { yes?: boolean; maxCredits?: number; pages?: number; dryRun?: boolean; json?: boolean }) => {
      await c().api();
      const budget = {
        ...(o.maxCredits !== undefined ? { budget: o.maxCredits } : {}),
        ...(o.pages !== undefined ? { pages: o.pages } : {}),
      };
      const p = await c().local('local.rehydratePlan', { dir, ...budget });
      io.stderr.write(describeRehydratePlan(p));
      if (o.dryRun) {
        if (o.json) io.stdout.write(JSON.stringify(p) + '\n');
        io.stderr.write('Dry run: nothing saved, nothing spent.\n');
        return;
      }
      const input = { dir, approved: o.yes ?? false, ...budget };
      let r: RehydrateReport;
      const offSig = stopCollectRunsOnSignal(io, c);
      try {
        r = await c().local('local.rehydrate', input);
      } catch (e) {
        if ((e as { kind?: string }).kind !== 'not_approved' || o.yes) throw e;
        if (!(await opts.confirm(`${(e as Error).message.replace(/ Approve it.*$/, '')} Re-collect?`))) throw e;
        r = await c().local('local.rehydrate', { ...input, approved: true });
      } finally {
        offSig();
      }
      const by = interruptOf(io).by;
      if (by && r.status?.status === 'cancelled')
        throw new ExitError(
          'cancelled',
          `Stopped (${by}) before the next request: ${fmt(r.status.spent)} credits spent, every charge recorded; continue with: loupe dataset rehydrate ${JSON.stringify(dir)}`,
        );
      if (r.status) io.stderr.write(describeStatus(r.status));
      io.stderr.write(describeRehydrateReport(r));
      if (o.json) io.stdout.write(JSON.stringify(r) + '\n');
      const st = r.status?.status;
      if (st === 'partial' || st === 'cancelled' || st === 'failed' || st === 'interrupted')
        throw new ExitError(
          st === 'cancelled' ? 'cancelled' : 'local_budget',
          `Not finished (${st}): ${r.status?.message ?? ''} Continue with: loupe dataset rehydrate ${JSON.stringify(dir)} [--max-credits N]`,
        );
    });
}
