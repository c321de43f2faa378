import { describe, expect, it } from 'vitest';
import type { EndpointDef } from '../types';
import { ENDPOINTS, findEndpoint, isTrue, parseDateParam, validateParams } from './index';

const ep = (platform: string, path: string): EndpointDef => {
  const d = findEndpoint(platform, path);
  if (!d) throw new Error(`missing ${platform}/${path}`);
  return d;
};

function rejects(def: EndpointDef, q: Record<string, string>, ...words: string[]): string {
  const r = validateParams(def, q);
  expect(r.ok, JSON.stringify(q)).toBe(false);
  if (r.ok) return '';
  expect(r.type).toBe('INVALID_REQUEST');
  for (const w of words) expect(r.message).toContain(w);
  return r.message;
}

function accepts(def: EndpointDef, q: Record<string, string>): Record<string, string> {
  const r = validateParams(def, q);
  if (!r.ok) throw new Error(`expected ok for ${JSON.stringify(q)}: ${r.message}`);
  return r.params;
}

const posts = ep('photo_net', 'profile/posts');
const comments = ep('photo_net', 'post/comments');
const reels = ep('photo_net', 'profile/reels');

describe('validateParams: names, required, one-of', () => {
  it('rejects a parameter the endpoint does not accept, naming it and the accepted ones', () => {
    const m = rejects(ep('thread_net', 'profile'), { handle: 'a', api_key: 'x' }, "'api_key'", 'Accepted parameters: handle');
    expect(m).toContain('dry_run');
    rejects(ep('photo_net', 'post'), { url: 'u', cursor: 'c' }, "'cursor'");
    rejects(ep('photo_net', 'post/comments'), { url: 'u', max_pages: '2' }, "'max_pages'");
  });

  it('rejects a missing required parameter', () => {
    rejects(ep('photo_net', 'profile'), {}, "'handle'");
    rejects(ep('photo_net', 'post/comment/replies'), { url: 'u' }, "'comment_id'");
    rejects(ep('photo_net', 'profile'), { handle: '   ' }, "'handle'");
  });

  it('rejects a one-of group with none present', () => {
    rejects(reels, {}, "'user_id'", "'handle'");
    rejects(ep('social_net', 'post/comments'), { cursor: 'x' }, "'url'", "'feedback_id'");
    expect(accepts(reels, { user_id: '123' }).user_id).toBe('123');
  });

  it('accepts dry_run=1 everywhere and normalises booleans', () => {
    for (const d of ENDPOINTS) {
      const q: Record<string, string> = { dry_run: '1' };
      for (const p of d.params) if (p.required) q[p.name] = p.name === 'ids' ? '1,2' : 'x';
      const group = d.params.find((p) => p.one_of_group)?.name;
      if (group) q[group] = 'x';
      const r = validateParams(d, q);
      expect(r.ok, `${d.platform}/${d.path}: ${r.ok ? '' : r.message}`).toBe(true);
      if (r.ok) expect(isTrue(r.params.dry_run)).toBe(true);
    }
    expect(accepts(posts, { handle: '@nike', trim: 'TRUE', exclude_pinned: '0' })).toMatchObject({
      handle: 'nike',
      trim: 'true',
      exclude_pinned: 'false',
    });
    rejects(posts, { handle: 'a', trim: 'maybe' }, "'trim'", 'boolean');
  });
});

describe('validateParams: types, enums, bounds', () => {
  it('enum violations list the accepted values; matches are case-insensitive and canonicalised', () => {
    rejects(comments, { url: 'u', sort: 'oldest' }, "'sort'", 'top, recent');
    expect(accepts(comments, { url: 'u', sort: 'RECENT' }).sort).toBe('recent');
    const hp = ep('short_video_net', 'hashtags/popular');
    rejects(hp, { countryCode: 'XX' }, "'countryCode'");
    rejects(hp, { period: '14' }, "'period'");
    expect(accepts(hp, { countryCode: 'fr', period: '30', industry: 'travel' })).toMatchObject({ countryCode: 'FR', period: '30' });
    rejects(ep('qa_net', 'search'), { query: 'q', time: 'decade' }, "'time'");
  });

  it('integer parse errors and bounds', () => {
    rejects(posts, { handle: 'a', recent_days: 'ten' }, "'recent_days'", 'integer');
    rejects(posts, { handle: 'a', recent_days: '0' }, '1..3650');
    rejects(posts, { handle: 'a', recent_days: '3651' }, '1..3650');
    expect(accepts(posts, { handle: 'a', recent_days: '007' }).recent_days).toBe('7');
    const search = ep('short_video_net', 'search');
    rejects(search, { query: 'q', max_pages: '6' }, "'max_pages'", '1..5');
    rejects(search, { query: 'q', max_pages: '0' }, '1..5');
    rejects(search, { query: 'q', max_pages: '2.5' }, 'integer');
    rejects(comments, { url: 'u', scan_pages: '4' }, "'scan_pages'", '1..3');
    rejects(ep('qa_net', 'search'), { query: 'q', limit: '11' }, "'limit'", '1..10');
    rejects(ep('cn_video_net', 'search'), { query: 'q', limit: '26' }, '1..25');
    rejects(ep('photo_net', 'profile/posts/full'), { handle: 'a', limit: '51' }, '1..50');
    rejects(ep('thread_net', 'search'), { query: 'q', limit: '101' }, '1..100');
    rejects(ep('short_video_net_b', 'user/posts'), { handle: 'a', count: '51' }, "'count'", '1..50');
    rejects(ep('social_net', 'search/groups'), { query: 'q', page: '0' }, "'page'");
  });

  it('number bounds for relevance_threshold', () => {
    const s = ep('micro_net', 'search/tweets');
    rejects(s, { query: 'q', relevance: 'filter', relevance_threshold: '1.5' }, '0..1');
    rejects(s, { query: 'q', relevance: 'filter', relevance_threshold: 'high' }, 'number');
    expect(accepts(s, { query: 'q', relevance: 'filter', relevance_threshold: '.7' }).relevance_threshold).toBe('0.7');
  });

  it('string length caps', () => {
    const long = (n: number) => 'x'.repeat(n);
    rejects(posts, { handle: 'a', label: 'mention', brand: long(301) }, "'brand'", '300');
    expect(accepts(posts, { handle: 'a', label: 'mention', brand: long(300) }).brand).toHaveLength(300);
    rejects(posts, { handle: 'a', offer: long(301) }, "'offer'");
    rejects(posts, { handle: 'a', fit: 'goal', goal: long(301) }, "'goal'");
    const s = ep('forum_net', 'search');
    rejects(s, { query: 'q', relevance: 'score', relevant_to: long(201) }, "'relevant_to'", '200');
  });

  it('ids on short_video_net effects: at most 50, de-duplicated', () => {
    const fx = ep('short_video_net', 'effects');
    const ids = (n: number) => Array.from({ length: n }, (_, i) => String(1000 + i)).join(',');
    rejects(fx, { ids: ids(51) }, "'ids'", '50');
    expect(accepts(fx, { ids: `${ids(50)},1000,1001` }).ids.split(',')).toHaveLength(50);
  });

  it('label, include and exclude tokens are checked against the endpoint', () => {
    rejects(posts, { handle: 'a', label: 'spam' }, "'label'", 'spam');
    rejects(comments, { url: 'u', label: 'quality' }, "'label'");
    expect(accepts(posts, { handle: 'a', label: 'Quality, mention ,quality', brand: 'Acme' }).label).toBe('quality,mention');
    rejects(posts, { handle: 'a', include: 'stats' }, "'include'", 'audio');
    expect(accepts(reels, { handle: 'a', include: 'audio,stats' }).include).toBe('audio,stats');
    rejects(ep('social_net', 'profile/posts'), { url: 'u', include: 'details' }, "'include'");
  });
});

describe('validateParams: dependency rules', () => {
  it('label_evidence only with label', () => {
    rejects(posts, { handle: 'a', label_evidence: '1' }, "'label_evidence'", "'label'");
    accepts(posts, { handle: 'a', label: 'intent', label_evidence: '1' });
  });

  it('relevance_threshold / relevant_to only with relevance', () => {
    const s = ep('video_net', 'search');
    rejects(s, { query: 'q', relevance_threshold: '0.6' }, "'relevance_threshold'", "'relevance'");
    rejects(s, { query: 'q', relevant_to: 'shoes' }, "'relevant_to'");
    accepts(s, { query: 'q', relevance: 'filter', relevance_threshold: '0.6', relevant_to: 'shoes' });
  });

  it('exclude needs the same preset in label (posts: engagement_bait needs quality)', () => {
    rejects(posts, { handle: 'a', exclude: 'engagement_bait' }, "'quality'");
    rejects(posts, { handle: 'a', label: 'intent', exclude: 'engagement_bait' }, 'quality');
    accepts(posts, { handle: 'a', label: 'quality', exclude: 'engagement_bait' });
    rejects(comments, { url: 'u', label: 'spam', exclude: 'spam,low_quality' }, "'low_quality'");
    accepts(comments, { url: 'u', label: 'spam,low_quality', exclude: 'low_quality,spam' });
    rejects(comments, { url: 'u', label: 'spam', exclude: 'engagement_bait' }, "'exclude'");
  });

  it('fit=goal needs goal; fit_tokens only with fit=goal', () => {
    rejects(posts, { handle: 'a', fit: 'goal' }, "'goal'");
    rejects(posts, { handle: 'a', fit_tokens: '100' }, "'fit_tokens'", 'fit=goal');
    accepts(posts, { handle: 'a', fit: 'goal', goal: 'find buyers', fit_tokens: '2000' });
  });

  it('since/until shapes, and since after until', () => {
    for (const good of [
      '2025-01-01',
      '2025-01-01T10:00:00Z',
      '2025-01-01T10:00Z',
      '2025-01-01T10:00:00.123+02:00',
      '2025-01-01T10:00:00',
    ]) {
      accepts(posts, { handle: 'a', since: good });
    }
    for (const bad of ['yesterday', '2025-13-01', '2025-02-30', '01/02/2025', '1735689600']) {
      rejects(posts, { handle: 'a', since: bad }, "'since'");
    }
    rejects(posts, { handle: 'a', since: '2025-02-01', until: '2025-01-01' }, "'since'", "'until'");
    accepts(posts, { handle: 'a', since: '2025-01-01', until: '2025-01-01' });
  });

  it('open_micro_net search: ISO date or datetime WITH timezone only', () => {
    const s = ep('open_micro_net', 'search');
    accepts(s, { query: 'q', since: '2025-01-01', until: '2025-01-02T00:00:00+01:00' });
    accepts(s, { query: 'q', until: '2025-01-02T00:00:00Z' });
    rejects(s, { query: 'q', until: '2025-01-02T00:00:00' }, "'until'", 'timezone');
    rejects(s, { query: 'q', since: '2025/01/02' }, "'since'");
    // the same naive datetime is fine on an ordinary sync feed
    accepts(posts, { handle: 'a', until: '2025-01-02T00:00:00' });
  });

  it('site: in social group search is refused', () => {
    const g = ep('social_net', 'search/groups');
    rejects(g, { query: 'running site:example.com' }, 'site:');
    rejects(g, { query: 'SITE:example.com' }, 'site:');
    accepts(g, { query: 'website design' });
    // the operator is fine elsewhere
    accepts(ep('forum_net', 'search'), { query: 'site:example.com' });
  });

  it('cursor and native paging params are passed through unchanged', () => {
    const c = 'sdrc_AbC+/=%20weird';
    expect(accepts(ep('video_net', 'search'), { query: 'q', cursor: c }).cursor).toBe(c);
    expect(accepts(ep('video_net', 'search'), { query: 'q', continuationToken: 'T0k' }).continuationToken).toBe('T0k');
  });
});

describe('parseDateParam', () => {
  it('treats a date-only until as the whole UTC day', () => {
    expect(parseDateParam('2025-01-01')).toBe(Date.UTC(2025, 0, 1));
    expect(parseDateParam('2025-01-01', { endOfDay: true })).toBe(Date.UTC(2025, 0, 2) - 1);
    expect(parseDateParam('2025-01-01T01:00:00+01:00')).toBe(Date.UTC(2025, 0, 1));
    expect(parseDateParam('2025-01-01T01:00:00', { requireTz: true })).toBeUndefined();
  });
});
