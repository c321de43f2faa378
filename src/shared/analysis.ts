/**
 * The analysis model (issue 16): frequency tables, comparisons, overperformance and library
 * charts over the library query model (./query.ts). Zod input schemas + output types; no node
 * imports (the renderer uses this file). How every number is computed: docs/analysis.md.
 */
import { z } from 'zod';
import { libraryQuerySchema, TERM_FIELDS, type LibraryQuery, type TermField } from './query';

export { TERM_FIELDS, type TermField };
/** Every frequency-table field: the text terms and the authors. */
export const FREQUENCY_FIELDS = ['hashtags', 'mentions', 'authors', 'domains', 'emoji', 'words', 'bigrams', 'trigrams'] as const;
export type FrequencyField = (typeof FREQUENCY_FIELDS)[number];

/**
 * **Engagement**, the one definition every analysis uses: the sum of a post's known interaction
 * counts — likes + comments + shares + saves (a count the network does not give is left out, never
 * read as 0); views are reach, not engagement. Null when none of the four is known.
 */
export const ENGAGEMENT_PARTS = ['likes', 'comments', 'shares', 'saves'] as const;
export function engagementOf(e: {
  likes?: number | null;
  comments?: number | null;
  shares?: number | null;
  saves?: number | null;
}): number | null {
  let sum: number | null = null;
  for (const k of ENGAGEMENT_PARTS) {
    const v = e[k];
    if (typeof v === 'number' && Number.isFinite(v)) sum = (sum ?? 0) + v;
  }
  return sum;
}

export const FREQUENCY_SORTS = [
  'count',
  'occurrences',
  'first',
  'last',
  'views',
  'likes',
  'comments',
  'shares',
  'saves',
  'engagement',
] as const;
export type FrequencySort = (typeof FREQUENCY_SORTS)[number];

export const frequencyInputSchema = z.object({
  query: libraryQuerySchema.default({}),
  field: z.enum(FREQUENCY_FIELDS),
  limit: z.number().int().min(1).max(10_000).default(50),
  sort: z.enum(FREQUENCY_SORTS).default('count'),
  dir: z.enum(['asc', 'desc']).default('desc'),
});
export type FrequencyInput = z.input<typeof frequencyInputSchema>;

export interface EngagementSums {
  views: number | null;
  likes: number | null;
  comments: number | null;
  shares: number | null;
  saves: number | null;
  /** sums of engagement as defined by engagementOf */
  engagement: number | null;
}

export interface FrequencyRow {
  /** `#tag`, `@name`, `example.com`, an emoji, a word, `two words`; authors: the username (or display name, or id) */
  term: string;
  /** items (in the query) containing the term at least once */
  count: number;
  /** times it occurs in those items (authors: = count) */
  occurrences: number;
  /** count ÷ items in the query */
  share: number;
  /** earliest / latest publication time (ms) of those items; null when none is dated */
  firstSeen: number | null;
  lastSeen: number | null;
  /** sums over those items of each known count */
  sums: EngagementSums;
  /** the library query for exactly these items (click-through) */
  query: LibraryQuery;
  /** authors only */
  platform?: string;
  authorId?: string | null;
}

export interface FrequencyTable {
  field: FrequencyField;
  /** items matched by the query (the denominator of share) */
  items: number;
  /** distinct terms found (before the limit); null from the index totals (not counted: a scan of every term) */
  distinct: number | null;
  rows: FrequencyRow[];
  /**
   * 'totals': the archive-wide tables kept by the analysis index; 'index': counted over the matching
   * items from the term ids the index keeps per item; 'items': the matching items' texts tokenized
   */
  basis: 'totals' | 'index' | 'items';
}

/**
 * How far the analysis index is (analysis.indexStatus, issue 30): the archive's items, how many of
 * them (new or changed) it has yet to take in, whether it is complete, and whether a build is
 * running in this app. Until it is complete every table and chart is still exact: it is counted
 * from the items themselves, which takes longer.
 */
export interface IndexStatus {
  items: number;
  waiting: number;
  current: boolean;
  building: boolean;
}

/** `analysis.buildIndex`: the analysis index built now, in the foreground (`loupe archive index`). */
export interface IndexBuild {
  /** false: the index was current, nothing to build */
  built: boolean;
  /** items taken in */
  items: number;
  ms: number;
  /** items in the archive */
  archiveItems: number;
}

// ───────────── comparisons ─────────────

export const seriesSchema = z.object({
  name: z.string().min(1).max(120),
  query: libraryQuerySchema,
});
export const compareInputSchema = z.object({
  series: z.array(seriesSchema).min(2, 'compare two to eight queries').max(8, 'compare two to eight queries'),
  bucket: z.enum(['day', 'week', 'month']).default('week'),
  topPosts: z.number().int().min(0).max(50).default(5),
});
export type CompareInput = z.input<typeof compareInputSchema>;

export interface PostBrief {
  platform: string;
  kind: string;
  id: string;
  publishedAt: number | null;
  author: string | null;
  text: string | null;
  url: string | null;
  views: number | null;
  engagement: number | null;
}

export interface LabelShareRow {
  /** `sentiment.label`, `intent.label`, `sponsored` */
  label: string;
  value: string;
  items: number;
  /** items ÷ items judged for that label */
  share: number;
  /** the items judged for that label: the share's base (issue 27 #11) */
  judged: number;
  query: LibraryQuery;
}

export interface CompareSeries {
  name: string;
  query: LibraryQuery;
  items: number;
  /** items ÷ items of all series (share of voice by volume) */
  shareOfVoice: number;
  engagement: number | null;
  /** engagement ÷ all series' engagement */
  engagementShare: number | null;
  /** Σ engagement ÷ Σ views over items where both are known */
  rateByViews: number | null;
  /** Σ engagement ÷ Σ author followers (as recorded on the item) over items where both are known */
  rateByFollowers: number | null;
  volume: Array<{ bucket: string; value: number; query: LibraryQuery }>;
  /** items dated outside the chartable years (1000 to November 9999): counted, not in `volume` */
  datesSetAside?: number;
  labels: LabelShareRow[];
  topPosts: PostBrief[];
}

export interface Comparison {
  bucket: 'day' | 'week' | 'month';
  series: CompareSeries[];
  /**
   * how far the series overlap (issue 27 #11): `distinct` items in all, `shared` of them in more
   * than one series. With shared > 0 the shares of voice (each series' items ÷ the sum of the
   * series' items) count those items more than once.
   */
  overlap: { distinct: number; shared: number };
}

export const OVERPERFORMANCE_METHODS = ['previous', 'same_age'] as const;
export type OverperformanceMethod = (typeof OVERPERFORMANCE_METHODS)[number];

export const overperformanceInputSchema = z.object({
  query: libraryQuerySchema.default({}),
  /** the baseline: the account's previous N posts */
  baseline: z.number().int().min(1).max(1000).default(30),
  /** fewer previous posts than this: no score */
  minBaseline: z.number().int().min(1).max(1000).default(5),
  limit: z.number().int().min(1).max(10_000).default(50),
  dir: z.enum(['asc', 'desc']).default('desc'),
  /**
   * previous: engagement now ÷ the median of the account's previous N posts now (docs/analysis.md
   * "Overperformance"); same_age: the post's engagement at an age ÷ the median of the account's earlier
   * posts at that same age, interpolated from their metric history (issue 29)
   */
  method: z.enum(OVERPERFORMANCE_METHODS).default('previous'),
  /** same_age: compare at this age (hours after publication); default each post's age at its latest reading */
  ageHours: z
    .number()
    .positive()
    .max(24 * 3650)
    .optional(),
});
export type OverperformanceInput = z.input<typeof overperformanceInputSchema>;

export interface OverperformanceRow extends PostBrief {
  authorKey: string;
  /** median engagement of the account's previous posts (up to `baseline` of them) */
  baselineMedian: number;
  baselinePosts: number;
  /** engagement ÷ baselineMedian */
  score: number;
  /** same_age: the age compared at (ms after publication) and the post's engagement then */
  ageMs?: number;
  engagementAtAge?: number;
  /** same_age: baseline posts whose value at that age came from a line between publication (0) and their first reading, not between two readings */
  fromZero?: number;
}

export interface Overperformance {
  /** posts in the query that got a score */
  scored: number;
  /** posts without one: engagement unknown, too few previous posts, or a zero median */
  unscored: number;
  rows: OverperformanceRow[];
}

// ───────────── library charts ─────────────

export const CHART_BUCKETS = ['day', 'week', 'month'] as const;
export type ChartBucket = (typeof CHART_BUCKETS)[number];

export const volumeByInputSchema = z.object({
  query: libraryQuerySchema.default({}),
  bucket: z.enum(CHART_BUCKETS).default('week'),
  by: z.enum(['platform', 'label', 'tag']),
  /** by label: the field, e.g. intent.label */
  family: z.string().min(1).max(64).optional(),
  field: z.string().min(1).max(128).optional(),
  /** at most this many keys (the rest are left out) */
  limit: z.number().int().min(1).max(50).default(12),
});
export type VolumeByInput = z.input<typeof volumeByInputSchema>;

export const labelShareInputSchema = z.object({
  query: libraryQuerySchema.default({}),
  bucket: z.enum(CHART_BUCKETS).default('week'),
  family: z.string().min(1).max(64),
  field: z.string().min(1).max(128),
});
export const engagementDistributionInputSchema = z.object({
  query: libraryQuerySchema.default({}),
  field: z.enum(['views', 'likes', 'comments', 'shares', 'saves']).default('likes'),
});

/** One mark of a chart: what it counts and the library query for exactly those items. */
export interface ChartMark {
  bucket: string;
  key: string;
  value: number;
  /** share of the bucket (label share over time), else absent */
  share?: number;
  query: LibraryQuery;
}
export interface ChartSeries {
  keys: string[];
  marks: ChartMark[];
  /** items dated outside the chartable years (1000 to November 9999): counted here, never drawn */
  setAside?: number;
}

export function isTermField(s: string): s is TermField {
  return (TERM_FIELDS as readonly string[]).includes(s);
}
