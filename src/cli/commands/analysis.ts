/**
 * `loupe analyze top|compare|overperformance` (docs/cli.md, docs/analysis.md): frequency tables,
 * comparisons and overperformance over the library query model, as CSV or JSON on stdout — the
 * contract's analysis.frequency / analysis.compare / analysis.overperformance of the composed app.
 */
import { Option, type Command } from 'commander';
import { FREQUENCY_FIELDS, type CompareSeries } from '../../shared/analysis';
import { analysisJson, compareCsv, frequencyCsv, overperformanceCsv, type AnalysisCsvOptions } from '../../shared/analysis-csv';
import type { LibraryQuery } from '../../shared/query';
import { UsageError, type CliContext } from '../context';
import { collect, libraryQueryOf, withQueryFlags, type QueryFlags } from '../query-flags';
import { rawOf } from '../terminal';

interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream;
}

type FileFlags = { format: 'csv' | 'json'; bom: boolean };

/**
 * A result on stdout as the exports write files (docs/analysis.md "Files"): JSON with snake_case
 * keys and ISO times; CSV with the exports' cell rules, byte for byte to a pipe or a file, and with
 * controls inside cells shown escaped on a terminal.
 */
function writeResult<T>(io: Io, o: FileFlags, value: T, csv: (v: T, c: AnalysisCsvOptions) => string): void {
  if (o.format === 'json') return void io.stdout.write(JSON.stringify(analysisJson(value)) + '\n');
  const terminal = io.stdout.isTTY === true;
  (terminal ? io.stdout : rawOf(io.stdout)).write(csv(value, { bom: o.bom && !terminal, terminal }));
}

const withFileFlags = (c: Command): Command =>
  c
    .addOption(new Option('--format <f>', 'csv | json').choices(['csv', 'json']).default('csv'))
    .option('--no-bom', 'CSV without the UTF-8 byte-order mark (as loupe export)');

function intFlag(name: string, min: number, max: number) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`${name} takes a whole number from ${min} to ${max}; got "${v}".`);
    return n;
  };
}

function queryOf(c: CliContext, o: QueryFlags): Promise<LibraryQuery> {
  return libraryQueryOf(o, c);
}

/** Merges the shared flags' query into a series' own query (the series' own conditions win). */
function narrow(series: LibraryQuery, common: LibraryQuery): LibraryQuery {
  return {
    ...common,
    ...series,
    labels: [...(common.labels ?? []), ...(series.labels ?? [])],
    tags: [...(common.tags ?? []), ...(series.tags ?? [])],
    terms: [...(common.terms ?? []), ...(series.terms ?? [])],
  };
}

export function registerAnalyzeCommands(program: Command, io: Io, context: () => CliContext): void {
  const analyze = program
    .command('analyze')
    .description('analyse archived items: frequency tables, comparisons, overperformance (docs/analysis.md)');
  registerTop(analyze, io, context);
  registerCompare(analyze, io, context);
  registerOverperformance(analyze, io, context);
}

function registerTop(analyze: Command, io: Io, context: () => CliContext): void {
  withFileFlags(
    withQueryFlags(
      analyze
        .command('top')
        .description('the most frequent hashtags, mentions, authors, domains, emoji, words or n-grams of the items a query matches')
        .addOption(new Option('--field <f>', FREQUENCY_FIELDS.join(' | ')).choices([...FREQUENCY_FIELDS]).makeOptionMandatory())
        .option('--limit <n>', 'rows (default 50)', intFlag('--limit', 1, 10_000))
        .addOption(
          new Option('--order <s>', 'order rows by (default: items)')
            .choices(['count', 'occurrences', 'first', 'last', 'views', 'likes', 'comments', 'shares', 'saves', 'engagement'])
            .default('count'),
        ),
    ),
  ).action(async (o: QueryFlags & FileFlags & { field: (typeof FREQUENCY_FIELDS)[number]; limit?: number; order: 'count' }) => {
    const c = context();
    const t = await c.call('analysis.frequency', { query: await queryOf(c, o), field: o.field, limit: o.limit ?? 50, sort: o.order });
    if (t.items === 0)
      io.stderr.write('No archived item matches this query: the table is empty (see: loupe library with the same flags).\n');
    writeResult(io, o, t, frequencyCsv);
  });
}

function registerCompare(analyze: Command, io: Io, context: () => CliContext): void {
  withFileFlags(
    withQueryFlags(
      analyze
        .command('compare')
        .description(
          'two to eight result sets, profiles, watchlists or searches side by side, in that order (the query flags narrow every one)',
        )
        .option('--set <name>', 'a saved result set, by name or id (repeatable)', collect)
        .option('--profile <platform/handle>', "an account's items, e.g. photo_net/nasa (repeatable)", collect)
        .option('--series-watchlist <name>', 'the items a watchlist fetched (repeatable)', collect)
        .option('--series-search <text>', 'the items a full-text search matches, e.g. "cake OR pastry" (repeatable)', collect)
        .addOption(new Option('--bucket <b>', 'volume bucket').choices(['day', 'week', 'month']).default('week'))
        .option('--top <n>', 'top posts per series (default 5)', intFlag('--top', 0, 50)),
    ),
  ).action(
    async (
      o: QueryFlags &
        FileFlags & {
          set?: string[];
          profile?: string[];
          seriesWatchlist?: string[];
          seriesSearch?: string[];
          bucket: 'day' | 'week' | 'month';
          top?: number;
        },
    ) => {
      const c = context();
      const common = await queryOf(c, o);
      const series: Array<{ name: string; query: LibraryQuery }> = [];
      const sets = await c.call('library.resultSets', {});
      for (const s of o.set ?? []) {
        const rs = sets.find((r) => r.name === s || r.id === s);
        if (!rs) throw new UsageError(`No saved result set named "${s}"; save one in the Library first.`);
        series.push({ name: rs.name, query: narrow(rs.query, common) });
      }
      for (const p of o.profile ?? []) {
        const m = /^([^/\s]+)\/@?([^/\s]+)$/.exec(p);
        if (!m) throw new UsageError(`--profile takes platform/handle, e.g. photo_net/nasa; got "${p}".`);
        series.push({ name: `${m[1]}/@${m[2]}`, query: narrow({ platforms: [m[1]], author: m[2] }, common) });
      }
      for (const w of o.seriesWatchlist ?? [])
        series.push({ name: `watchlist ${w}`, query: narrow(await queryOf(c, { watchlist: w }), common) });
      for (const t of o.seriesSearch ?? []) {
        // a malformed search stops here with its sentence; --text narrows it like every other flag
        const q = await queryOf(c, { text: common.text ? `(${common.text}) (${t})` : t });
        series.push({ name: t, query: narrow(q, common) });
      }
      if (series.length < 2 || series.length > 8)
        throw new UsageError(`Compare two to eight series (--set, --profile, --series-watchlist, --series-search); got ${series.length}.`);
      const r = await c.call('analysis.compare', { series, bucket: o.bucket, topPosts: o.top ?? 5 });
      for (const s of r.series as CompareSeries[])
        if (s.items === 0)
          io.stderr.write(`"${s.name}": no archived item matches it (fetch its items first, or check the name); its row is zeros.\n`);
      // CSV: one row per series; JSON: everything (volumes, label shares, top posts)
      writeResult(io, o, r, compareCsv);
    },
  );
}

function registerOverperformance(analyze: Command, io: Io, context: () => CliContext): void {
  withFileFlags(
    withQueryFlags(
      analyze
        .command('overperformance')
        .description(
          "posts ranked by engagement ÷ the median engagement of the account's previous N posts (--same-age: at the same age, from the metric history)",
        )
        .option('--baseline <n>', 'previous posts in the baseline (default 30)', intFlag('--baseline', 1, 1000))
        .option('--min-baseline <n>', 'fewer previous posts: no score (default 5)', intFlag('--min-baseline', 1, 1000))
        .option('--limit <n>', 'rows (default 50)', intFlag('--limit', 1, 10_000))
        .option(
          '--same-age',
          "compare each post with the account's earlier posts at the same age, interpolated from their readings (docs/analysis.md)",
        )
        .option(
          '--age-hours <n>',
          "with --same-age: compare at this age (default: each post's age at its latest reading)",
          intFlag('--age-hours', 1, 24 * 3650),
        )
        .option('--under', 'the most underperforming first'),
    ),
  ).action(
    async (
      o: QueryFlags &
        FileFlags & { baseline?: number; minBaseline?: number; limit?: number; under?: boolean; sameAge?: boolean; ageHours?: number },
    ) => {
      if (o.ageHours !== undefined && !o.sameAge) throw new UsageError('--age-hours goes with --same-age.');
      const c = context();
      const r = await c.call('analysis.overperformance', {
        query: await queryOf(c, o),
        baseline: o.baseline ?? 30,
        minBaseline: o.minBaseline ?? 5,
        limit: o.limit ?? 50,
        dir: o.under ? 'asc' : 'desc',
        method: o.sameAge ? 'same_age' : 'previous',
        ...(o.ageHours !== undefined ? { ageHours: o.ageHours } : {}),
      });
      writeResult(io, o, r, overperformanceCsv);
    },
  );
}
