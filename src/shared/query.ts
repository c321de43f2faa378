/**
 * The library's query model: what the renderer, the CLI and the host send to
 * the archive (src/core/archive) to list, count, chart and export archived items.
 * Pure types + zod schemas; no node imports (the renderer uses this file too).
 *
 * Semantics (see docs/archive.md):
 * - every filter is conjunctive (AND);
 * - `since` is inclusive, `until` exclusive; a date-only `until` ('2024-05-31')
 *   covers that whole UTC day; both apply to `published_at` (items without a
 *   date never match a date filter);
 * - `text` is a full-text search over the text and author names (diacritics and
 *   case folded: `cafe` finds `café`); user text is always quoted term by term
 *   (`"phrases in quotes"` stay phrases, a trailing `*` keeps a prefix search,
 *   every word is required), so FTS syntax in user input can never raise an error;
 *   text with no indexable word (only emoji / punctuation) is a substring match;
 * - `labels` conditions see analyst overrides in place of the original values;
 *   `eq`/`neq` compare text, numbers and booleans; `neq` matches items judged for
 *   that field whose value differs (a null "unsure" value counts as different);
 *   gte/lte/gt/lt need numbers and never match text or null values;
 * - empty `platforms` / `kinds` arrays mean "no restriction";
 * - `tags`: the item must carry every listed tag;
 * - `thread`: the comments and replies under one post, at any depth;
 * - `growth`: a count's growth over a period, read from the metric history (min / max filter;
 *   the `growth` sort needs it);
 * - sorting puts items whose sort value is unknown (null) last in both
 *   directions; ties are broken by archive row id in the sort direction.
 */
import { z } from 'zod';
import { ENGAGEMENT_FIELDS, MAX_PAGE, type EngagementField } from './contract-constants';

export { ENGAGEMENT_FIELDS, MAX_PAGE, type EngagementField } from './contract-constants';

export const LABEL_OPS = ['eq', 'neq', 'gte', 'lte', 'gt', 'lt'] as const;
export type LabelOp = (typeof LABEL_OPS)[number];

export const BASE_SORT_FIELDS = [
  'published_at',
  /** growth of one count over the query's `growth` period (needs `growth`) */
  'growth',
  'likes',
  'views',
  'comments',
  'shares',
  'relevance',
  'first_seen_at',
  'author',
] as const;
export type BaseSortField = (typeof BASE_SORT_FIELDS)[number];
/** `label:<family>.<field>`, e.g. `label:sponsored.p` */
export type LabelSortField = `label:${string}.${string}`;
export type SortField = BaseSortField | LabelSortField;

const LABEL_SORT_RE = /^label:[A-Za-z0-9_]+\.[A-Za-z0-9_.]+$/;

export function isLabelSort(f: string): f is LabelSortField {
  return LABEL_SORT_RE.test(f);
}

/** `label:intent.label` → { family: 'intent', field: 'label' } */
export function parseLabelSort(f: LabelSortField): { family: string; field: string } {
  const rest = f.slice('label:'.length);
  const dot = rest.indexOf('.');
  return { family: rest.slice(0, dot), field: rest.slice(dot + 1) };
}

const timeBound = z.union([z.string().min(1), z.number().finite()]);

export const engagementConditionSchema = z.object({
  field: z.enum(ENGAGEMENT_FIELDS),
  min: z.number().finite().optional(),
  max: z.number().finite().optional(),
});
export type EngagementCondition = z.infer<typeof engagementConditionSchema>;
/** name kept for the contract */
export const engagementRangeSchema = engagementConditionSchema;

export const labelConditionSchema = z
  .object({
    family: z.string().min(1).max(64),
    field: z.string().min(1).max(128),
    op: z.enum(LABEL_OPS),
    value: z.union([z.string(), z.number().finite(), z.boolean()]),
  })
  .refine(
    (c) =>
      c.op === 'eq' ||
      c.op === 'neq' ||
      typeof c.value === 'number' ||
      (typeof c.value === 'string' && c.value.trim() !== '' && Number.isFinite(Number(c.value))),
    { message: 'gte/lte/gt/lt need a numeric value' },
  );
export type LabelCondition = z.infer<typeof labelConditionSchema>;

/**
 * Growth of one count over a period, read from the metric history (docs/archive.md "Library query
 * model"): the count at `to` (default: the latest reading) minus the count at `from` (the item's first
 * reading when it was first read inside the period). `min` / `max` filter by it; `sort: growth` sorts by it.
 */
export const growthSchema = z.object({
  field: z.enum(ENGAGEMENT_FIELDS),
  from: timeBound,
  to: timeBound.optional(),
  min: z.number().finite().optional(),
  max: z.number().finite().optional(),
});
export type GrowthCondition = z.infer<typeof growthSchema>;

export const SOURCE_TYPES = ['walk', 'call', 'source', 'watchlist'] as const;
export const sourceFilterSchema = z.object({
  /** walk: items any page of that walk returned; call: items that logical call returned;
   *  source: items fetched by calls whose source is exactly `id` (e.g. 'search', 'cli');
   *  watchlist: items fetched by calls whose source is `watch:<id>` */
  type: z.enum(SOURCE_TYPES),
  id: z.string().min(1),
  /** watchlist only: just the items new for the list in this run of it (issue 27 #2) */
  run: z.string().min(1).optional(),
});
export type SourceFilter = z.infer<typeof sourceFilterSchema>;

/** Fields read from a post's text (src/core/analysis/terms.ts; docs/analysis.md). */
export const TERM_FIELDS = ['hashtags', 'mentions', 'domains', 'emoji', 'words', 'bigrams', 'trigrams'] as const;
export type TermField = (typeof TERM_FIELDS)[number];
/** The item's text contains this term of this field (`#tag`, `@name`, `example.com`, a word, `two words`) */
export const termConditionSchema = z.object({ field: z.enum(TERM_FIELDS), value: z.string().min(1).max(300) });
export type TermCondition = z.infer<typeof termConditionSchema>;

export function isSortField(f: string): f is SortField {
  return (BASE_SORT_FIELDS as readonly string[]).includes(f) || isLabelSort(f);
}

export const librarySortSchema = z.object({
  /** published_at | likes | views | comments | shares | relevance | first_seen_at | author | label:<family>.<field> */
  field: z.string().min(1).max(80).refine(isSortField, { message: 'unknown sort field' }),
  dir: z.enum(['asc', 'desc']),
});
export type LibrarySort = z.infer<typeof librarySortSchema>;

export const DEFAULT_PAGE = 100;

export const libraryQuerySchema = z.object({
  platforms: z.array(z.string().min(1)).optional(),
  kinds: z.array(z.string().min(1)).optional(),
  /**
   * the item's language (issue 27 #9): a tag matches itself and its subtags, case ignored (`pt`
   * matches `pt` and `pt-BR`); `und` matches items whose language is unknown. Any of them.
   */
  languages: z
    .array(
      z
        .string()
        .trim()
        .min(1)
        .max(35)
        .regex(/^[A-Za-z]{1,8}(?:[-_][A-Za-z0-9]{1,8})*$/, 'a language is a tag such as en, pt or pt-BR'),
    )
    .max(20)
    .optional(),
  /** author id or username (a leading @ is ignored; username match ignores case) */
  author: z.string().min(1).max(200).optional(),
  since: timeBound.optional(),
  until: timeBound.optional(),
  text: z.string().max(500).optional(),
  engagement: z.array(engagementConditionSchema).optional(),
  labels: z.array(labelConditionSchema).optional(),
  relevanceMin: z.number().min(0).max(1).optional(),
  source: sourceFilterSchema.optional(),
  tags: z.array(z.string().min(1)).optional(),
  hasNote: z.boolean().optional(),
  /**
   * a thread (issue 27 #12): the comments under this post and the replies under them, at any depth
   * (items of the post's network whose `parent_id` leads to it); the post itself is not one of them
   */
  thread: z.object({ platform: z.string().min(1).max(64), id: z.string().min(1).max(200) }).optional(),
  /** frequency-table terms the text must contain (all of them) */
  terms: z.array(termConditionSchema).max(8).optional(),
  /** growth of a count over a period (filter with min / max; the `growth` sort reads it) */
  growth: growthSchema.optional(),
  sort: librarySortSchema.optional(),
  limit: z.number().int().min(1).max(MAX_PAGE).optional(),
  /** opaque keyset cursor from a previous page's `next` */
  after: z.string().optional(),
});
export type LibraryQuery = z.infer<typeof libraryQuerySchema>;

/** Analyst overrides of AI labels: family → field → value. */
export type LabelOverrides = Record<string, Record<string, unknown>>;

/**
 * What every row of a library listing carries: the identity, annotations, bookkeeping and the
 * extracted columns (src/shared/record-fields.ts, the one definition the archive filters, sorts and
 * searches by): views show these, never their own reading of the raw record.
 */
export interface LibraryRowFields {
  platform: string;
  kind: string;
  id: string;
  tags: string[];
  note: string | null;
  overrides: LabelOverrides;
  firstSeenAt: number;
  lastSeenAt: number;
  seenCount: number;
  publishedAt: number | null;
  author: { id: string | null; username: string | null; displayName: string | null };
  text: string | null;
  url: string | null;
  lang: string | null;
  /** the post record's own `kind` (format word: short, photo, ...) */
  postKind: string | null;
  parentId: string | null;
  engagement: { views: number | null; likes: number | null; comments: number | null; shares: number | null; saves: number | null };
  /** counts the owner hid (`flags.<f>_hidden`): a view says "hidden" instead of "not provided" */
  hiddenCounts: EngagementField[];
  /** the author's followers (a profile's own) */
  followers: number | null;
  /** `ext.post_title` or `title` */
  title: string | null;
  /** effective labels: original computed.labels with analyst overrides applied */
  labels: Record<string, Record<string, unknown>> | null;
  relevance: number | null;
}

/**
 * One row of a library listing with the record as the API returned it: a structural superset of
 * the contract's LibraryRow (record, tags, note, overrides, firstSeenAt, lastSeenAt) plus the
 * extracted columns. What the CLI, exports and `library.item` (ArchivedItem) give; a drawer may
 * show the record as it is.
 */
export interface LibraryRow extends LibraryRowFields {
  /** the record as the API returned it (latest fetch; computed labels included, original values) */
  record: Record<string, unknown>;
}

/**
 * A lean row (`library.query` with `lean: true`: the renderer's list pages): no raw record (a
 * 200-row page of records is most of the answer's bytes, parsed and kept on the UI thread), only
 * the few more fields a list shows from it, read by src/shared/record-fields.ts. The full record
 * is one `library.item` away.
 */
export interface LibraryListRow extends LibraryRowFields {
  /** `content.thumbnail_url` as text (cards; not checked as a URL here) */
  thumbnailUrl: string | null;
}

/** `library.query`'s input: a LibraryQuery, and whether the rows leave out the raw record. */
export const libraryPageInputSchema = libraryQuerySchema.extend({
  /** true: LibraryListRow rows (no `record`); default: full LibraryRow rows */
  lean: z.boolean().optional(),
});
export type LibraryPageInput = z.infer<typeof libraryPageInputSchema>;

export interface LibraryPage<R extends LibraryRowFields = LibraryRow> {
  rows: R[];
  /** cursor for the next page, null at the end */
  next: string | null;
  /**
   * total rows matching the query: given on the first page (no `after`), null after. A lean page
   * (`lean: true`, a list's) gives it only when it is already counted, else null: ask
   * `library.count` after showing the rows.
   */
  total: number | null;
}

export type TimeBucket = 'day' | 'week';

/** Every aggregate point is a SeriesPoint of the contract ({bucket, value}) plus extras. */
export interface SeriesPoint {
  bucket: string;
  value: number;
}
/** volumeOverTime: bucket = UTC date of the bucket start (YYYY-MM-DD; weeks start Monday), value = items */
export type VolumePoint = SeriesPoint;
/** engagementOverTime: value = sum of the known counts; known = items whose count is known */
export interface EngagementPoint extends SeriesPoint {
  known: number;
  avg: number | null;
}
/** labelDistribution: bucket = value as text (numeric: `0.5-0.6`, null: `null`), value = items, share = items / judged items */
export interface LabelShare extends SeriesPoint {
  share: number;
}
/** topAuthors: bucket = username (or display name, or id), value = items */
export interface AuthorCount extends SeriesPoint {
  platform: string;
  authorId: string | null;
  username: string | null;
  displayName: string | null;
  likes: number;
  views: number;
}
/** credits per UTC day / source / endpoint: value = credits used; calls = HTTP attempts */
export interface CreditsPoint extends SeriesPoint {
  calls: number;
}

/** Charged vs not charged, over ledger attempts. Every attempt falls in exactly one class. */
export interface UsageCounts {
  attempts: number;
  charged: { requests: number; credits: number };
  notCharged: {
    cached: number;
    replay: number;
    freeCall: number;
    error: number;
    dryRun: number;
    /** successful, zero-cost, none of the above (e.g. an empty result) */
    empty: number;
    /** answers served from the archive never reach the ledger: always 0 here (the core counts those) */
    fromArchive: number;
  };
}

export interface ItemCall {
  callId: string;
  requestId: string | null;
  /** when the answer was stored */
  at: number;
  source: string;
  walkId: string | null;
  platform: string;
  endpoint: string;
  position: number | null;
  /** from the ledger's successful attempt (0 / false when the ledger has no such row) */
  creditsUsed: number;
  cached: boolean;
  replay: boolean;
  freeCall: boolean;
  chargeReason: string | null;
}

export interface LabelOverrideEntry {
  family: string;
  field: string;
  value: unknown;
  /** the value the API gave (undefined → null when the record had none) */
  original: unknown;
  at: number;
  /** who made it (null: before Loupe kept it) */
  author?: string | null;
}

/** One annotation of an item with who made it and when (issue 29: who did what). */
export interface AnnotationEntry {
  kind: 'tag' | 'note' | 'override';
  /** the tag, `note`, or `family.field` of an override */
  name: string;
  /** the note's text, the override's value; null for a tag */
  value: unknown;
  /** the name in Settings when it was made; null for annotations made before Loupe kept it */
  author: string | null;
  at: number;
}

/** One reading of an item's five counts (metric history, docs/archive.md). */
export interface ItemReading {
  readAt: number;
  views: number | null;
  likes: number | null;
  comments: number | null;
  shares: number | null;
  saves: number | null;
}

export interface ArchivedItem extends LibraryRow {
  /** which calls returned it, when, at what cost (newest first) */
  provenance: ItemCall[];
  /** fields the network did not provide (the `unavailable` of the latest answer that carried it) */
  unavailable: string[];
  /** overrides with their original values */
  overrideLog: LabelOverrideEntry[];
  /** tags, note and overrides with their authors and times */
  annotationLog: AnnotationEntry[];
  /** the five counts each time they changed, oldest first (the last is the current reading) */
  history: ItemReading[];
  /** the last re-check through a single-item endpoint, and when the service first answered not found (null: available or never checked) */
  checkedAt: number | null;
  missingSince: number | null;
}

export interface ResultSet {
  id: string;
  name: string;
  query: LibraryQuery;
  tags: string[];
  note: string | null;
  createdAt: number;
  updatedAt: number;
  /** who saved (or last changed) it: the name in Settings; null for sets saved before Loupe kept it */
  author: string | null;
}

export interface TagCount {
  tag: string;
  count: number;
}
