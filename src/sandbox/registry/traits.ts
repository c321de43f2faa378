/**
 * World traits (EndpointDef.world): how the synthetic world answers an endpoint. Each endpoint's
 * row in endpoints.ts declares what differs (Row.world); the rest follows its feed and record.
 */
import type { EndpointDef, FeedKind, RecordKind, WorldGen, WorldTraits } from '../types';

const GEN: Record<FeedKind, WorldGen> = {
  user_posts: 'user_posts',
  comments: 'comments',
  replies: 'replies',
  search_posts: 'search_posts',
  questions: 'search_posts',
  search_comments: 'search_comments',
  accounts: 'accounts',
  events: 'events',
  groups: 'objects',
  advertisers: 'objects',
  hashtags: 'objects',
  places: 'objects',
  audio: 'objects',
  generic_posts: 'generic_posts',
};

/** The traits of an endpoint of this output: the defaults of its feed and record, then `declared`. */
export function worldTraits(
  out: { shape: 'list' | 'single'; feed?: FeedKind; record: RecordKind },
  declared: Partial<WorldTraits> = {},
): WorldTraits {
  const feed = out.feed ?? 'generic_posts';
  const base: WorldTraits = {
    gen: out.shape === 'single' ? 'single' : feed === 'generic_posts' && out.record === 'object' ? 'object_posts' : GEN[feed],
  };
  if (out.shape === 'list' && feed === 'questions') base.rowKind = 'question';
  return { ...base, ...declared };
}

/** The traits the world follows for `def`: the registry's, or the defaults of a hand-built def. */
export function traitsOf(def: EndpointDef): WorldTraits {
  return def.world ?? worldTraits(def);
}
