/**
 * The words of collection plans (docs/collect.md), free of zod: what each input can be collected
 * for, the ranks of a set's top K, the input states — the renderer imports these at run time.
 */

/** What to collect for each input. */
export const COLLECT_DOS = ['feed', 'profile', 'comments', 'post', 'search', 'hashtag'] as const;
export type CollectDo = (typeof COLLECT_DOS)[number];

/** In words, for the UI and the CLI. */
export const COLLECT_DO_WORDS: Record<CollectDo, { label: string; each: string }> = {
  feed: { label: 'Posts of each account', each: 'account' },
  profile: { label: 'Profile of each account', each: 'account' },
  comments: { label: 'Comments of each post', each: 'post' },
  post: { label: 'Each post again (fresh counts)', each: 'post' },
  search: { label: 'A search for each query', each: 'query' },
  hashtag: { label: 'A search for each hashtag', each: 'hashtag' },
};

/** Ranking for top-K of a set: one engagement count, or all of them together. */
export const COLLECT_RANKS = ['views', 'likes', 'comments', 'shares', 'saves', 'engagement'] as const;
export type CollectRank = (typeof COLLECT_RANKS)[number];

export type CollectInputState = 'waiting' | 'running' | 'done' | 'held' | 'failed' | 'skipped';
export const COLLECT_INPUT_STATES: readonly CollectInputState[] = ['waiting', 'running', 'done', 'held', 'failed', 'skipped'];
