/**
 * The contract's plain values — lists, limits and words — without zod (issue 30 "Opening"): the
 * renderer imports them from here, so zod and the contract's schemas, built when their module is
 * evaluated, stay out of the app's first script (84 KB minified and their construction before the
 * first frame). The contract modules (query.ts, contract-library.ts, contract-network.ts,
 * contract-tags.ts) build their schemas from these and re-export them.
 * Imports nothing.
 */

/** The five engagement counts (query.ts: sorts, growth, metric history). */
export const ENGAGEMENT_FIELDS = ['views', 'likes', 'comments', 'shares', 'saves'] as const;
export type EngagementField = (typeof ENGAGEMENT_FIELDS)[number];

/** The largest page `library.query` answers. */
export const MAX_PAGE = 1000;

export const EXPORT_FORMAT_NAMES = ['csv', 'json', 'jsonl', 'xlsx', 'parquet', 'gexf', 'graphml'] as const;
export type ExportFormatName = (typeof EXPORT_FORMAT_NAMES)[number];
/** What each format is (one entry per format; the core's run of each: src/core/export/formats.ts FORMATS): a network file, or a table that takes a column subset. */
export const EXPORT_FORMAT_TRAITS: Readonly<Record<ExportFormatName, { network: boolean; columns: boolean }>> = {
  csv: { network: false, columns: true },
  json: { network: false, columns: false },
  jsonl: { network: false, columns: false },
  xlsx: { network: false, columns: true },
  parquet: { network: false, columns: true },
  gexf: { network: true, columns: false },
  graphml: { network: true, columns: false },
};

export const NETWORK_KINDS = ['co-hashtag', 'co-mention', 'user-hashtag', 'mentions'] as const;
export type NetworkKindName = (typeof NETWORK_KINDS)[number];

/** Words the UI shows for each network. */
export const NETWORK_WORDS: Readonly<Record<NetworkKindName, string>> = {
  'co-hashtag': 'hashtags used together',
  'co-mention': 'accounts mentioned together',
  'user-hashtag': 'accounts and the hashtags they use',
  mentions: 'who mentions or replies to whom',
};

/** What each network's nodes come from (the words for an empty network). */
export const NETWORK_ENTITIES: Readonly<Record<NetworkKindName, 'hashtags' | 'mentions'>> = {
  'co-hashtag': 'hashtags',
  'co-mention': 'mentions',
  'user-hashtag': 'hashtags',
  mentions: 'mentions',
};

/** The colours a tag can have, by name (the UI draws each with a text-safe tone in both themes; never colour alone). */
export const TAG_COLOURS = ['red', 'orange', 'yellow', 'green', 'teal', 'blue', 'purple', 'pink', 'grey'] as const;
export type TagColour = (typeof TAG_COLOURS)[number];

export function isTagColour(s: string): s is TagColour {
  return (TAG_COLOURS as readonly string[]).includes(s);
}
