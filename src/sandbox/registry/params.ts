/**
 * Parameter builders shared by every endpoint definition. A shared parameter (dry_run, cursor,
 * since, max_pages, judgment and relevance parameters...) is built by exactly one function here,
 * so it reads the same on every endpoint of the catalogue and the OpenAPI document.
 *
 * A `RegistryParam` is a `CatalogueParam` plus validation-only facts (length caps, CSV token
 * lists, date shapes, defaults). `catalogueParam()` strips those extras for the wire.
 */
import { COMMENT_LABELS, POST_LABELS, type CatalogueParam } from '../../shared/api-types';

export interface RegistryParam extends CatalogueParam {
  /** String length cap (characters). */
  maxLength?: number;
  /** For CSV params: the maximum number of comma-separated items. */
  maxItems?: number;
  /** For CSV params: the allowed tokens (case-insensitive; normalised to these spellings). */
  csv?: readonly string[];
  /** Date shape: `date` = YYYY-MM-DD or ISO 8601; `date_tz` = YYYY-MM-DD or ISO datetime WITH timezone. */
  format?: 'date' | 'date_tz';
  /** Value the service uses when the parameter is absent (not filled in by validation). */
  defaultValue?: string;
  /** Strip one leading `@` while normalising (handles). */
  stripAt?: boolean;
}

type Extra = Partial<Omit<RegistryParam, 'name' | 'type' | 'description'>>;

export function param(
  name: string,
  type: 'string' | 'integer' | 'number' | 'boolean',
  description: string,
  extra: Extra = {},
): RegistryParam {
  return {
    name,
    required: false,
    in: 'query',
    type,
    description,
    help: null,
    example: null,
    enum: null,
    minimum: null,
    maximum: null,
    one_of_group: null,
    ...extra,
  };
}

/** The catalogue view of a parameter: exactly the CatalogueParam fields, nulls where n/a. */
export function catalogueParam(p: CatalogueParam): CatalogueParam {
  return {
    name: p.name,
    required: p.required,
    in: 'query',
    type: p.type,
    description: p.description,
    help: p.help ?? null,
    example: p.example ?? null,
    enum: p.enum ? [...p.enum] : null,
    minimum: p.minimum ?? null,
    maximum: p.maximum ?? null,
    one_of_group: p.one_of_group ?? null,
  };
}

// ---------------------------------------------------------------------------------------------
// Identifiers and endpoint-specific inputs
// ---------------------------------------------------------------------------------------------

interface IdDoc {
  type: 'string' | 'integer';
  description: string;
  example: string;
  help?: string;
  maxLength?: number;
  stripAt?: boolean;
}

const ID_DOCS: Record<string, IdDoc> = {
  handle: {
    type: 'string',
    description: 'Account handle, without the leading @.',
    example: 'sample.creator',
    help: 'A leading @ is removed before the lookup.',
    stripAt: true,
  },
  user_id: {
    type: 'string',
    description: "The network's own account id (a string; may exceed 2^53).",
    example: '17841400000000001',
    help: 'Faster than handle where both are accepted.',
  },
  userId: { type: 'string', description: "The network's own account id (a string).", example: '17841400000000001' },
  url: { type: 'string', description: 'Full public URL of the item.', example: 'https://example.com/p/AbC123' },
  query: { type: 'string', description: 'Search keywords.', example: 'trail running shoes', maxLength: 500 },
  hashtag: { type: 'string', description: 'Hashtag, with or without the leading #.', example: 'trailrunning' },
  comment_url: { type: 'string', description: 'URL of the comment.', example: 'https://example.com/p/AbC123/c/1790000000000001' },
  post_url: { type: 'string', description: 'URL of the post the comment belongs to.', example: 'https://example.com/p/AbC123' },
  comment_id: {
    type: 'string',
    description: 'Id of the parent comment, as returned by the comments endpoint.',
    example: '1790000000000001',
  },
  id: { type: 'string', description: 'Id of the highlight collection (from `highlights`).', example: '17900000000000001' },
  audio_id: { type: 'string', description: 'Id of the audio track.', example: '400000000000001' },
  location_id: { type: 'string', description: 'Id of the place (from a location search).', example: '213385402' },
  story_id: { type: 'string', description: 'Id of the story.', example: '3300000000000000001' },
  pageId: { type: 'string', description: "The page's numeric id (a string).", example: '100064000000001' },
  feedback_id: {
    type: 'string',
    description: 'Feedback id returned by `post` or `post/comments`; speeds the call.',
    example: 'ZmVlZGJhY2s6MTAwMDAx',
  },
  expansion_token: {
    type: 'string',
    description: 'Expansion token returned by `post/comments` for the reply endpoint.',
    example: 'MTAwMDAxOjE=',
  },
  group_id: { type: 'string', description: "The group's numeric id (a string).", example: '1400000000000001' },
  ids: {
    type: 'string',
    description: 'Comma-separated ids, up to 50.',
    example: '1001,1002,1003',
    help: 'Repeated ids collapse and unknown ids drop, so fewer rows can return; match rows by returned id.',
  },
  music_id: { type: 'string', description: 'Id of the song / sound.', example: '7000000000000000001' },
  collection_id: { type: 'string', description: 'Id of the collection.', example: '7000000000000000002' },
  playlist_id: { type: 'string', description: 'Id of the playlist.', example: 'PL0000000000000001' },
  effect_id: { type: 'string', description: 'Id of the effect.', example: '1000001' },
  channel_id: { type: 'string', description: "The channel's id.", example: 'UC0000000000000000000001' },
  subreddit: { type: 'string', description: 'Community name, without the prefix.', example: 'running' },
  ad_id: { type: 'string', description: 'Id of the ad in the ad library.', example: '1200000000000001' },
};

/** A required identifier / input parameter. */
export function requiredParam(name: string): RegistryParam {
  return { ...idParam(name), required: true };
}

/** A member of a one-of group: not required by itself, but one of the group must be sent. */
export function oneOfParam(name: string, group: readonly string[]): RegistryParam {
  return { ...idParam(name), required: false, one_of_group: group.join('|') };
}

function idParam(name: string): RegistryParam {
  const doc = ID_DOCS[name];
  if (!doc) throw new Error(`registry: no identifier doc for '${name}'`);
  const extra: Extra = { example: doc.example, help: doc.help ?? null };
  if (doc.maxLength) extra.maxLength = doc.maxLength;
  if (doc.stripAt) extra.stripAt = true;
  if (name === 'ids') extra.maxItems = 50;
  return param(name, doc.type, doc.description, extra);
}

export function enumParam(name: string, values: readonly string[], description: string, def?: string): RegistryParam {
  return param(name, 'string', description + (def ? ` Default \`${def}\`.` : ''), {
    enum: [...values],
    example: def ?? values[0],
    defaultValue: def,
  });
}

export function boolParam(name: string, description: string): RegistryParam {
  return param(name, 'boolean', description, { example: true, help: 'Accepts true/false or 1/0.' });
}

export function intParam(name: string, min: number, max: number, description: string, def?: number): RegistryParam {
  return param(name, 'integer', description + (def !== undefined ? ` Default ${def}.` : ''), {
    minimum: min,
    maximum: max,
    example: def ?? min,
    defaultValue: def !== undefined ? String(def) : undefined,
  });
}

export function stringParam(name: string, description: string, example: string, maxLength?: number): RegistryParam {
  return param(name, 'string', description, { example, maxLength });
}

// ---------------------------------------------------------------------------------------------
// Shared parameters (spec "Shared query parameters", "Judgment parameters")
// ---------------------------------------------------------------------------------------------

export const dryRunParam = (): RegistryParam =>
  param('dry_run', 'boolean', 'Return the price without making the call; nothing is charged.', {
    example: 1,
    help: '`data.dry_run` {credits_min, credits_max}; on label-capable endpoints `data.estimate` instead.',
  });

export const cursorParam = (): RegistryParam =>
  param('cursor', 'string', 'pagination.next_cursor of the previous page, sent back unchanged.', {
    help: 'Never build or decode a cursor. Stop when has_more is false.',
    example: null,
    maxLength: 4096,
  });

const NATIVE_DOCS: Record<string, string> = {
  continuationToken: 'Native paging token from the previous page (alternative to `cursor`; keep one style per walk).',
  max_cursor: 'Native paging position from the previous page (alternative to `cursor`; keep one style per walk).',
  after: 'Native "after" token from the previous page (alternative to `cursor`; keep one style per walk).',
  max_id: 'Native position from the previous response (alternative to `cursor`; keep one style per walk).',
  next_max_id: 'Native position from the previous response (alternative to `cursor`; keep one style per walk).',
  next_page_id: 'Native page id from the previous response (alternative to `cursor`).',
  pagination_token: 'Native pagination token from the previous response (alternative to `cursor`).',
};

export function nativePagingParam(name: string): RegistryParam {
  if (name === 'page') {
    return param('page', 'integer', 'Page number, 1-based (alternative to `cursor`; keep one style per walk). Default 1.', {
      minimum: 1,
      maximum: 1000,
      example: 1,
      defaultValue: '1',
    });
  }
  const d = NATIVE_DOCS[name];
  if (!d) throw new Error(`registry: unknown native paging param '${name}'`);
  return param(name, 'string', d, { maxLength: 4096 });
}

export const maxPagesParam = (): RegistryParam =>
  param('max_pages', 'integer', 'Walk up to this many pages in one request and return all rows. Default 1.', {
    minimum: 1,
    maximum: 5,
    example: 2,
    defaultValue: '1',
    help: 'Each page walked is billed as one call; the hold is the listed maximum times max_pages. data.walk.stopped tells why the walk ended.',
  });

export const sinceParam = (tz = false): RegistryParam =>
  param(
    'since',
    'string',
    tz
      ? 'Only rows published on or after it: YYYY-MM-DD or ISO 8601 datetime with timezone.'
      : 'Only rows published on or after it: YYYY-MM-DD (midnight UTC) or ISO 8601 timestamp.',
    {
      example: '2025-01-01',
      format: tz ? 'date_tz' : 'date',
    },
  );

export const untilParam = (tz = false): RegistryParam =>
  param(
    'until',
    'string',
    tz
      ? 'Only rows published on or before it: YYYY-MM-DD or ISO 8601 datetime with timezone.'
      : 'Only rows published on or before it: YYYY-MM-DD (whole UTC day included) or ISO 8601 timestamp.',
    {
      example: '2025-01-31',
      format: tz ? 'date_tz' : 'date',
    },
  );

export const stopAtIdParam = (): RegistryParam =>
  param('stop_at_id', 'string', 'post.id or post.url of the newest post already held; the page stops just before it.', {
    example: '3300000000000000001',
    maxLength: 2048,
    help: 'Send the same value on every page of a walk. stopped_at = known_id when reached.',
  });

export const recentDaysParam = (): RegistryParam =>
  param('recent_days', 'integer', 'Keep only posts of the last N days (pinned too); older posts are removed.', {
    minimum: 1,
    maximum: 3650,
    example: 30,
    help: 'Once a page reaches older posts next_cursor is not returned; a page still costs a page.',
  });

export const excludePinnedParam = (): RegistryParam =>
  boolParam('exclude_pinned', 'Leave out posts the owner pinned; rows whose pin state is unknown are kept.');

export const trimParam = (): RegistryParam => boolParam('trim', 'Lighter records (drops heavy fields; pin state becomes unknown).');

export function includeParam(tokens: readonly string[], description: string): RegistryParam {
  return param('include', 'string', description, {
    enum: null,
    csv: tokens,
    example: tokens.join(','),
    help: `Comma-separated tokens: ${tokens.join(', ')}.`,
  });
}

export function limitParam(kind: 'cap' | 'collect', max: number, def?: number): RegistryParam {
  const desc =
    kind === 'cap'
      ? `Row cap: keep the top N rows of a page (the cursor still skips the whole page), 1..${max}.`
      : `Collect until N rows: walks pages for you and bills per page used, 1..${max}.`;
  return param('limit', 'integer', desc + (def !== undefined ? ` Default ${def}.` : ''), {
    minimum: 1,
    maximum: max,
    example: def ?? Math.min(max, 10),
    defaultValue: def !== undefined ? String(def) : undefined,
  });
}

export const POST_EXCLUDE = ['engagement_bait'] as const;
export const COMMENT_EXCLUDE = ['spam', 'low_quality'] as const;

/** Judgment parameters of a label-capable endpoint (spec "Judgment parameters"). */
export function judgmentParams(kind: 'post' | 'comment'): RegistryParam[] {
  const families = kind === 'post' ? POST_LABELS : COMMENT_LABELS;
  const excl = kind === 'post' ? POST_EXCLUDE : COMMENT_EXCLUDE;
  return [
    judgmentsParam(),
    param('label', 'string', `Extra label families (CSV), added to the defaults: ${families.join(', ')}; \`none\` turns judgments off.`, {
      csv: [...families, 'none'],
      example: kind === 'post' ? 'quality' : 'spam',
      help: 'Posts already labelled for anyone are free.',
    }),
    param('exclude', 'string', `Drop rows at probability 0.8 or more (CSV): ${excl.join(', ')}; only with the same preset in \`label\`.`, {
      csv: excl,
      example: excl[0],
      help: 'Dropped ids are listed in data.labels.dropped_ids; unjudged rows are never dropped.',
    }),
    param('brand', 'string', 'Brand for `label=mention` (required by mention; up to 300 characters).', {
      maxLength: 300,
      example: 'Acme',
      help: 'Without it mention is skipped with the warning label_mention_needs_brand and is not billed.',
    }),
    param('brand_description', 'string', 'One sentence describing the brand, with `label=mention` (up to 300 characters).', {
      maxLength: 300,
      example: 'Acme makes trail running shoes.',
    }),
    param('offer', 'string', 'Your offer, with `label=intent`; fills intent.fits_offer (up to 300 characters).', {
      maxLength: 300,
      example: 'Waterproof trail shoes for beginners',
    }),
    param('label_evidence', 'boolean', 'Add computed.labels_evidence (only with `label`).', { example: 1 }),
    param('fit', 'string', 'Keep only rows and fields needed for `goal`; the rest become stubs (data.held_back).', {
      enum: ['goal'],
      example: 'goal',
    }),
    param('goal', 'string', 'What the rows are for; required by `fit=goal` (up to 300 characters).', {
      maxLength: 300,
      example: 'find people asking for shoe recommendations',
    }),
    param('fit_tokens', 'integer', 'Soft cap on tokens kept, only with `fit=goal`.', {
      minimum: 1,
      maximum: 1_000_000,
      example: 4000,
    }),
    param('recall', 'string', 'Re-read the full page of a fit=goal answer from cache, free: send its `data.held_back.recall_id`.', {
      maxLength: 100,
      example: 'rcl_0123456789abcdef0123456789abcdef',
      help: "Sandbox choice: the recall id alone names the page (other parameters are ignored); valid for the endpoint's cache window.",
    }),
  ];
}

export const judgmentsParam = (): RegistryParam =>
  enumParam('judgments', ['on', 'off'], 'Default judgments (free); `off` returns rows without `computed`.', 'on');

/** Relevance parameters of a search endpoint. */
export function relevanceParams(): RegistryParam[] {
  return [
    param('relevance', 'string', '`score` waits for every row to be judged; `filter` also drops rows not about the query.', {
      enum: ['score', 'filter'],
      example: 'filter',
      help: 'Without it rows carry free computed.relevance.',
    }),
    param('relevance_threshold', 'number', 'Minimum probability kept by `relevance=filter`, 0..1; only with `relevance`. Default 0.5.', {
      minimum: 0,
      maximum: 1,
      example: 0.5,
      defaultValue: '0.5',
    }),
    param('relevant_to', 'string', 'Topic judged instead of the query; only with `relevance` (up to 200 characters).', {
      maxLength: 200,
      example: 'running shoes',
    }),
  ];
}

/** Names of the shared parameters (accepted on some or all endpoints, never endpoint-specific). */
export const SHARED_PARAM_NAMES: readonly string[] = [
  'dry_run',
  'cursor',
  'since',
  'until',
  'stop_at_id',
  'recent_days',
  'max_pages',
  'include',
  'trim',
  'exclude_pinned',
];

export const JUDGMENT_PARAM_NAMES: readonly string[] = [
  'judgments',
  'label',
  'exclude',
  'brand',
  'brand_description',
  'offer',
  'label_evidence',
  'fit',
  'goal',
  'fit_tokens',
  'recall',
];

export const RELEVANCE_PARAM_NAMES: readonly string[] = ['relevance', 'relevance_threshold', 'relevant_to'];
