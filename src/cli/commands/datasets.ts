/**
 * `loupe dataset recheck | attrition` (issue 29, docs/datasets.md): a set's (or a query's) posts read
 * again through single-item endpoints — priced as one plan first, one approval — and the attrition
 * report. Every command calls the contract's `datasets.*` methods of the composed app.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { AttritionRow, DatasetTarget } from '../../shared/contract-datasets';
import type { MethodInput } from '../../shared/contract';
import { analysisJson, csvTable } from '../../shared/analysis-csv';
import { UsageError, type CliContext } from '../context';
import { describePlan, describeStatus, fmt } from '../collect-words';
import { ExitError } from '../exit';
import type { Io } from '../io';
import { interruptOf } from '../interrupt';
import { progress } from '../terminal';
import { stopCollectRunsOnSignal } from '../collect-stop';
import { libraryQueryOf, withQueryFlags, type QueryFlags } from '../query-flags';
import { registerRehydrateCommand } from './datasets-rehydrate';
import { intBetween, type AsksFirst } from './common';

/** A saved set by name or id, else the query flags (the whole archive when none is given). */
export async function targetOf(c: CliContext, set: string | undefined, o: QueryFlags): Promise<DatasetTarget> {
  if (set !== undefined) return { set };
  return { query: await libraryQueryOf(o, c) };
}

export function attritionCsv(rows: AttritionRow[], bom = true): string {
  return csvTable(
    ['platform', 'month', 'available', 'unavailable', 'not_rechecked'],
    rows.map((r) => [r.platform, r.month, r.available, r.unavailable, r.notRechecked]),
    { bom },
  );
}

/** The same report as JSON, named as its CSV's columns (snake_case, as every file Loupe writes: docs/analysis.md "Files"). */
export function attritionJson(rows: AttritionRow[]): string {
  return JSON.stringify(analysisJson(rows)) + '\n';
}

function attritionWords(rows: AttritionRow[]): string {
  const t = rows.reduce((s, r) => ({ a: s.a + r.available, u: s.u + r.unavailable, n: s.n + r.notRechecked }), { a: 0, u: 0, n: 0 });
  const all = t.a + t.u + t.n;
  const pct = (x: number) => (all === 0 ? '0' : ((100 * x) / all).toFixed(1));
  return `${fmt(all)} item(s): ${fmt(t.a)} available (${pct(t.a)} %), ${fmt(t.u)} unavailable (${pct(t.u)} %), ${fmt(t.n)} not re-checked (${pct(t.n)} %).\n`;
}

/**
 * `-` is standard output elsewhere (docs/cli.md "Pipes"); a bundle is several files: refused as the
 * flags are read (exit 2), never a folder named "-".
 */
function notStdout(out: string): string {
  if (out === '-')
    throw new InvalidArgumentError('A bundle is a folder or a .zip, not a stream: give --out a folder or a file ending in .zip.');
  return out;
}

/** `loupe dataset recheck` once priced: runs it (asking above the threshold) and reports; Ctrl-C / SIGTERM cancel its plan's run. */
async function recheck(io: Io, c: () => CliContext, opts: AsksFirst, input: MethodInput<'datasets.recheck'>, json: boolean): Promise<void> {
  const o = { yes: input.approved, json };
  let r;
  const offSig = stopCollectRunsOnSignal(io, c);
  try {
    r = await c().call('datasets.recheck', input);
  } catch (e) {
    if ((e as { kind?: string }).kind !== 'not_approved' || o.yes) throw e;
    if (!(await opts.confirm(`${(e as Error).message.replace(/ Approve it.*$/, '')} Re-check?`))) throw e;
    r = await c().call('datasets.recheck', { ...input, approved: true });
  } finally {
    offSig();
  }
  const by = interruptOf(io).by;
  if (by && r.status.status === 'cancelled')
    throw new ExitError(
      'cancelled',
      `Stopped (${by}) before the next request: ${fmt(r.status.spent)} credits spent, every charge recorded; continue with: loupe dataset recheck --plan "${r.status.name}"`,
    );
  io.stderr.write(describeStatus(r.status));
  io.stderr.write(`This re-check: ${fmt(r.found)} found, ${fmt(r.missing)} not found (unavailable), ${fmt(r.notRead)} not read.\n`);
  io.stderr.write(attritionWords(r.attrition));
  if (o.json) io.stdout.write(JSON.stringify(r) + '\n');
  if (r.status.status === 'partial')
    throw new ExitError(
      'local_budget',
      `Not finished: ${r.status.message ?? ''} Continue with: loupe dataset recheck --plan "${r.status.name}" [--budget N]`,
    );
  if (r.status.status === 'cancelled')
    throw new ExitError('cancelled', `Cancelled; continue with: loupe dataset recheck --plan "${r.status.name}"`);
}

export function registerDatasetCommands(program: Command, io: Io, c: () => CliContext, opts: AsksFirst): void {
  const cmd = program
    .command('dataset')
    .description('datasets that hold up in a methods section: re-check and attrition, bundles (docs/datasets.md)');

  withQueryFlags(
    cmd
      .command('recheck')
      .description(
        "read a set's posts again through each network's single-item endpoint, priced as one plan first; marks each available or unavailable (never deletes)",
      )
      .argument('[set]', 'a saved set, by name or id (else the query flags)')
      .option('--budget <credits>', 'one ceiling for the re-check (then it runs without asking)', intBetween('--budget', 0, 1e12))
      .option('-y, --yes', 'approve a plan whose ceiling is above your confirmation threshold')
      .option('--plan <name>', 'continue an unfinished re-check plan (after a cancel, a crash or a budget stop)')
      .option('--dry-run', 'price it only: nothing saved, nothing spent')
      .option('--json', 'the result as JSON on stdout'),
  ).action(
    async (
      set: string | undefined,
      o: QueryFlags & { budget?: number; yes?: boolean; plan?: string; dryRun?: boolean; json?: boolean },
    ) => {
      await c().api();
      const target = await targetOf(c(), set, o);
      if (o.dryRun) {
        const p = await c().call('datasets.recheckPlan', { target, ...(o.budget !== undefined ? { budget: o.budget } : {}) });
        io.stderr.write(
          `${fmt(p.items)} item(s); ${fmt(p.plan.inputs)} to read again; ${fmt(p.notRecheckableCount)} cannot be re-checked.\n`,
        );
        for (const n of p.notRecheckable.slice(0, 10)) io.stderr.write(`  ${n.key}: ${n.reason}\n`);
        io.stderr.write(describePlan(p.plan));
        if (o.json) io.stdout.write(JSON.stringify(p) + '\n');
        io.stderr.write('Dry run: nothing saved, nothing spent.\n');
        return;
      }
      const input = {
        target,
        approved: o.yes ?? false,
        ...(o.budget !== undefined ? { budget: o.budget } : {}),
        ...(o.plan !== undefined ? { plan: o.plan } : {}),
      };
      await recheck(io, c, opts, input, o.json === true);
    },
  );

  withQueryFlags(
    cmd
      .command('attrition')
      .description('available / unavailable / not re-checked, by network and publication month (CSV or JSON on stdout)')
      .argument('[set]', 'a saved set, by name or id (else the query flags)')
      .addOption(new Option('--format <f>', 'csv | json').choices(['csv', 'json']).default('csv'))
      .option('--no-bom', 'CSV without the UTF-8 byte-order mark'),
  ).action(async (set: string | undefined, o: QueryFlags & { format: 'csv' | 'json'; bom: boolean }) => {
    const rows = await c().call('datasets.attrition', { target: await targetOf(c(), set, o) });
    io.stderr.write(attritionWords(rows));
    io.stdout.write(o.format === 'json' ? attritionJson(rows) : attritionCsv(rows, o.bom));
  });
  registerBundleCommands(cmd, io, c, opts);
}

function registerBundleCommands(cmd: Command, io: Io, c: () => CliContext, opts: AsksFirst): void {
  registerBundleExport(cmd, io, c);
  cmd
    .command('verify')
    .description('check every file, row and answer of a bundle against its manifest; names what was changed, dropped or added')
    .argument('<bundle>', 'the bundle folder or .zip')
    .option('--root <sha256>', 'the root hash a methods section cites')
    .option('--archive', 'also check every answer and item against this archive')
    .option('--json', 'the report as JSON on stdout')
    .action(async (dir: string, o: { root?: string; archive?: boolean; json?: boolean }) => {
      if (o.root !== undefined && !/^[0-9a-f]{64}$/.test(o.root))
        throw new UsageError(`--root takes a SHA-256 (64 hex digits); got "${o.root}".`);
      const r = await c().local('local.verifyBundle', { dir, ...(o.root ? { root: o.root } : {}), withArchive: o.archive ?? false });
      for (const p of r.problems) io.stderr.write(`  ${p}\n`);
      for (const n of r.notes) io.stderr.write(`  Note: ${n}\n`);
      io.stderr.write(
        r.ok
          ? `Verified: ${fmt(r.files)} file(s), ${fmt(r.items)} item(s), ${fmt(r.calls)} call(s) as the manifest says. Root hash: ${r.root}\n`
          : `Does not verify: ${fmt(r.problems.length)} problem(s) (above).\n`,
      );
      if (o.json) io.stdout.write(JSON.stringify(r) + '\n');
      if (!r.ok) throw new ExitError('validation', 'The bundle does not match its manifest.');
    });

  cmd
    .command('import')
    .description(
      'merge a bundle that verifies into this archive: each item and answer once, provenance and authors kept, conflicts listed, nothing paid',
    )
    .argument('<bundle>', 'the bundle folder or .zip')
    .option('--json', 'the report as JSON on stdout')
    .action(async (dir: string, o: { json?: boolean }) => {
      const r = await c().local('local.importBundle', { dir });
      io.stderr.write(
        `Imported bundle ${r.root.slice(0, 16)}…: ${fmt(r.calls.stored)} answer(s) stored, ${fmt(r.calls.alreadyHeld)} already held; items ${fmt(r.items.before)} → ${fmt(r.items.after)} (${fmt(r.items.inBundle)} in the bundle); ${fmt(r.readings)} earlier reading(s); ${fmt(r.rechecks)} item(s)' re-check marks restored; ${fmt(r.annotations.added)} annotation(s) added.\n`,
      );
      for (const x of r.conflicts) io.stderr.write(`  conflict: ${x}\n`);
      if (o.json) io.stdout.write(JSON.stringify(r) + '\n');
    });
  registerRehydrateCommand(cmd, io, c, opts);
}

/** `loupe dataset export`: a bundle at --out, stopped by Ctrl-C / SIGTERM with nothing kept. */
function registerBundleExport(cmd: Command, io: Io, c: () => CliContext): void {
  withQueryFlags(
    cmd
      .command('export')
      .description(
        'a set or query as a bundle (a folder, or one .zip): items (CSV, Parquet, JSONL), metric history, annotations with authors, the answers, and manifest.json with checksums and one root hash',
      )
      .argument('[set]', 'a saved set, by name or id (else the query flags)')
      .requiredOption('--out <folder|file.zip>', 'a new or empty folder, or a new .zip file (streamed; Zip64 when large)', notStdout)
      .option(
        '--dehydrated',
        "item keys and the calls to re-collect them, with what that would cost today (for sharing under platforms' terms)",
      )
      .option('--json', 'the summary as JSON on stdout'),
  ).action(async (set: string | undefined, o: QueryFlags & { out: string; dehydrated?: boolean; json?: boolean }) => {
    if (o.dehydrated) await c().api();
    // the sandbox's variant names, loaded with this command only (`loupe --help` reads no sandbox)
    const { SPEC_VARIANTS } = await import('../../sandbox');
    // Ctrl-C / SIGTERM: stopped, nothing of the bundle kept (it is written under a temporary name
    // and renamed when complete), exit 130 / 143 (../interrupt.ts)
    const abort = new AbortController();
    const offSig = interruptOf(io).onStop(() => abort.abort());
    let r;
    try {
      r = await c().local(
        'local.exportBundle',
        {
          target: await targetOf(c(), set, o),
          out: o.out,
          dehydrated: o.dehydrated ?? false,
          variants: SPEC_VARIANTS.map((v) => v.name),
        },
        {
          signal: abort.signal,
          onEvent: (e) => {
            if (e.type === 'bundle-step') progress(io.stderr, `${e.step}${e.rows ? `: ${fmt(e.rows)} rows` : ''}`);
          },
        },
      );
      progress(io.stderr, '');
    } catch (e) {
      progress(io.stderr, '');
      if (abort.signal.aborted)
        throw new ExitError(
          'cancelled',
          `Stopped (${interruptOf(io).by ?? 'cancelled'}): the bundle was not written; nothing of it was kept at ${o.out}.`,
        );
      throw e;
    } finally {
      offSig();
    }
    io.stderr.write(
      `Bundle of ${fmt(r.items)} item(s) from ${fmt(r.calls)} call(s) in ${r.out}${r.dehydrated ? ' (dehydrated: keys and calls only)' : ''}.\nRoot hash (cite it): ${r.root}\n`,
    );
    if (r.rehydrationQuote)
      io.stderr.write(
        `Re-collecting it today, for a recipient with an empty archive: ${fmt(r.rehydrationQuote.credits_min)}–${fmt(r.rehydrationQuote.credits_max)} credits (likely ${fmt(r.rehydrationQuote.credits_likely)}), ${fmt(r.rehydrationQuote.requests)} request(s).\n`,
      );
    if (o.json) io.stdout.write(JSON.stringify(r) + '\n');
  });
}
