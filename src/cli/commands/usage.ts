/**
 * `loupe credits` (GET /v1/credits, free) and `loupe credits --reconcile`: the ledger against the
 * balance's movement (docs/cli.md).
 */
import type { Command } from 'commander';
import type { ReconcileGap, ReconcileReport } from '../../shared/ledger';
import { UsageError, type CliContext } from '../context';
import { ExitError } from '../exit';
import type { Io } from '../io';

const fmt = (n: number) => n.toLocaleString('en-US');

const iso = (ms: number) => new Date(ms).toISOString();

function describeGap(g: ReconcileGap, n: number): string {
  const ids =
    g.requestIds.length > 0
      ? `requests ${g.requestIds.slice(0, 3).join(', ')}${g.requestIds.length > 3 ? ` … ${g.requestIds[g.requestIds.length - 1]}` : ''}`
      : 'no request ids';
  const recorded = `the ledger records ${fmt(g.expected)} spent${g.inferred ? ` (${fmt(g.inferred)} inferred for lost answers)` : ''}`;
  const what =
    g.kind === 'top_up_or_refund'
      ? `the balance went up ${fmt(-g.observed)} where ${recorded}: a top-up or refund of ${fmt(-g.difference)}`
      : g.kind === 'unrecorded_spending'
        ? g.atLeast
          ? `the balance dropped ${fmt(g.observed)} from the ledger's first reading while attempts were in flight together, and the ledger records at most ${fmt(g.expected)} spent after it${g.inferred ? ` (${fmt(g.inferred)} inferred for lost answers in the step)` : ''}: at least ${fmt(g.difference)} more went than recorded (a charge for an answer that never arrived — a run killed with requests in flight — or spending by another tool or key on the account)`
          : `the balance dropped ${fmt(g.observed)} and ${recorded}: ${fmt(g.difference)} more went than recorded (spending by another tool or key on the account, or a charge for an answer that never arrived)`
        : `the balance dropped ${fmt(g.observed)} and ${recorded}: ${fmt(-g.difference)} less went than recorded (a refund, or a recorded charge the service did not make)`;
  return `Gap ${n}: ${iso(g.from)} → ${iso(g.to)} (ledger rows ${g.fromId}–${g.toId}, ${g.rows} row(s), ${ids}): ${what}.\n`;
}

function reconcileText(r: ReconcileReport, live: number | null): string {
  const lines: string[] = [];
  if (r.rows === 0) return 'The ledger is empty (for this range): nothing to reconcile.\n';
  lines.push(
    `Ledger: ${fmt(r.rows)} row(s) from ${iso(r.firstAt as number)} to ${iso(r.lastAt as number)}, ${fmt(r.readings)} balance reading(s), ${fmt(r.recorded)} credits recorded${r.inferred ? ` (${fmt(r.inferred)} inferred for lost answers)` : ''}.\n`,
  );
  r.gaps.forEach((g, i) => lines.push(describeGap(g, i + 1)));
  if (r.gaps.length === 0 && r.readings > 1) lines.push('Between readings the balance moved exactly as the ledger records.\n');
  if (r.last) {
    const since = r.recordedSinceLast ? `, minus ${fmt(r.recordedSinceLast)} recorded after it` : '';
    lines.push(
      `Last known balance ${fmt(r.last.balance)} (after request ${r.last.requestId ?? '(no id)'} at ${iso(r.last.at)}${since}): expected now ${fmt(r.expectedBalance as number)}; GET /v1/credits says ${live === null ? 'no balance figure' : fmt(live)}${live === null ? '' : live === r.expectedBalance ? ': they agree' : `: a difference of ${fmt(live - (r.expectedBalance as number))}`}.\n`,
    );
  } else lines.push(`No ledger row carries a balance yet; GET /v1/credits says ${live === null ? 'no balance figure' : fmt(live)}.\n`);
  return lines.join('');
}

function parseSince(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const t = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) ? Date.parse(v) : NaN;
  if (Number.isNaN(t)) throw new UsageError(`--since takes a date (YYYY-MM-DD) or an ISO 8601 time; got "${v}".`);
  return t;
}

export function registerCreditsCommand(program: Command, io: Io, context: () => CliContext): void {
  program
    .command('credits')
    .description('balance and this period’s usage (GET /v1/credits, free); --reconcile compares the ledger with the balance')
    .option('--reconcile', 'walk the ledger: list every place the balance did not move as recorded, then compare with GET /v1/credits')
    .option('--since <date>', 'with --reconcile: only ledger rows from this date (YYYY-MM-DD) or time on')
    .option('--json', 'with --reconcile: JSON output')
    .action(async (o: { reconcile?: boolean; since?: string; json?: boolean }) => {
      if (!o.reconcile) {
        if (o.since !== undefined || o.json) throw new UsageError('--since and --json go with --reconcile.');
        const c = context();
        await c.api();
        io.stdout.write(JSON.stringify(await c.call('credits.answer', {})) + '\n');
        return;
      }
      const since = parseSince(o.since);
      const c = context();
      await c.api(); // the base URL checked first; without one the in-process sandbox starts
      if (c.sandbox)
        io.stderr.write(
          'Note: this compares the ledger with the in-process sandbox’s balance; set --base-url to reconcile with the service.\n',
        );
      const answer = await c.call('credits.reconcile', { since });
      const { live, agree, ...report } = answer;
      if (o.json) io.stdout.write(JSON.stringify(answer) + '\n');
      else io.stdout.write(reconcileText(report, live));
      if (!agree) {
        const parts: string[] = [];
        if (report.gaps.length) parts.push(`${report.gaps.length} gap(s) between balance readings`);
        if (live !== null && report.expectedBalance !== null && live !== report.expectedBalance)
          parts.push(`the balance is ${fmt(live)} where the ledger expects ${fmt(report.expectedBalance)}`);
        throw new ExitError('ledger_mismatch', `The ledger and the balance differ: ${parts.join('; ')} (see above).`);
      }
    });
}
