/**
 * Wire types of the Social Data Read API (../shared/api-spec.md), shared by the
 * sandbox (server side), the request core (client side) and the renderer.
 * Pure types and constants: this file imports nothing.
 */

/** The 15 networks, by their placeholder names (spec "Notation"). */
export const PLATFORMS = [
  'photo_net',
  'short_video_net',
  'social_net',
  'work_net',
  'micro_net',
  'thread_net',
  'video_net',
  'forum_net',
  'pin_net',
  'open_micro_net',
  'cn_video_net',
  'short_video_net_b',
  'qa_net',
  'stream_net',
  'video_net_b',
] as const;
export type Platform = (typeof PLATFORMS)[number];

export function isPlatform(s: string): s is Platform {
  return (PLATFORMS as readonly string[]).includes(s);
}

/** Spec "Errors". The set of parameter-error types is open, hence `string`. */
export type KnownErrorType =
  | 'MISSING_API_KEY'
  | 'INVALID_API_KEY'
  | 'API_KEY_REVOKED'
  | 'INSUFFICIENT_CREDITS'
  | 'UNKNOWN_PLATFORM'
  | 'UNKNOWN_ENDPOINT'
  | 'RESOURCE_NOT_FOUND'
  | 'METHOD_NOT_SUPPORTED'
  | 'IDEMPOTENCY_IN_PROGRESS'
  | 'RATE_LIMITED'
  | 'CONCURRENCY_LIMIT'
  | 'CLIENT_CLOSED_REQUEST'
  | 'INTERNAL_ERROR'
  | 'SERVICE_UNAVAILABLE'
  | 'UPSTREAM_ERROR'
  | 'INVALID_REQUEST'
  | 'BAD_REQUEST';
export type ErrorType = KnownErrorType | (string & {});

/** Spec "Errors" rule 2: only these are retried. */
export const RETRYABLE_ERROR_TYPES: ReadonlySet<string> = new Set([
  'RATE_LIMITED',
  'CONCURRENCY_LIMIT',
  'IDEMPOTENCY_IN_PROGRESS',
  'SERVICE_UNAVAILABLE',
  'UPSTREAM_ERROR',
  'INTERNAL_ERROR',
]);

export interface Pagination {
  next_cursor: string | null;
  has_more: boolean;
  page_size: number;
  stopped_at?: 'since' | 'known_id' | 'end' | null;
}

/** Success envelope of every data call (spec "Response envelope"). */
export interface Envelope<D = Record<string, unknown>> {
  success: true;
  platform: string;
  endpoint: string;
  schema_version: '2';
  pagination?: Pagination;
  unavailable: string[];
  credits_used: number;
  credits_remaining: number | null;
  request_id: string;
  cached: boolean;
  idempotent_replay: boolean;
  charge_reason: 'miss' | 'replay' | (string & {});
  free_call: boolean;
  data: D;
  /** Warnings such as `label_mention_needs_brand` (sandbox: top-level array). */
  warnings?: string[];
}

export interface ErrorEnvelope {
  success: false;
  error: { type: ErrorType; message: string; reason?: string };
  request_id: string;
  credits_used: 0;
  credits_remaining: number | null;
}

export type AnyEnvelope = Envelope | ErrorEnvelope;

/**
 * A list item is an object with exactly one key naming the record kind:
 * `{ post }` for posts, comments, replies, events, questions, clips;
 * `{ profile }` for accounts; `{ group }`, `{ advertiser }`, `{ hashtag }`,
 * `{ place }`, `{ audio }` for the other list kinds. Every record has a string `id`.
 */
export type ListItem = { [kind: string]: { id: string } & Record<string, unknown> };

export interface ListData {
  items: ListItem[];
  total: number;
  truncated: boolean;
  ext: Record<string, unknown>;
  dropped?: number;
  labels?: LabelsReport;
  relevance?: RelevanceReport;
  walk?: { stopped: 'end' | 'max_pages' | 'time_budget' | 'page_error' };
  scan?: { pages_read: number; pages_billed: number; thread_ended: boolean };
  held_back?: { ids: string[]; recall_id: string };
  switch_receipts?: SwitchReceipt[];
  hydration?: Record<string, unknown>;
}

export interface LabelsReport {
  mode: 'default' | 'requested' | (string & {});
  judged: string[];
  billed: string[];
  status: 'complete' | 'partial' | 'skipped';
  pending: string[] | null;
  dropped_ids?: string[];
  warnings?: string[];
}
export interface RelevanceReport {
  origin: 'default' | 'score' | 'filter' | (string & {});
  status: 'complete' | 'partial' | 'skipped';
  pending: string[] | null;
  dropped_ids?: string[];
  threshold?: number;
}
export interface SwitchReceipt {
  comment_id: string;
  text: string;
  reason: string;
  destination: string | null;
  link: string | null;
}

/** Unified post record, schema version 2 (spec "Unified post record"). */
export interface PostRecord {
  id: string;
  url: string | null;
  kind: string | null;
  parent_id?: string | null;
  content: {
    text: string | null;
    media_urls: string[] | null;
    thumbnail_url: string | null;
    duration_seconds: number | null;
  };
  author: AuthorRecord;
  engagement: {
    views: number | null;
    likes: number | null;
    comments: number | null;
    shares: number | null;
    saves: number | null;
  };
  flags: {
    nsfw: boolean | null;
    spoiler: boolean | null;
    pinned: boolean | null;
    likes_hidden: boolean | null;
    comments_hidden: boolean | null;
    shares_hidden: boolean | null;
    views_hidden: boolean | null;
    saves_hidden: boolean | null;
    deleted: boolean;
  };
  published_at: string | null;
  language: string | null;
  ext: Record<string, unknown> | null;
  computed?: Computed;
}

export interface AuthorRecord {
  id: string | null;
  username: string | null;
  display_name: string | null;
  avatar_url: string | null;
  verified: boolean | null;
  followers?: number | null;
  following?: number | null;
  bio?: string | null;
  joined_at?: string | null;
  ext?: Record<string, unknown> | null;
}

export interface Computed {
  labels?: Record<string, Record<string, unknown>> | null;
  relevance?: { p: number; sense: string | null; depth: number | null; spam: number | null } | null;
  labels_evidence?: Record<string, { quote: string; sentence_index: number } | null> | null;
}

export const POST_LABELS = ['sponsored', 'intent', 'niche', 'mention', 'quality', 'injection'] as const;
export const DEFAULT_POST_LABELS = ['sponsored', 'intent', 'niche'] as const;
export const COMMENT_LABELS = [
  'sentiment',
  'spam',
  'question',
  'purchase_intent',
  'complaint',
  'toxic',
  'low_quality',
  'injection',
] as const;
export const DEFAULT_COMMENT_LABELS = ['sentiment', 'question', 'purchase_intent', 'complaint'] as const;
export const INTENT_VALUES = [
  'asking_for_recommendation',
  'comparing_options',
  'switching_away',
  'complaining',
  'promoting',
  'news_or_discussion',
  'other',
] as const;

/** Catalogue record (GET /v1/endpoints). */
export interface CatalogueParam {
  name: string;
  required: boolean;
  in: 'query';
  type: 'string' | 'integer' | 'number' | 'boolean' | (string & {});
  description: string;
  help?: string | null;
  example?: string | number | boolean | null;
  enum?: string[] | null;
  minimum?: number | null;
  maximum?: number | null;
  one_of_group?: string | null;
}

export interface CatalogueEndpoint {
  path: string;
  method: 'GET';
  platform: string;
  group: string;
  label: string;
  description: string;
  credits: number | { min: number; max: number };
  tier: 'standard' | 'advanced' | (string & {});
  paginates: boolean;
  cache_ttl_seconds: number;
  order: number;
  params: CatalogueParam[];
  available: boolean;
}

export interface Catalogue {
  success: boolean;
  base_url: string;
  docs: string;
  auth: { header: string; format: string; note: string };
  headers: Record<string, string>;
  pricing: { note: string; free: string[] };
  tools: Record<string, unknown>;
  summary: {
    endpoints: number;
    gettable: number;
    metered: number;
    platforms: number;
    spec_version: string;
    schema_version: string;
    max_our_credits: number;
  };
  meta_endpoints: Array<Record<string, unknown>>;
  endpoints: CatalogueEndpoint[];
}

/** Native paging parameters the spec names (Pagination rule 5). */
export const NATIVE_PAGING_PARAMS = [
  'page',
  'continuationToken',
  'max_cursor',
  'next_page_id',
  'pagination_token',
  'next_max_id',
  'max_id',
  'after',
] as const;

/** Idempotency-Key validity (spec "Request headers"). */
export function isValidIdempotencyKey(k: string): boolean {
  return k.length > 0 && k.length <= 255 && /^[A-Za-z0-9._:-]+$/.test(k);
}

/** Key format (spec "Authentication" 4). The sandbox uses prefix `sdr`. */
export const KEY_PATTERN = /^[a-z][a-z0-9]*_(live|test)_[A-Za-z0-9_-]{43}$/;
