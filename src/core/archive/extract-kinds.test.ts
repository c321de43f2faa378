/**
 * Issue 14 #3: comments are archived as kind `comment` whatever key the list item uses — the spec's
 * `{ post: <post record> }` shape on a comment page included — so Library Kind = comment finds them,
 * the CSV says comment and the drawer calls them comments. List-item behaviour otherwise unchanged.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../sandbox';
import { createApiCore, scaledClock } from '../api';
import { openArchive, type Archive } from './index';
import { readItems } from './extract';

const postRec = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  url: null,
  kind: 'photo',
  parent_id: null,
  content: { text: 't', media_urls: null, thumbnail_url: null, duration_seconds: null },
  author: { id: 'a', username: 'u', display_name: null, avatar_url: null, verified: null },
  engagement: { views: null, likes: 1, comments: 0, shares: null, saves: null },
  flags: { deleted: false },
  published_at: '2024-01-01T00:00:00Z',
  language: null,
  ext: null,
  ...extra,
});

describe('record kinds (readItems)', () => {
  it('a comment page in the spec shape ({ post }) gives kind comment — by the record, the judged families or the page', () => {
    expect(readItems({ items: [{ post: postRec('1', { kind: 'comment', parent_id: 'p' }) }] }).items[0].kind).toBe('comment');
    expect(
      readItems({
        items: [{ post: postRec('2') }],
        labels: { mode: 'default', judged: ['sentiment', 'question', 'purchase_intent', 'complaint'] },
      }).items[0].kind,
    ).toBe('comment');
    expect(readItems({ items: [{ post: postRec('3', { computed: { labels: { sentiment: { p: 0.9 } } } }) }] }).items[0].kind).toBe(
      'comment',
    );
    expect(readItems({ items: [{ post: postRec('4') }], ext: { post_id: 'x', total_comments: 4 } }).items[0].kind).toBe('comment');
    expect(readItems({ items: [{ post: postRec('5') }] }, '/v1/micro_net/tweet/replies').items[0].kind).toBe('comment');
    expect(readItems({ items: [{ comment: postRec('6') }, { reply: postRec('7') }] }).items.map((i) => i.kind)).toEqual([
      'comment',
      'comment',
    ]);
    expect(readItems({ comment: postRec('8') }).items[0].kind).toBe('comment');
  });

  it('posts stay posts; other kinds, judgments beside the record, stubs and unreadable items as before', () => {
    const r = readItems(
      {
        items: [
          { post: postRec('1', { computed: { labels: { intent: { label: 'other' }, sponsored: { p: 0.1 } } } }) },
          { post: postRec('2'), computed: { labels: { niche: { label: 'food' } } } },
          { user: { id: 'u1', username: 'x' }, rank: 3 },
          { post: { id: '9', stub: true } },
          { nothing: 1 },
        ],
        labels: { judged: ['sponsored', 'intent', 'niche'] },
      },
      '/v1/photo_net/profile/posts',
    );
    expect(r.items.map((i) => [i.id, i.kind])).toEqual([
      ['1', 'post'],
      ['2', 'post'],
      ['u1', 'user'],
    ]);
    expect((r.items[1].record.computed as { labels: unknown }).labels).toEqual({ niche: { label: 'food' } });
    expect(r.heldBack).toBe(1);
    expect(r.unreadable).toBe(1);
    expect(readItems({ post: postRec('p') }).items[0].kind).toBe('post');
  });
});

describe('comments archived from the sandbox (micro_net replies, video_net comments)', () => {
  let sb: SandboxHandle | null = null;
  let archive: Archive | null = null;
  afterEach(async () => {
    archive?.close();
    await sb?.close();
  });

  it('Library Kind = comment finds the replies a walk stored', async () => {
    sb = await startSandbox({ port: 0, seed: 1, balance: 1_000_000, freeCalls: 0 });
    const s = sb;
    const clock = scaledClock(() => s.admin.now(), 1);
    const a = openArchive(':memory:', { clock: () => clock.now() });
    archive = a;
    const api = createApiCore({ baseUrl: s.url, getKey: () => s.key, store: a, clock });
    try {
      const feed = await api.walk(
        { platform: 'micro_net', endpoint: 'search/tweets', params: { query: 'kettle' } },
        { source: 't', maxPages: 1 },
      );
      expect(feed.pagesDone).toBe(1);
      const withReplies = a
        .query({ platforms: ['micro_net'], limit: 100 })
        .rows.find((r) => (r.record as { engagement?: { comments?: number } }).engagement?.comments);
      expect(withReplies).toBeTruthy();
      const url = String((withReplies?.record as { url?: string }).url);
      const w = await api.walk({ platform: 'micro_net', endpoint: 'tweet/replies', params: { url } }, { source: 'comments', maxPages: 1 });
      const rows = a.query({ source: { type: 'walk', id: w.walkId }, limit: 100 }).rows;
      expect(rows.length).toBeGreaterThan(0);
      expect(new Set(rows.map((r) => r.kind))).toEqual(new Set(['comment']));
      expect(a.count({ kinds: ['comment'] })).toBe(rows.length);
      expect(a.count({ kinds: ['post'], source: { type: 'walk', id: w.walkId } })).toBe(0);
    } finally {
      await api.close();
    }
  });
});
