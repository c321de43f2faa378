/** Record builders for the archive tests (not shipped code paths). */
import type { Envelope } from '../../shared/api-types';
import type { StoredResponse } from '../ports';

export interface PostOpts {
  id: string;
  text?: string | null;
  author?: { id?: string | null; username?: string | null; display_name?: string | null };
  published_at?: string | null;
  views?: number | null;
  likes?: number | null;
  comments?: number | null;
  shares?: number | null;
  saves?: number | null;
  labels?: Record<string, Record<string, unknown>> | null;
  relevance?: number | null;
  /** omit `computed` entirely (judgments off) */
  noComputed?: boolean;
  kind?: string | null;
  parent_id?: string | null;
  language?: string | null;
}

export function post(o: PostOpts): Record<string, unknown> {
  const rec: Record<string, unknown> = {
    id: o.id,
    url: `https://photo-net.example/p/${o.id}`,
    kind: o.kind === undefined ? 'photo' : o.kind,
    parent_id: o.parent_id ?? null,
    content: { text: o.text === undefined ? `post ${o.id}` : o.text, media_urls: null, thumbnail_url: null, duration_seconds: null },
    author: {
      id: o.author?.id === undefined ? 'a1' : o.author.id,
      username: o.author?.username === undefined ? 'alice' : o.author.username,
      display_name: o.author?.display_name === undefined ? 'Alice' : o.author.display_name,
      avatar_url: null,
      verified: null,
    },
    engagement: {
      views: o.views ?? null,
      likes: o.likes ?? null,
      comments: o.comments ?? null,
      shares: o.shares ?? null,
      saves: o.saves ?? null,
    },
    flags: { nsfw: null, spoiler: null, pinned: null, likes_hidden: null, comments_hidden: null, shares_hidden: null, views_hidden: null, saves_hidden: null, deleted: false },
    published_at: o.published_at === undefined ? '2024-05-01T12:00:00Z' : o.published_at,
    language: o.language === undefined ? 'en' : o.language,
    ext: null,
  };
  if (!o.noComputed) {
    rec.computed = {
      labels: o.labels === undefined ? null : o.labels,
      relevance: o.relevance === undefined || o.relevance === null ? null : { p: o.relevance, sense: null, depth: null, spam: null },
    };
  }
  return rec;
}

export function envelope(platform: string, endpoint: string, data: Record<string, unknown>, extra: Partial<Envelope> = {}): Envelope {
  return {
    success: true,
    platform,
    endpoint,
    schema_version: '2',
    unavailable: [],
    credits_used: 1,
    credits_remaining: 100,
    request_id: `req_${endpoint}`,
    cached: false,
    idempotent_replay: false,
    charge_reason: 'miss',
    free_call: false,
    data,
    ...extra,
  };
}

export function listResponse(
  callId: string,
  platform: string,
  endpoint: string,
  items: Array<Record<string, unknown>>,
  opts: { fetchedAt?: number; kind?: string; paramsHash?: string; unavailable?: string[] } = {},
): StoredResponse {
  const kind = opts.kind ?? 'post';
  return {
    callId,
    platform,
    endpoint,
    paramsHash: opts.paramsHash ?? `h_${callId}`,
    fetchedAt: opts.fetchedAt ?? 1_000,
    envelope: envelope(platform, endpoint, { items: items.map((r) => ({ [kind]: r })), total: items.length, truncated: false, ext: {} }, {
      unavailable: opts.unavailable ?? [],
    }),
  };
}
