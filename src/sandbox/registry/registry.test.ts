import { describe, expect, it } from 'vitest';
import { NATIVE_PAGING_PARAMS, PLATFORMS } from '../../shared/api-types';
import type { EndpointDef } from '../types';
import { ENDPOINTS, SERVED_PLATFORMS, endpointsOf, findEndpoint, maxSingleCallCredits } from './index';

const key = (d: EndpointDef) => `${d.platform}/${d.path}`;
const must = (platform: string, path: string): EndpointDef => {
  const d = findEndpoint(platform, path);
  if (!d) throw new Error(`missing ${platform}/${path}`);
  return d;
};
const names = (d: EndpointDef) => d.params.map((p) => p.name);

/** Paths named by the spec's tables, paginated table, "Also named" lists and other-networks table. */
const SPEC_PATHS: Record<string, string[]> = {
  photo_net: [
    'profile',
    'profile/about',
    'profile/posts',
    'post',
    'post/comments',
    'comment',
    'basic-profile',
    'profile/reels',
    'highlights',
    'highlight/detail',
    'search/reels',
    'media/transcript',
    'media/screen-text',
    'user/embed',
    'audio/reels',
    'search/hashtag',
    'search/profiles',
    'reels/trending',
    'followers',
    'following',
    'similar',
    'post/likers',
    'post/stats',
    'tagged',
    'location/posts',
    'engagement',
    'search/location',
    'search',
    'search/popular',
    'post/comment/replies',
    'username-suggestions',
    'search/music',
    'stories',
    'story/download',
    'music/trending',
    'profile/full',
    'profile/reels/full',
    'profile/posts/full',
  ],
  short_video_net: [
    'user/liked',
    'hashtags/popular',
    'effects',
    'profile/videos',
    'post/comments',
    'video/comment/replies',
    'search',
    'search/hashtag',
    'search/top',
    'search/users',
    'user/followers',
    'user/following',
    'song/videos',
    'adlibrary/search',
    'collection/videos',
    'playlist/videos',
    'location/posts',
    'effect/videos',
    'search/music',
    'profile/full',
  ],
  social_net: [
    'profile',
    'profile/posts',
    'post',
    'post/comments',
    'group/posts',
    'search/groups',
    'search/pages',
    'adlibrary/search/companies',
    'events',
    'events/search',
    'post/transcript',
    'post/comment/replies',
    'profile/events',
    'profile/photos',
    'profile/reels',
    'group',
    'adlibrary/ad',
    'adlibrary/company/ads',
    'profile/reels/full',
  ],
  work_net: ['post/comments/replies', 'post/reposts', 'profile/comments', 'profile/contact', 'search/people'],
  micro_net: [
    'user/tweets',
    'search/tweets',
    'tweet/replies',
    'user/media',
    'user/followers',
    'user/following',
    'tweet/retweeters',
    'search/users',
    'profile/full',
  ],
  thread_net: ['profile', 'search', 'user/posts'],
  video_net: [
    'channel/videos',
    'video/comments',
    'video/comment/replies',
    'search',
    'channel/shorts',
    'playlist',
    'search/hashtag',
    'channel/playlists',
    'channel/lives',
    'channel/community-posts',
    'videos/trending',
    'playlist/items',
    'search/advanced',
    'profile/full',
  ],
  forum_net: [
    'subreddit',
    'search',
    'post/comments',
    'subreddit/search',
    'profile/posts',
    'search/comments',
    'subreddits/search',
    'search/media',
    'omni-search',
  ],
  pin_net: ['search', 'board'],
  open_micro_net: ['profile', 'user/posts', 'post', 'search'],
  cn_video_net: ['search'],
  short_video_net_b: ['user/posts'],
  qa_net: ['search'],
  stream_net: ['clip'],
  video_net_b: ['video/transcript'],
};

describe('endpoint registry: coverage', () => {
  it('serves exactly the 15 placeholder networks, each with endpoints', () => {
    expect([...SERVED_PLATFORMS].sort()).toEqual([...PLATFORMS].sort());
    for (const p of PLATFORMS) expect(endpointsOf(p).length, p).toBeGreaterThan(0);
    expect(new Set(ENDPOINTS.map((d) => d.platform)).size).toBe(15);
  });

  it('contains every endpoint the spec names', () => {
    const missing: string[] = [];
    for (const [platform, paths] of Object.entries(SPEC_PATHS)) {
      for (const p of paths) if (!findEndpoint(platform, p)) missing.push(`${platform}/${p}`);
    }
    expect(missing).toEqual([]);
  });

  it('has no duplicate platform/path and unique order numbers', () => {
    const keys = ENDPOINTS.map(key);
    expect(new Set(keys).size).toBe(keys.length);
    const orders = ENDPOINTS.map((d) => d.order);
    expect(new Set(orders).size).toBe(orders.length);
  });

  it('findEndpoint tolerates slashes and rejects unknown paths/platforms', () => {
    expect(findEndpoint('photo_net', '/profile/posts/')?.path).toBe('profile/posts');
    expect(findEndpoint('photo_net', 'nope')).toBeUndefined();
    expect(findEndpoint('not_a_net', 'profile')).toBeUndefined();
  });
});

describe('endpoint registry: spec facts', () => {
  it('sync endpoints are exactly the spec "Incremental sync" list', () => {
    const sync = ENDPOINTS.filter((d) => d.sync)
      .map(key)
      .sort();
    expect(sync).toEqual(
      [
        'social_net/profile/posts',
        'photo_net/profile/posts',
        'photo_net/profile/reels',
        'thread_net/user/posts',
        'short_video_net/profile/videos',
        'micro_net/user/tweets',
        'video_net/channel/videos',
        'video_net/channel/shorts',
      ].sort(),
    );
    for (const d of ENDPOINTS.filter((x) => x.sync)) {
      expect(names(d)).toEqual(expect.arrayContaining(['since', 'until', 'stop_at_id', 'cursor']));
    }
    for (const d of ENDPOINTS.filter((x) => !x.sync)) expect(names(d), key(d)).not.toContain('stop_at_id');
  });

  it('only open_micro_net user/posts and cn_video_net search are not date ordered; they take since/until as filters', () => {
    const notOrdered = ENDPOINTS.filter((d) => !d.dateOrdered)
      .map(key)
      .sort();
    expect(notOrdered).toEqual(['cn_video_net/search', 'open_micro_net/user/posts']);
    for (const k of notOrdered) {
      const [p, ...rest] = k.split('/');
      expect(names(must(p, rest.join('/')))).toEqual(expect.arrayContaining(['since', 'until']));
    }
  });

  it('uses the spec prices and tiers', () => {
    expect(must('photo_net', 'profile/posts').credits).toEqual({ min: 20, max: 340 });
    expect(must('photo_net', 'post/comments').credits).toEqual({ min: 100, max: 380 });
    expect(must('short_video_net', 'hashtags/popular').credits).toEqual({ min: 120, max: 1920 });
    expect(must('short_video_net', 'search/users').credits).toEqual({ min: 20, max: 2000 });
    expect(must('social_net', 'post/transcript').credits).toBe(100);
    expect(must('qa_net', 'search').credits).toBe(50);
    expect(must('open_micro_net', 'search').credits).toBe(10);
    expect(must('cn_video_net', 'search').credits).toEqual({ min: 50, max: 1250 });
    expect(must('cn_video_net', 'search').tier).toBe('advanced');
    expect(ENDPOINTS.filter((d) => d.tier === 'advanced').map(key)).toEqual(['cn_video_net/search']);
  });

  it('uses the native paging parameters in brackets beside cursor', () => {
    expect(must('video_net', 'channel/videos').paging).toMatchObject({ param: 'cursor', alt: 'continuationToken' });
    expect(must('short_video_net', 'profile/videos').paging?.alt).toBe('max_cursor');
    expect(must('short_video_net', 'collection/videos').paging?.alt).toBe('max_cursor');
    expect(must('forum_net', 'subreddit').paging?.alt).toBe('after');
    expect(must('photo_net', 'profile/reels').paging?.alt).toBe('max_id');
    expect(must('photo_net', 'profile/posts').paging?.alt).toBe('next_max_id');
    expect(must('social_net', 'search/groups').paging?.alt).toBe('page');
    expect(must('photo_net', 'location/posts').paging?.pageSize).toBe(60);
    for (const d of ENDPOINTS) {
      if (!d.paging) continue;
      expect(names(d), key(d)).toContain('cursor');
      if (d.paging.alt) {
        expect((NATIVE_PAGING_PARAMS as readonly string[]).includes(d.paging.alt)).toBe(true);
        expect(names(d)).toContain(d.paging.alt);
      }
    }
  });

  it('accepts max_pages exactly where the paginated table says', () => {
    const mp = ENDPOINTS.filter((d) => d.acceptsMaxPages)
      .map(key)
      .sort();
    expect(mp).toEqual(
      [
        'photo_net/search/reels',
        'photo_net/search/hashtag',
        'short_video_net/search',
        'short_video_net/search/hashtag',
        'short_video_net/search/top',
        'micro_net/search/tweets',
        'thread_net/search',
        'video_net/search',
        'video_net/search/hashtag',
        'video_net/search/advanced',
        'forum_net/search',
      ].sort(),
    );
    for (const d of ENDPOINTS) expect(names(d).includes('max_pages'), key(d)).toBe(d.acceptsMaxPages);
  });

  it('limit kinds follow Pagination rule 6', () => {
    const collect = ENDPOINTS.filter((d) => d.limit?.kind === 'collect')
      .map((d) => `${key(d)}:${d.limit?.max}`)
      .sort();
    expect(collect).toEqual(
      [
        'photo_net/profile/posts/full:50',
        'photo_net/profile/reels/full:50',
        'social_net/profile/reels/full:50',
        'thread_net/search:100',
      ].sort(),
    );
    expect(must('qa_net', 'search').limit).toEqual({ kind: 'cap', max: 10 });
    expect(must('cn_video_net', 'search').limit).toEqual({ kind: 'cap', max: 25 });
    expect(must('work_net', 'search/people').limit?.kind).toBe('cap');
  });

  it('cache windows are the spec windows, with the stated ones exact', () => {
    for (const d of ENDPOINTS) expect([3600, 21600, 86400], key(d)).toContain(d.cacheTtlSeconds);
    expect(must('open_micro_net', 'profile').cacheTtlSeconds).toBe(86400);
    expect(must('open_micro_net', 'post').cacheTtlSeconds).toBe(21600);
    expect(must('open_micro_net', 'search').cacheTtlSeconds).toBe(3600);
    expect(must('short_video_net', 'hashtags/popular').cacheTtlSeconds).toBe(3600);
    expect(must('short_video_net', 'effects').cacheTtlSeconds).toBe(21600);
    expect(must('thread_net', 'profile').cacheTtlSeconds).toBe(86400);
    expect(must('work_net', 'profile/contact').cacheTtlSeconds).toBe(86400);
    expect(must('forum_net', 'search/comments').cacheTtlSeconds).toBe(3600);
    expect(must('photo_net', 'post/comments').cacheTtlSeconds).toBe(21600);
  });

  it('include tokens per spec', () => {
    expect(must('photo_net', 'profile/posts').include).toEqual(['audio']);
    expect(must('photo_net', 'profile/reels').include?.sort()).toEqual(['audio', 'stats']);
    expect(must('social_net', 'profile/posts').include).toEqual(['engagement']);
    expect(must('social_net', 'search/groups').include).toEqual(['details']);
    expect(must('social_net', 'events').include).toEqual(['details']);
    for (const d of ENDPOINTS) expect(names(d).includes('include'), key(d)).toBe((d.include?.length ?? 0) > 0);
  });

  it('label kinds: post feeds, comment endpoints, search endpoints', () => {
    expect(must('photo_net', 'profile/posts').labels).toBe('post');
    expect(must('photo_net', 'profile/reels').labels).toBe('post');
    expect(must('social_net', 'profile/posts').labels).toBe('post');
    for (const d of ENDPOINTS.filter((x) => x.feed === 'comments' || x.feed === 'replies')) expect(d.labels, key(d)).toBe('comment');
    expect(must('forum_net', 'search/comments').labels).toBe('comment');
    for (const d of ENDPOINTS.filter((x) => x.feed === 'search_posts')) {
      expect(d.labels, key(d)).toBe('post');
      expect(d.relevance, key(d)).toBe(true);
    }
    expect(must('photo_net', 'post/comments').params.find((p) => p.name === 'scan_pages')).toMatchObject({ minimum: 1, maximum: 3 });
    expect(names(must('forum_net', 'search/comments'))).toContain('switch_from');
  });
});

describe('endpoint registry: shapes and prices', () => {
  it('every metered endpoint has 0 < min < max and no single call exceeds 5000', () => {
    for (const d of ENDPOINTS) {
      if (typeof d.credits === 'number') expect(d.credits, key(d)).toBeGreaterThan(0);
      else {
        expect(d.credits.min, key(d)).toBeGreaterThan(0);
        expect(d.credits.min, key(d)).toBeLessThan(d.credits.max);
      }
      expect(maxSingleCallCredits(d), key(d)).toBeLessThanOrEqual(5000);
      expect(Number.isInteger(typeof d.credits === 'number' ? d.credits : d.credits.max)).toBe(true);
    }
  });

  it('single endpoints name their key, lists their feed', () => {
    for (const d of ENDPOINTS) {
      if (d.shape === 'single') {
        expect(d.singleKey, key(d)).toBeTruthy();
        expect(d.paging, key(d)).toBeNull();
      } else {
        expect(d.feed, key(d)).toBeTruthy();
        if (!d.paging) expect(d.listSize, key(d)).toBeGreaterThan(0);
      }
    }
    expect(must('video_net_b', 'video/transcript')).toMatchObject({ shape: 'single', singleKey: 'transcript', record: 'transcript' });
    expect(must('photo_net', 'media/transcript')).toMatchObject({ shape: 'single', singleKey: 'transcript' });
    expect(must('photo_net', 'comment')).toMatchObject({ shape: 'single', singleKey: 'comment' });
    expect(must('photo_net', 'profile')).toMatchObject({ shape: 'single', singleKey: 'profile', record: 'profile' });
    expect(must('photo_net', 'followers')).toMatchObject({ shape: 'list', feed: 'accounts', record: 'profile' });
    expect(must('forum_net', 'search/comments').feed).toBe('search_comments');
  });

  it('assumed entries say so in their description, and only they do', () => {
    for (const d of ENDPOINTS) expect(d.description.includes('(assumed:'), key(d)).toBe(d.assumed);
    expect(ENDPOINTS.some((d) => d.assumed)).toBe(true);
  });

  it('2-3 endpoints are listed but not gettable', () => {
    const off = ENDPOINTS.filter((d) => !d.gettable);
    expect(off.length).toBeGreaterThanOrEqual(2);
    expect(off.length).toBeLessThanOrEqual(3);
  });

  it('one-of groups and required flags match the spec', () => {
    const reels = must('photo_net', 'profile/reels');
    expect(
      reels.params
        .filter((p) => p.one_of_group)
        .map((p) => p.name)
        .sort(),
    ).toEqual(['handle', 'user_id']);
    expect(
      must('photo_net', 'post/comment/replies')
        .params.filter((p) => p.required)
        .map((p) => p.name),
    ).toEqual(['url', 'comment_id']);
    expect(must('short_video_net', 'hashtags/popular').params.some((p) => p.required)).toBe(false);
    expect(must('social_net', 'post/comments').params.find((p) => p.name === 'feedback_id')?.one_of_group).toBe('url|feedback_id');
  });
});

describe('endpoint registry: shared params are identical everywhere', () => {
  it('each shared/judgment parameter has one definition', () => {
    const seen = new Map<string, string>();
    const SHARED = [
      'dry_run',
      'cursor',
      'since',
      'stop_at_id',
      'recent_days',
      'exclude_pinned',
      'trim',
      'max_pages',
      'judgments',
      'label',
      'exclude',
      'brand',
      'offer',
      'label_evidence',
      'fit',
      'goal',
      'fit_tokens',
      'relevance',
      'relevance_threshold',
      'relevant_to',
    ];
    for (const d of ENDPOINTS) {
      expect(names(d), key(d)).toContain('dry_run');
      for (const p of d.params) {
        if (!SHARED.includes(p.name)) continue;
        // label / exclude differ by label kind, since/until by date shape.
        const k = ['label', 'exclude'].includes(p.name)
          ? `${p.name}:${d.labels}`
          : p.name === 'since'
            ? `since:${(p as { format?: string }).format}`
            : p.name;
        const json = JSON.stringify(p);
        if (!seen.has(k)) seen.set(k, json);
        else expect(json, `${key(d)} ${p.name}`).toBe(seen.get(k));
      }
    }
  });

  it('label-capable endpoints take all judgment params; search endpoints the relevance params', () => {
    const J = ['judgments', 'label', 'exclude', 'brand', 'brand_description', 'offer', 'label_evidence', 'fit', 'goal', 'fit_tokens'];
    const R = ['relevance', 'relevance_threshold', 'relevant_to'];
    for (const d of ENDPOINTS) {
      if (d.labels) expect(names(d), key(d)).toEqual(expect.arrayContaining(J));
      else expect(names(d), key(d)).not.toContain('label');
      if (d.relevance) expect(names(d), key(d)).toEqual(expect.arrayContaining(R));
      else expect(names(d), key(d)).not.toContain('relevance');
      if (d.feedOptions) expect(names(d), key(d)).toEqual(expect.arrayContaining(['recent_days', 'exclude_pinned', 'trim']));
    }
  });
});
