/**
 * Internal interfaces of the sandbox (the API emulator). Three parts meet here:
 *  - registry/  : one EndpointDef per endpoint; drives routing, validation,
 *                 GET /v1/endpoints and GET /v1/openapi.json.
 *  - world/     : the deterministic synthetic world (a pure function of seed,
 *                 identifier and sandbox clock) plus the judgments (labels, relevance).
 *  - server/    : HTTP, auth, limits, billing, idempotency, cursors, cache, chaos, admin.
 */
import type { CatalogueParam, ListItem, Platform } from '../shared/api-types';

export type RecordKind =
  | 'post' // posts, comments, replies, events, questions, clips: unified post record
  | 'profile'
  | 'group'
  | 'advertiser'
  | 'hashtag'
  | 'place'
  | 'audio'
  | 'transcript'
  | 'object'; // anything else returned as a free-form object

/** What kind of list a list endpoint serves; the world uses it to pick generators. */
export type FeedKind =
  | 'user_posts' // an account's own posts/reels/videos/tweets (dated, newest first, pinned first, grows over time)
  | 'comments' // comments of a post/video (dated; `sort` decides order)
  | 'replies' // replies under one comment
  | 'search_posts' // keyword / hashtag / popular search results (post records)
  | 'search_comments' // forum comment search (rows carry ext.post_title etc., parent_id null)
  | 'accounts' // followers, following, similar, search/users, search/profiles, likers...
  | 'groups'
  | 'advertisers'
  | 'hashtags' // hashtags/popular boards
  | 'places'
  | 'audio'
  | 'events'
  | 'questions'
  | 'generic_posts'; // any other list of posts (trending, location posts, playlist items...)

export interface EndpointDef {
  platform: Platform;
  /** Path after the platform segment, no leading slash: e.g. `profile/posts`. */
  path: string;
  group: string; // e.g. 'profiles', 'posts', 'comments', 'search', 'discovery', 'ads', 'media'
  label: string;
  /** Spec-derived text; when anything was assumed it says "(assumed: ...)". */
  description: string;
  /** Per page (per call without max_pages). Metered when {min,max}. */
  credits: number | { min: number; max: number };
  tier: 'standard' | 'advanced';
  cacheTtlSeconds: number;
  order: number;
  /** false → listed in catalogue but answers 405 METHOD_NOT_SUPPORTED. */
  gettable: boolean;
  /** true when price or params were not given by the spec and were chosen. */
  assumed: boolean;
  params: CatalogueParam[];

  /** What the response carries. `list` → data.items[]; others → data.<single key>. */
  shape: 'list' | 'single';
  /** For `single`: the key under data (post, profile, transcript, comment, ...). */
  singleKey?: string;
  /** For `list`: what the rows are. */
  feed?: FeedKind;
  record: RecordKind;
  /** null = not paginated. Otherwise how the page position travels. */
  paging: null | {
    /** Name of the query param that carries the position: 'cursor' or a native one (continuationToken, after, max_id, page...). */
    param: string;
    /** Extra accepted native param beside `cursor`, if any (e.g. photo profile/reels accepts cursor and max_id). */
    alt?: string;
    pageSize: number;
  };
  acceptsMaxPages: boolean;
  /** since / stop_at_id (spec "Incremental sync"). */
  sync: boolean;
  /** false → since/until only filter each page (spec: open_micro user/posts, cn_video search). */
  dateOrdered: boolean;
  /** recent_days, exclude_pinned, trim accepted. */
  feedOptions: boolean;
  /** Judgment parameters: 'post' | 'comment' label families, or null when not label-capable. */
  labels: 'post' | 'comment' | null;
  /** Search endpoint: rows carry computed.relevance; relevance params accepted. */
  relevance: boolean;
  /** `limit` semantics, when the endpoint has one. */
  limit?: { kind: 'cap' | 'collect'; max: number };
  /** Accepted `include` tokens. */
  include?: string[];
  /**
   * true → `since`/`until` accepted as plain per-page filters although the endpoint is not a
   * sync endpoint (open_micro_net user/posts and search, cn_video_net search). Sync endpoints
   * accept since/until regardless of this flag.
   */
  dateFilter?: boolean;
  /**
   * true → with `sort=top` (the default) pages past the popular head mostly repeat rows already
   * served on earlier pages of the walk (photo network post/comments; spec: "a `top` walk repeats
   * comments once past the popular head").
   */
  topRepeats?: boolean;
  /** For unpaginated lists (`paging` null): how many rows one call returns. */
  listSize?: number;
  /** true → `trim` also drops content.media_urls and content.duration_seconds (reel lists; the cover stays in thumbnail_url). */
  trimMedia?: boolean;
  /** Spec variant record-kinds: the natural key of this endpoint's profile items ('user' when absent). */
  profileKey?: 'profile';
  /** true → a `site:` operator in `query` is refused before billing (social group search). */
  noSiteOperator?: boolean;
  /**
   * How the world answers (registry/traits.ts): declared per endpoint in the registry, always set
   * there; absent on hand-built defs (tests), which get the defaults of their feed and record.
   */
  world?: WorldTraits;
}

/** Which generator of the world answers an endpoint. */
export type WorldGen =
  | 'single' // a single record; `singleKey` / `record` pick which
  | 'user_posts' // an account's own posts (optionally of some kinds only)
  | 'comments'
  | 'replies'
  | 'search_posts' // a query's finite set of posts that grows with time
  | 'search_comments'
  | 'accounts'
  | 'events'
  | 'objects' // groups, advertisers, hashtag boards, places, audio (by `feed`)
  | 'generic_posts' // any other list of posts (trending, by place, by sound, in a playlist...)
  | 'stories' // live stories of the last 24 h
  | 'highlight' // the stories of one highlight
  | 'object_posts'; // free-form objects of an account (highlights, playlists) or effects by id

/**
 * The world's behaviour for one endpoint, declared rather than read from the path (the path only
 * enters the world's hashes, as the endpoint's identity). Absent fields mean "no".
 */
export interface WorldTraits {
  gen: WorldGen;
  /** user_posts: the post kinds listed (absent: every kind). */
  kinds?: readonly string[];
  /** search_posts / generic_posts: the kind of each row (absent: the network's own mix). */
  rowKind?: 'reel' | 'photo_mostly' | 'question';
  /** Fields filled on every row although the network's rows otherwise leave them null. */
  fill?: readonly string[];
  /** accounts / events: a search — rows drawn from the whole network (handles echo the query; past events kept). */
  search?: boolean;
  /** accounts: the list's size — the owner's followers (default) or following, a sample sized by the query, 10-30 similar accounts, or the first 100 likers. */
  audience?: 'followers' | 'following' | 'sample' | 'similar' | 'likers';
  /** accounts: follower counts withheld. */
  hideFollowers?: boolean;
  /** generic_posts: the rows are the named owner's (group, board, playlist, advertiser). */
  byOwner?: boolean;
  /** generic_posts: a chart — a few days of rows, most liked first, not growing. */
  trending?: boolean;
  /** search_posts: no cursor; one call answers up to 100 rows within since..until at whole-second precision. */
  untilWindow?: boolean;
  /** Attached: the profile and metrics (data.ext), the post's like count (data.ext), ad fields or the reposted url (post.ext). */
  attach?: 'profile_metrics' | 'like_count' | 'ad' | 'reposted_from';
  /** object_posts: the item key of each row. */
  item?: 'highlight' | 'effect' | 'playlist' | 'object';
  /** single profile: the reduced (basic) or extended (about) view. */
  profile?: 'basic' | 'about';
}

/** One row of a list, before the server applies paging, filters and judgments. */
export interface WorldRow {
  id: string;
  /** ms since epoch (sandbox clock), or null when the network gives no date. */
  publishedAt: number | null;
  pinned: boolean;
  /** The item as it appears in data.items[] (one key → record). */
  item: ListItem;
  /** Plain text the judgments read (caption / comment / bio). */
  text: string;
}

export interface WorldQuery {
  def: EndpointDef;
  params: Record<string, string>;
  /** Sandbox clock, ms since epoch. */
  now: number;
}

export type NotFound = { notFound: true; reason?: string };

export interface FeedResult {
  /** Every row visible at `now`, in the list's natural order (pinned first, then newest first for dated feeds). */
  rows: WorldRow[];
  /** Field names the network does not provide for these rows (envelope `unavailable`). */
  unavailable: string[];
  /** Extra data.ext content (e.g. feedback_id / expansion_token for social comments). */
  ext?: Record<string, unknown>;
}

export interface SingleResult {
  /** data.<key> value. `null` allowed (e.g. transcript without captions). */
  value: Record<string, unknown> | null;
  unavailable: string[];
  /** Extra fields to put beside it in data (e.g. total comment count). */
  extra?: Record<string, unknown>;
}

export interface JudgeOptions {
  families: string[]; // label families to produce
  brand?: string;
  brandDescription?: string;
  offer?: string;
  evidence?: boolean;
}

export interface World {
  readonly seed: number;
  feed(q: WorldQuery): FeedResult | NotFound;
  single(q: WorldQuery): SingleResult | NotFound;
  /** Deterministic labels for a row: `computed.labels` value, and evidence when asked. */
  labels(
    row: WorldRow,
    kind: 'post' | 'comment',
    opts: JudgeOptions,
  ): {
    labels: Record<string, Record<string, unknown>> | null;
    evidence?: Record<string, { quote: string; sentence_index: number } | null>;
  };
  /** Deterministic `computed.relevance` for a search row. */
  relevance(row: WorldRow, topic: string): { p: number; sense: string | null; depth: number | null; spam: number | null } | null;
  /** Switch receipts for forum comment search with switch_from. */
  switchReceipts(
    rows: WorldRow[],
    brand: string,
  ): Array<{ comment_id: string; text: string; reason: string; destination: string | null; link: string | null }>;
  /**
   * Aging (docs/sandbox-world.md): false when the row's post was removed or its account made
   * private by `now` (the server leaves it out of the list). Absent: every row stays.
   */
  available?(platform: string, row: WorldRow, now: number): boolean;
  /** Aging: the row's engagement at `now`, in place (the server's copy of the row). */
  atTime?(row: WorldRow, now: number): void;
}
