/**
 * Small fixture registry and world for the conformance suite: a handful of EndpointDefs that
 * exercise every server rule (fixed and metered prices, cursors, native paging params, sync,
 * non-date-ordered lists, judgments, relevance, collect-until-N, caps, single records) and a
 * deterministic fake world whose feeds grow with the sandbox clock.
 */
import { createHash } from 'node:crypto';
import type { CatalogueParam, ListItem, Platform } from '../../shared/api-types';
import type { EndpointDef, FeedResult, NotFound, SingleResult, World, WorldQuery, WorldRow } from '../types';
import type { RegistryLike, ServerDeps, ValidateResult } from '../server/types';

export const FIXTURE_EPOCH = Date.UTC(2025, 0, 15, 12, 0, 0);
const H = 3600_000;

function p(name: string, type: CatalogueParam['type'] = 'string', required = false): CatalogueParam {
  return { name, required, in: 'query', type, description: name };
}
const SHARED = ['dry_run', 'since', 'until', 'stop_at_id', 'recent_days', 'exclude_pinned', 'trim', 'include'];
const JUDG = [
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
const REL = ['relevance', 'relevance_threshold', 'relevant_to'];

function def(d: Partial<EndpointDef> & Pick<EndpointDef, 'platform' | 'path' | 'credits'>, names: string[]): EndpointDef {
  const base: EndpointDef = {
    platform: d.platform,
    path: d.path,
    group: 'posts',
    label: d.path,
    description: 'fixture',
    credits: d.credits,
    tier: 'standard',
    cacheTtlSeconds: 21600,
    order: 1,
    gettable: true,
    assumed: false,
    params: [],
    shape: 'list',
    feed: 'user_posts',
    record: 'post',
    paging: { param: 'cursor', pageSize: 5 },
    acceptsMaxPages: false,
    sync: false,
    dateOrdered: true,
    feedOptions: false,
    labels: null,
    relevance: false,
  };
  const out = { ...base, ...d };
  const params = new Set<string>(['dry_run', ...names]);
  if (out.paging) {
    params.add('cursor');
    params.add(out.paging.param);
    if (out.paging.alt) params.add(out.paging.alt);
  }
  if (out.acceptsMaxPages) params.add('max_pages');
  out.params = [...params].map((n) =>
    p(n, n === 'max_pages' || n === 'recent_days' || n === 'limit' || n === 'scan_pages' ? 'integer' : 'string'),
  );
  return out;
}

export const FIXTURE_ENDPOINTS: EndpointDef[] = [
  def(
    {
      platform: 'photo_net',
      path: 'profile/posts',
      credits: { min: 20, max: 340 },
      sync: true,
      feedOptions: true,
      labels: 'post',
      include: ['audio'],
    },
    ['handle', ...SHARED, ...JUDG],
  ),
  def(
    {
      platform: 'photo_net',
      path: 'profile/reels',
      credits: { min: 20, max: 360 },
      sync: true,
      feedOptions: true,
      trimMedia: true,
      labels: 'post',
      include: ['stats'],
      paging: { param: 'cursor', alt: 'max_id', pageSize: 5 },
    },
    ['handle', ...SHARED, ...JUDG],
  ),
  def(
    {
      platform: 'photo_net',
      path: 'post/comments',
      credits: { min: 100, max: 380 },
      feed: 'comments',
      labels: 'comment',
      topRepeats: true,
    },
    ['url', 'sort', 'scan_pages', ...JUDG],
  ),
  def({ platform: 'photo_net', path: 'profile/posts/full', credits: { min: 100, max: 500 }, limit: { kind: 'collect', max: 50 } }, [
    'handle',
    'limit',
  ]),
  def(
    {
      platform: 'micro_net',
      path: 'search/tweets',
      credits: { min: 20, max: 180 },
      feed: 'search_posts',
      acceptsMaxPages: true,
      relevance: true,
      cacheTtlSeconds: 3600,
    },
    ['query', ...REL],
  ),
  def({ platform: 'micro_net', path: 'user/tweets', credits: 20, sync: true, acceptsMaxPages: true }, ['handle', 'since', 'stop_at_id']),
  def({ platform: 'open_micro_net', path: 'user/posts', credits: 10, dateOrdered: false, dateFilter: true }, ['handle', 'since', 'until']),
  def(
    {
      platform: 'video_net',
      path: 'channel/videos',
      credits: { min: 20, max: 40 },
      sync: true,
      paging: { param: 'continuationToken', pageSize: 5 },
    },
    ['handle', 'since', 'stop_at_id'],
  ),
  def({ platform: 'work_net', path: 'post/reposts', credits: 100, paging: { param: 'cursor', alt: 'page', pageSize: 5 } }, ['url']),
  def({ platform: 'work_net', path: 'search/people', credits: 20, feed: 'accounts', record: 'profile', limit: { kind: 'cap', max: 5 } }, [
    'query',
    'limit',
  ]),
  def({ platform: 'forum_net', path: 'search/comments', credits: 20, feed: 'search_comments', cacheTtlSeconds: 3600 }, [
    'query',
    'switch_from',
  ]),
  def(
    {
      platform: 'thread_net',
      path: 'profile',
      credits: 20,
      shape: 'single',
      singleKey: 'profile',
      record: 'profile',
      paging: null,
      cacheTtlSeconds: 86400,
    },
    ['handle'],
  ),
  def({ platform: 'qa_net', path: 'search', credits: 150, shape: 'single', singleKey: 'result', record: 'object', paging: null }, [
    'query',
  ]),
  def(
    {
      platform: 'video_net_b',
      path: 'video/transcript',
      credits: 100,
      shape: 'single',
      singleKey: 'transcript',
      record: 'transcript',
      paging: null,
    },
    ['url'],
  ),
  def({ platform: 'social_net', path: 'group', credits: 20, gettable: false, shape: 'single', singleKey: 'group', paging: null }, ['url']),
];

function requiredOf(d: EndpointDef): string[] {
  const first: Record<string, string> = {
    'photo_net/post/comments': 'url',
    'micro_net/search/tweets': 'query',
    'work_net/post/reposts': 'url',
    'work_net/search/people': 'query',
    'forum_net/search/comments': 'query',
    'qa_net/search': 'query',
    'video_net_b/video/transcript': 'url',
    'social_net/group': 'url',
  };
  return [first[`${d.platform}/${d.path}`] ?? 'handle'];
}

export const fixtureRegistry: RegistryLike = {
  servedPlatforms: [
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
    'qa_net',
    'video_net_b',
  ],
  findEndpoint: (platform, path) => FIXTURE_ENDPOINTS.find((d) => d.platform === platform && d.path === path.replace(/^\/+|\/+$/g, '')),
  buildCatalogue: (baseUrl) => ({
    success: true,
    base_url: baseUrl,
    endpoints: FIXTURE_ENDPOINTS.map((d) => ({ path: `/v1/${d.platform}/${d.path}`, credits: d.credits })),
  }),
  buildOpenApi: () => ({ openapi: '3.1.0', info: { version: '2.0.0' }, paths: {} }),
  validateParams(d, query): ValidateResult {
    const names = new Set(d.params.map((x) => x.name));
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(query)) {
      if (!names.has(k)) return { ok: false, type: 'INVALID_REQUEST', message: `Parameter '${k}' is not accepted.` };
      if (v.trim() === '') continue;
      out[k] = v.trim();
    }
    for (const r of requiredOf(d))
      if (out[r] === undefined) return { ok: false, type: 'INVALID_REQUEST', message: `Missing required parameter '${r}'.` };
    return { ok: true, params: out };
  },
};

function h(s: string): number {
  return createHash('sha256').update(s).digest().readUInt32BE(0) / 0x100000000;
}

function post(platform: string, id: string, at: number | null, pinned: boolean, text: string, likes: number): ListItem {
  return {
    post: {
      id,
      url: `https://${platform}.example/p/${id}`,
      kind: 'reel',
      content: {
        text,
        media_urls: [`https://cdn.example/${id}.mp4`],
        thumbnail_url: `https://cdn.example/${id}.jpg`,
        duration_seconds: 12,
      },
      author: { id: '42', username: 'someone', display_name: 'Some One', avatar_url: null, verified: false },
      engagement: { views: 100, likes, comments: 3, shares: null, saves: null },
      flags: {
        nsfw: false,
        spoiler: false,
        pinned,
        likes_hidden: false,
        comments_hidden: false,
        shares_hidden: null,
        views_hidden: false,
        saves_hidden: null,
        deleted: false,
      },
      published_at: at === null ? null : new Date(at).toISOString(),
      language: 'en',
      ext: { coauthors: [] },
    },
  };
}

function row(platform: string, id: string, at: number | null, pinned: boolean, text: string, likes = 1): WorldRow {
  return { id, publishedAt: at, pinned, item: post(platform, id, at, pinned, text, likes), text };
}

/** How many base posts a handle has ('empty' → 0, 'missing' → not found). */
function sizeOf(handle: string): number {
  if (handle === 'empty') return 0;
  if (handle.startsWith('n')) return Number(handle.slice(1)) || 12;
  return 23;
}

export function fixtureWorld(epoch = FIXTURE_EPOCH): World {
  return {
    seed: 1,
    feed(q: WorldQuery): FeedResult | NotFound {
      const d = q.def;
      const key = q.params.handle ?? q.params.query ?? q.params.url ?? '';
      if (key === 'missing') return { notFound: true };
      const rows: WorldRow[] = [];
      if (d.feed === 'user_posts' && d.dateOrdered) {
        const n = sizeOf(key);
        if (n > 0 && !key.startsWith('n')) rows.push(row(d.platform, '500', epoch - 200 * 24 * H, true, 'pinned intro post'));
        // growth: one new post every 3 h of sandbox time after the epoch
        for (let j = Math.floor((q.now - epoch) / (3 * H)); j >= 1; j--)
          rows.push(row(d.platform, String(2_000_000 + j), epoch + j * 3 * H, false, `new post ${j}`));
        for (let k = 1; k <= n; k++)
          rows.push(row(d.platform, String(1_000_000 - k), epoch - k * 3 * H, false, `post ${k} about coffee`, k));
      } else if (d.feed === 'user_posts') {
        // not date ordered; every 4th row has no date
        for (let k = 1; k <= 15; k++) {
          const at = k % 4 === 0 ? null : epoch - Math.round(h(`${key}${k}`) * 40) * 24 * H;
          rows.push(row(d.platform, String(3_000_000 + k), at, false, `open post ${k}`));
        }
      } else if (d.feed === 'accounts') {
        for (let k = 1; k <= 12; k++)
          rows.push({
            id: String(k),
            publishedAt: null,
            pinned: false,
            item: { profile: { id: String(k), username: `user${k}` } },
            text: '',
          });
      } else {
        const n = key === 'empty' ? 0 : 30;
        for (let k = 1; k <= n; k++) {
          const text = k % 5 === 0 ? `I switched from ${q.params.switch_from ?? 'Acme'} to Other because price` : `${key} row ${k}`;
          rows.push(row(d.platform, String(4_000_000 - k), epoch - k * H, false, text, (k * 7) % 13));
        }
      }
      return { rows, unavailable: d.feed === 'user_posts' ? ['engagement.shares'] : [] };
    },
    single(q: WorldQuery): SingleResult | NotFound {
      const v = q.params.handle ?? q.params.url ?? q.params.query ?? '';
      if (v === 'missing') return { notFound: true };
      if (v === 'nospeech') return { notFound: true, reason: 'no_speech' };
      if (v === 'nocaptions') return { value: null, unavailable: [] };
      return { value: { id: '777', name: v }, unavailable: [] };
    },
    labels(r, kind, opts) {
      if (r.id.endsWith('7')) return { labels: null };
      const labels: Record<string, Record<string, unknown>> = {};
      for (const f of opts.families) {
        const x = h(`${r.id}/${f}`);
        if (f === 'quality') labels[f] = { engagement_bait: x, rage_bait: 0.1, fact_density: 1, secondhand: 0.2, post_aim: 'inform' };
        else if (kind === 'comment') labels[f] = { p: x };
        else labels[f] = { p: x, label: 'other' };
      }
      const evidence = opts.evidence ? Object.fromEntries(opts.families.map((f) => [f, { quote: r.text, sentence_index: 0 }])) : undefined;
      return { labels, evidence };
    },
    relevance(r) {
      if (r.id.endsWith('3')) return null;
      return { p: h(`rel/${r.id}`), sense: 'main', depth: 1, spam: 0 };
    },
    switchReceipts(rows, brand) {
      return rows
        .filter((r) => r.text.includes(`switched from ${brand}`))
        .map((r) => ({ comment_id: r.id, text: r.text, reason: 'price', destination: 'Other', link: null }));
    },
  };
}

export function fixtureDeps(epoch = FIXTURE_EPOCH): ServerDeps {
  return { registry: fixtureRegistry, world: fixtureWorld(epoch) };
}

export type { Platform };
