/**
 * The stable, documented CSV column list (docs/export.md "Columns") as names: which record path
 * each column shows, and the label and relevance fields. A constant of the export format that every
 * door may read without opening the data folder (`loupe columns`, the check of `--columns`); the
 * export's renderers (src/core/export/columns.ts) build their expressions from these lists and
 * check at load that they give the same names in the same order.
 */

/** Post label families and their fields (spec "Computed judgments", post label table). */
export const POST_LABEL_FIELDS: Readonly<Record<string, readonly string[]>> = {
  sponsored: ['p', 'disclosed', 'undisclosed', 'brand'],
  intent: ['label', 'confidence', 'buyer', 'seller', 'urgency', 'fits_offer'],
  niche: ['label', 'confidence', 'taxonomy'],
  mention: ['about_brand', 'sentiment_level', 'sentiment_score', 'sarcasm', 'aspect', 'first_hand'],
  quality: ['fact_density', 'engagement_bait', 'rage_bait', 'secondhand', 'post_aim'],
  injection: ['flagged', 'p'],
};

/**
 * Comment label families: the spec gives each as a probability 0-1 (`p`). `sentiment` also names
 * the polarity (`label`: negative / neutral / positive, `p` = confidence of that label) and a
 * `score` 0-1 (0 most negative), as the sandbox judge emits; `injection` is shared with posts and
 * keeps the post fields (`flagged`, `p`).
 */
export const COMMENT_LABEL_FIELDS: Readonly<Record<string, readonly string[]>> = {
  sentiment: ['label', 'p', 'score'],
  spam: ['p'],
  question: ['p'],
  purchase_intent: ['p'],
  complaint: ['p'],
  toxic: ['p'],
  low_quality: ['p'],
};

/** All label families with their fields, in column order (post families first). */
export const LABEL_FIELDS: Readonly<Record<string, readonly string[]>> = {
  ...POST_LABEL_FIELDS,
  ...COMMENT_LABEL_FIELDS,
};

/**
 * Record paths shown by a column. Used both to build the getters and to compute `extra`
 * (everything not listed here). A path ending in a leaf means "this value as one cell"
 * (objects and arrays there are written as JSON).
 */
export const RECORD_COLUMNS: Array<[column: string, path: string[]]> = [
  ['url', ['url']],
  ['post_kind', ['kind']],
  ['published_at', ['published_at']],
  ['language', ['language']],
  ['author.id', ['author', 'id']],
  ['author.username', ['author', 'username']],
  ['author.display_name', ['author', 'display_name']],
  ['author.avatar_url', ['author', 'avatar_url']],
  ['author.verified', ['author', 'verified']],
  ['author.followers', ['author', 'followers']],
  ['author.following', ['author', 'following']],
  ['author.bio', ['author', 'bio']],
  ['author.joined_at', ['author', 'joined_at']],
  ['content.text', ['content', 'text']],
  ['content.media_urls', ['content', 'media_urls']],
  ['content.thumbnail_url', ['content', 'thumbnail_url']],
  ['content.duration_seconds', ['content', 'duration_seconds']],
  ['engagement.views', ['engagement', 'views']],
  ['engagement.likes', ['engagement', 'likes']],
  ['engagement.comments', ['engagement', 'comments']],
  ['engagement.shares', ['engagement', 'shares']],
  ['engagement.saves', ['engagement', 'saves']],
  ['flags.nsfw', ['flags', 'nsfw']],
  ['flags.spoiler', ['flags', 'spoiler']],
  ['flags.pinned', ['flags', 'pinned']],
  ['flags.likes_hidden', ['flags', 'likes_hidden']],
  ['flags.comments_hidden', ['flags', 'comments_hidden']],
  ['flags.shares_hidden', ['flags', 'shares_hidden']],
  ['flags.views_hidden', ['flags', 'views_hidden']],
  ['flags.saves_hidden', ['flags', 'saves_hidden']],
  ['flags.deleted', ['flags', 'deleted']],
  ['parent_id', ['parent_id']],
  ['ext', ['ext']],
];

export const LABEL_COLUMNS: Array<[column: string, path: string[]]> = Object.entries(LABEL_FIELDS).flatMap(([family, fields]) =>
  fields.map((f): [string, string[]] => [`labels.${family}.${f}`, ['computed', 'labels', family, f]]),
);

export const RELEVANCE_COLUMNS: Array<[column: string, path: string[]]> = (['p', 'sense', 'depth', 'spam'] as const).map(
  (f): [string, string[]] => [`relevance.${f}`, ['computed', 'relevance', f]],
);

/** The stable CSV column list, in order. */
export const CSV_COLUMNS: readonly string[] = Object.freeze([
  'platform',
  'kind',
  'id',
  ...RECORD_COLUMNS.map(([name]) => name),
  'coauthors',
  ...LABEL_COLUMNS.map(([name]) => name),
  ...RELEVANCE_COLUMNS.map(([name]) => name),
  'tags',
  'note',
  'overrides',
  'first_seen_at',
  'last_seen_at',
  'extra',
  // after `extra` (2026-11-28): every older column keeps its place (docs/export.md "Columns")
  'checked_at',
  'missing_since',
]);
