/**
 * The analysis tables as files (docs/analysis.md "Files"), the same bytes from the CLI
 * (`loupe analyze … --format csv|json`) and the app's Analysis view:
 *
 *  - CSV with the exports' cell rules (./csv-cell.ts: a UTF-8 byte-order mark unless `bom: false`,
 *    every non-empty cell quoted, CRLF, numbers as exact decimals, formula neutralisation), ISO
 *    times; `terminal: true` (a CSV shown on a terminal, not written to a file or a pipe) shows
 *    control and bidi characters inside cells escaped (./visible.ts).
 *  - JSON with the exports' naming: snake_case keys and ISO 8601 UTC times (`first_seen`,
 *    `last_seen`, `published_at`); a row's `query` is the library query it counts (the app's and
 *    the contract's own object, kept as it is: it goes back into `library.query` unchanged).
 */
import type { Comparison, FrequencyTable, Overperformance } from './analysis';
import { cell, csvRecord } from './csv-cell';
import { visible } from './visible';

export interface AnalysisCsvOptions {
  /** a UTF-8 byte-order mark first (Excel needs it to read UTF-8), as the exports. Default true. */
  bom?: boolean;
  /** shown on a terminal: controls inside cells escaped */
  terminal?: boolean;
}

const iso = (t: number | null | undefined): string | null => (t === null || t === undefined ? null : new Date(t).toISOString());

/** A header and rows as CSV text with the exports' rules. */
export function csvTable(header: readonly string[], rows: ReadonlyArray<readonly unknown[]>, o: AnalysisCsvOptions = {}): string {
  const shown = o.terminal ? (s: string): string => visible(s) : (s: string): string => s;
  let out = o.bom === false ? '' : '\uFEFF';
  out += csvRecord(header.map(shown));
  for (const r of rows) out += csvRecord(r.map((v) => shown(cell(v))));
  return out;
}

const FREQUENCY_HEADER = [
  'term',
  'items',
  'occurrences',
  'share',
  'first_seen',
  'last_seen',
  'views',
  'likes',
  'comments',
  'shares',
  'saves',
  'engagement',
];

export function frequencyCsv(t: FrequencyTable, o: AnalysisCsvOptions = {}): string {
  const authors = t.field === 'authors';
  return csvTable(
    [...FREQUENCY_HEADER, ...(authors ? ['platform', 'author_id'] : [])],
    t.rows.map((r) => {
      const s = r.sums;
      return [
        r.term,
        r.count,
        r.occurrences,
        r.share,
        iso(r.firstSeen),
        iso(r.lastSeen),
        s.views,
        s.likes,
        s.comments,
        s.shares,
        s.saves,
        s.engagement,
        ...(authors ? [r.platform, r.authorId] : []),
      ];
    }),
    o,
  );
}

export function compareCsv(r: Comparison, o: AnalysisCsvOptions = {}): string {
  return csvTable(
    ['series', 'items', 'share_of_voice', 'engagement', 'engagement_share', 'rate_by_views', 'rate_by_followers'],
    r.series.map((s) => [s.name, s.items, s.shareOfVoice, s.engagement, s.engagementShare, s.rateByViews, s.rateByFollowers]),
    o,
  );
}

export function overperformanceCsv(r: Overperformance, o: AnalysisCsvOptions = {}): string {
  // "at the same age" rows also say the age compared at, the engagement then, and how many baseline values came from the line from publication
  const sameAge = r.rows.some((p) => p.ageMs !== undefined);
  return csvTable(
    [
      'score',
      'engagement',
      'baseline_median',
      'baseline_posts',
      'platform',
      'kind',
      'id',
      'author',
      'published_at',
      'url',
      'text',
      ...(sameAge ? ['age_hours', 'engagement_at_age', 'baseline_from_zero'] : []),
    ],
    r.rows.map((p) => [
      p.score,
      p.engagement,
      p.baselineMedian,
      p.baselinePosts,
      p.platform,
      p.kind,
      p.id,
      p.author,
      iso(p.publishedAt),
      p.url,
      p.text,
      ...(sameAge ? [p.ageMs === undefined ? null : p.ageMs / 3_600_000, p.engagementAtAge ?? null, p.fromZero ?? null] : []),
    ]),
    o,
  );
}

/** times in the analysis results (epoch milliseconds), written as ISO text under their snake_case name */
const TIMES = new Set(['firstSeen', 'lastSeen', 'publishedAt']);
const snake = (k: string): string => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** An analysis result with the exports' naming: snake_case keys, ISO times; `query` objects as they are. */
export function analysisJson(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(analysisJson);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (k === 'query') out[k] = x;
    else if (TIMES.has(k) && (typeof x === 'number' || x === null)) out[snake(k)] = iso(x as number | null);
    else out[snake(k)] = analysisJson(x);
  }
  return out;
}
