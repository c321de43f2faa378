import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { openArchive, type Archive, QueryError } from './index';
import type { LedgerEntry } from '../ports';
import type { LibraryQuery } from '../../shared/query';
import { ledgerEntry, listResponse, post } from './test-fixtures';

const ref = (id: string, kind = 'post', platform = 'photo_net') => ({ platform, kind, id });

/**
 * A small known dataset:
 *  p1 photo alice 2024-05-01T10 likes 10 views 100 comments 1   intent complaining, sponsored .85 disclosed, rel .9
 *  p2 photo bob   2024-05-01T23 likes 20 views -   comments 2 shares 5  intent promoting, sponsored .35, rel .4
 *  p3 photo alice 2024-05-06T08 likes -  views 300  intent complaining, sponsored .55   (Hebrew text)
 *  c1 photo dave  2024-05-07T00 likes 1  comment: sentiment negative .85, toxic .6
 *  c2 photo erin  2024-05-07T01 likes 2  comment: sentiment positive .9, toxic .02
 *  a1 photo profile of alice (no date), bio "coffee nerd"
 *  p4 micro carol 2024-05-12T12 likes 5  no judgments (Arabic + emoji text)
 */
function seed(a: Archive): void {
  a.storeResponse(
    listResponse(
      'k1',
      'photo_net',
      'search',
      [
        post({
          id: 'p1',
          text: 'Café crème is great',
          author: { id: 'a1', username: 'alice', display_name: 'Alice' },
          published_at: '2024-05-01T10:00:00Z',
          likes: 10,
          views: 100,
          comments: 1,
          relevance: 0.9,
          labels: { intent: { label: 'complaining', confidence: 0.9 }, sponsored: { p: 0.85, disclosed: true } },
        }),
        post({
          id: 'p2',
          text: 'Tea time',
          author: { id: 'b1', username: 'bob', display_name: 'Bob' },
          published_at: '2024-05-01T23:00:00Z',
          likes: 20,
          comments: 2,
          shares: 5,
          relevance: 0.4,
          labels: { intent: { label: 'promoting', confidence: 0.7 }, sponsored: { p: 0.35, disclosed: false } },
        }),
      ],
      { fetchedAt: 1_000 },
    ),
    'search',
    'w1',
  );
  a.storeResponse(
    listResponse(
      'k2',
      'photo_net',
      'profile/posts',
      [
        post({
          id: 'p3',
          text: 'שלום עולם coffee',
          author: { id: 'a1', username: 'alice', display_name: 'Alice' },
          published_at: '2024-05-06T08:00:00Z',
          views: 300,
          labels: { intent: { label: 'complaining', confidence: 0.6 }, sponsored: { p: 0.55, disclosed: false } },
        }),
        post({
          id: 'c1',
          kind: 'comment',
          parent_id: 'p1',
          text: 'worst ever, refund!',
          author: { id: 'd1', username: 'dave', display_name: 'Dave' },
          published_at: '2024-05-07T00:00:00Z',
          likes: 1,
          labels: { sentiment: { label: 'negative', p: 0.85, score: 0.1 }, toxic: { p: 0.6 } },
        }),
        post({
          id: 'c2',
          kind: 'comment',
          parent_id: 'p1',
          text: 'love it',
          author: { id: 'e1', username: 'erin', display_name: 'Erin' },
          published_at: '2024-05-07T01:00:00Z',
          likes: 2,
          labels: { sentiment: { label: 'positive', p: 0.9, score: 0.9 }, toxic: { p: 0.02 } },
        }),
      ],
      { fetchedAt: 2_000 },
    ),
    'watch:7',
    null,
  );
  a.storeResponse(
    listResponse('k3', 'photo_net', 'profile', [{ id: 'a1', username: 'alice', display_name: 'Alice', bio: 'coffee nerd' }], {
      kind: 'profile',
      fetchedAt: 3_000,
    }),
    'profile',
    null,
  );
  a.ingestItems([
    {
      platform: 'micro_net',
      kind: 'post',
      record: post({
        id: 'p4',
        text: '🔥 fire مرحبا بالعالم',
        author: { id: 'c9', username: 'carol', display_name: 'Carol' },
        published_at: '2024-05-12T12:00:00Z',
        likes: 5,
        noComputed: true,
      }),
    },
  ]);
}

function ids(a: Archive, q: LibraryQuery): string[] {
  return a
    .query({ ...q, limit: 1000 })
    .rows.map((r) => r.id)
    .sort();
}

// every filter suite runs twice: small matching sets materialised, and (denseAt 1) probed per row
describe.each([
  { plan: 'materialised', denseAt: undefined },
  { plan: 'probed', denseAt: 1 },
])('library filters on a known dataset ($plan)', ({ denseAt }) => {
  let a: Archive;
  beforeEach(() => {
    a = openArchive(':memory:', { clock: () => 50_000, denseAt });
    seed(a);
  });
  afterEach(() => a.close());

  it('platforms, kinds, author', () => {
    expect(ids(a, {})).toEqual(['a1', 'c1', 'c2', 'p1', 'p2', 'p3', 'p4']);
    expect(ids(a, { platforms: ['micro_net'] })).toEqual(['p4']);
    expect(ids(a, { kinds: ['profile'] })).toEqual(['a1']);
    expect(ids(a, { author: 'alice' })).toEqual(['a1', 'p1', 'p3']);
    expect(ids(a, { author: '@ALICE', kinds: ['post'] })).toEqual(['p1', 'p3']);
    expect(ids(a, { author: 'b1' })).toEqual(['p2']);
  });

  it('since inclusive, until exclusive; a date-only until covers its day; ms numbers work', () => {
    expect(ids(a, { since: '2024-05-06' })).toEqual(['c1', 'c2', 'p3', 'p4']);
    expect(ids(a, { until: '2024-05-06' })).toEqual(['p1', 'p2', 'p3']);
    expect(ids(a, { since: '2024-05-01T12:00:00Z', until: '2024-05-07T00:00:00Z' })).toEqual(['p2', 'p3']);
    expect(ids(a, { since: Date.parse('2024-05-07T00:00:00Z'), until: Date.parse('2024-05-07T01:00:00Z') })).toEqual(['c1']);
    expect(() => a.query({ since: 'not a date' })).toThrow(QueryError);
  });

  it('full-text: diacritics folded, case-insensitive, author names, phrases, prefixes, RTL scripts, emoji', () => {
    expect(ids(a, { text: 'cafe' })).toEqual(['p1']);
    expect(ids(a, { text: 'CAFÉ CREME' })).toEqual(['p1']);
    expect(ids(a, { text: 'coffee' })).toEqual(['a1', 'p3']);
    expect(ids(a, { text: 'alice' })).toEqual(['a1', 'p1', 'p3']);
    expect(ids(a, { text: '"crème is great"' })).toEqual(['p1']);
    expect(ids(a, { text: '"great crème"' })).toEqual([]);
    expect(ids(a, { text: 'caf*' })).toEqual(['p1']);
    expect(ids(a, { text: 'שלום' })).toEqual(['p3']);
    expect(ids(a, { text: 'مرحبا' })).toEqual(['p4']);
    expect(ids(a, { text: '🔥' })).toEqual(['p4']);
    expect(ids(a, { text: 'refund' })).toEqual(['c1']);
    const row = a.query({ text: 'מרחבא שלום' }).rows;
    expect(row).toEqual([]);
    expect(a.getItem('micro_net', 'post', 'p4')!.text).toBe('🔥 fire مرحبا بالعالم');
  });

  it('hostile full-text input never reaches SQLite as syntax: rows, or a QueryError saying what to write', () => {
    // operators are syntax since issue 16 (boolean search): a malformed query is a user error
    const malformed = new Set(['NEAR(', 'a OR', 'AND', 'NOT', '(', ')', 'coffee AND']);
    for (const t of [
      '"',
      '*',
      'NEAR(',
      '-',
      '- coffee',
      'coffee -tea',
      'a OR',
      'AND',
      'NOT',
      '(',
      ')',
      'text:coffee',
      '^coffee',
      "'",
      '""',
      '"unterminated',
      'NEAR(a b, 3)',
      '***',
      '\\',
      '%',
      '_',
      '{a b}',
      'coffee AND',
      '+',
      ':',
      '\u0000',
    ]) {
      if (malformed.has(t)) {
        expect(() => a.query({ text: t }), t).toThrow(/^Search: /);
        expect(() => a.count({ text: t }), t).toThrow(QueryError);
      } else {
        expect(() => a.query({ text: t }), t).not.toThrow();
        expect(() => a.count({ text: t }), t).not.toThrow();
      }
    }
    expect(ids(a, { text: 'text:coffee' })).toEqual([]); // quoted as a phrase "text coffee", not a column filter
    // a minus before a word leaves it out, as NOT does (before: dropped, so both words were required)
    expect(ids(a, { text: 'coffee -tea' })).toEqual(ids(a, { text: 'coffee NOT tea' }));
    expect(ids(a, { text: 'coffee -tea' })).not.toEqual(ids(a, { text: 'coffee tea' }));
    expect(ids(a, { text: '%' })).toEqual([]); // LIKE wildcards are escaped
  });

  it('engagement ranges skip unknown counts', () => {
    expect(ids(a, { engagement: [{ field: 'likes', min: 5, max: 10 }] })).toEqual(['p1', 'p4']);
    expect(ids(a, { engagement: [{ field: 'views', min: 200 }] })).toEqual(['p3']);
    expect(ids(a, { engagement: [{ field: 'shares', max: 100 }] })).toEqual(['p2']);
  });

  it('label conditions: eq, neq, numeric ranges, booleans, comment families', () => {
    const L = (family: string, field: string, op: 'eq' | 'neq' | 'gte' | 'lte' | 'gt' | 'lt', value: string | number | boolean) => ({
      family,
      field,
      op,
      value,
    });
    expect(ids(a, { labels: [L('intent', 'label', 'eq', 'complaining')] })).toEqual(['p1', 'p3']);
    expect(ids(a, { labels: [L('intent', 'label', 'neq', 'complaining')] })).toEqual(['p2']);
    expect(ids(a, { labels: [L('sponsored', 'p', 'gte', 0.5)] })).toEqual(['p1', 'p3']);
    expect(ids(a, { labels: [L('sponsored', 'p', 'gt', 0.55)] })).toEqual(['p1']);
    expect(ids(a, { labels: [L('sponsored', 'p', 'lte', 0.55)] })).toEqual(['p2', 'p3']);
    expect(ids(a, { labels: [L('sponsored', 'p', 'lt', '0.5')] })).toEqual(['p2']);
    expect(ids(a, { labels: [L('sponsored', 'disclosed', 'eq', true)] })).toEqual(['p1']);
    expect(ids(a, { labels: [L('sponsored', 'disclosed', 'eq', false)] })).toEqual(['p2', 'p3']);
    expect(ids(a, { labels: [L('sentiment', 'label', 'eq', 'negative'), L('sentiment', 'p', 'gte', 0.8)] })).toEqual(['c1']);
    expect(ids(a, { labels: [L('toxic', 'p', 'gte', 0.5)] })).toEqual(['c1']);
    // text values never satisfy numeric ranges
    expect(ids(a, { labels: [L('intent', 'label', 'gte', 0)] })).toEqual([]);
    expect(() => a.query({ labels: [L('sponsored', 'p', 'gte', 'high')] })).toThrow(QueryError);
  });

  it('label conditions honour analyst overrides; the original stays in the record', () => {
    a.overrideLabel(ref('p2'), 'intent', 'label', 'complaining');
    a.overrideLabel(ref('p1'), 'sponsored', 'p', 0.1);
    expect(ids(a, { labels: [{ family: 'intent', field: 'label', op: 'eq', value: 'complaining' }] })).toEqual(['p1', 'p2', 'p3']);
    expect(ids(a, { labels: [{ family: 'sponsored', field: 'p', op: 'gte', value: 0.5 }] })).toEqual(['p3']);
    const it = a.getItem('photo_net', 'post', 'p2')!;
    expect(it.labels?.intent).toEqual({ label: 'complaining', confidence: 0.7 });
    expect(it.overrides).toEqual({ intent: { label: 'complaining' } });
    expect(it.overrideLog).toEqual([
      { family: 'intent', field: 'label', value: 'complaining', original: 'promoting', at: 50_000, author: null },
    ]);
    expect((it.record.computed as { labels: Record<string, Record<string, unknown>> }).labels.intent.label).toBe('promoting');
    // a later fetch with new judgments keeps the override in force
    a.storeResponse(
      listResponse('k9', 'photo_net', 'search', [post({ id: 'p2', likes: 21, labels: { intent: { label: 'other', confidence: 0.5 } } })], {
        fetchedAt: 9_000,
      }),
      'search',
      null,
    );
    expect(ids(a, { labels: [{ family: 'intent', field: 'label', op: 'eq', value: 'complaining' }] })).toEqual(['p1', 'p2', 'p3']);
    expect(ids(a, { labels: [{ family: 'intent', field: 'label', op: 'eq', value: 'other' }] })).toEqual([]);
    expect(a.getItem('photo_net', 'post', 'p2')!.overrideLog[0].original).toBe('other');
    a.clearOverride(ref('p2'), 'intent', 'label');
    expect(ids(a, { labels: [{ family: 'intent', field: 'label', op: 'eq', value: 'other' }] })).toEqual(['p2']);
    expect(ids(a, { labels: [{ family: 'intent', field: 'label', op: 'eq', value: 'complaining' }] })).toEqual(['p1', 'p3']);
    expect(a.getItem('photo_net', 'post', 'p2')!.overrides).toEqual({});
    // override on an item without judgments adds the field
    a.overrideLabel(ref('p4', 'post', 'micro_net'), 'intent', 'label', 'complaining');
    expect(ids(a, { platforms: ['micro_net'], labels: [{ family: 'intent', field: 'label', op: 'eq', value: 'complaining' }] })).toEqual([
      'p4',
    ]);
    expect(() => a.overrideLabel(ref('nope'), 'intent', 'label', 'x')).toThrow(/not in the archive/);
  });

  it('numeric label ranges read effective values: overrides to null or text, unjudged items, integers, booleans, nested fields', () => {
    const L = (family: string, field: string, op: 'gte' | 'lte' | 'gt' | 'lt', value: number) => ({
      labels: [{ family, field, op, value }],
    });
    a.storeResponse(
      listResponse(
        'k5',
        'photo_net',
        'search',
        [
          post({
            id: 'p5',
            published_at: '2024-05-02T00:00:00Z',
            labels: { intent: { label: 'other', urgency: 3 }, mention: { aspect: { price: 0.8 } } },
          }),
        ],
        { fetchedAt: 5_000 },
      ),
      'search',
      null,
    );
    // bounds: strict and not
    expect(ids(a, L('sponsored', 'p', 'gte', 0.85))).toEqual(['p1']);
    expect(ids(a, L('sponsored', 'p', 'gt', 0.85))).toEqual([]);
    expect(ids(a, L('sponsored', 'p', 'lt', 0.35))).toEqual([]);
    expect(ids(a, L('sponsored', 'p', 'lte', 0.35))).toEqual(['p2']);
    // booleans are 1 / 0
    expect(ids(a, L('sponsored', 'disclosed', 'gte', 1))).toEqual(['p1']);
    expect(ids(a, L('sponsored', 'disclosed', 'lt', 1))).toEqual(['p2', 'p3']);
    // integers; a nested field (aspect.price) is read like any other
    expect(ids(a, L('intent', 'urgency', 'gte', 2))).toEqual(['p5']);
    expect(ids(a, L('mention', 'aspect.price', 'gte', 0.5))).toEqual(['p5']);
    expect(ids(a, L('mention', 'aspect', 'gte', 0))).toEqual([]); // an object is not a value
    // an override to null or to text never satisfies a range; one on an unjudged item does
    a.overrideLabel(ref('p3'), 'sponsored', 'p', null);
    a.overrideLabel(ref('p2'), 'sponsored', 'p', 'high');
    a.overrideLabel(ref('p4', 'post', 'micro_net'), 'sponsored', 'p', 0.7);
    a.overrideLabel(ref('p1'), 'intent', 'urgency', 2);
    expect(ids(a, L('sponsored', 'p', 'gte', 0.5))).toEqual(['p1', 'p4']);
    expect(ids(a, L('sponsored', 'p', 'lte', 0.6))).toEqual([]);
    expect(ids(a, L('sponsored', 'p', 'gt', 0.7))).toEqual(['p1']);
    expect(ids(a, L('intent', 'urgency', 'gte', 2))).toEqual(['p1', 'p5']);
    expect(a.count(L('intent', 'urgency', 'lt', 3))).toBe(1);
    // cleared: the original value counts again
    a.clearOverride(ref('p3'), 'sponsored', 'p');
    expect(ids(a, L('sponsored', 'p', 'gte', 0.5))).toEqual(['p1', 'p3', 'p4']);
  });

  it('relevance, source (walk, call, source, watchlist), tags, notes', () => {
    expect(ids(a, { relevanceMin: 0.5 })).toEqual(['p1']);
    expect(ids(a, { source: { type: 'walk', id: 'w1' } })).toEqual(['p1', 'p2']);
    expect(ids(a, { source: { type: 'call', id: 'k3' } })).toEqual(['a1']);
    expect(ids(a, { source: { type: 'source', id: 'search' } })).toEqual(['p1', 'p2']);
    expect(ids(a, { source: { type: 'watchlist', id: '7' } })).toEqual(['c1', 'c2', 'p3']);
    expect(ids(a, { source: { type: 'watchlist', id: '8' } })).toEqual([]);
    a.addTag(ref('p1'), 'keep');
    a.addTag(ref('p3'), 'keep');
    a.addTag(ref('p3'), 'Later');
    a.addTag(ref('p3'), 'KEEP'); // same tag, case-insensitive
    expect(ids(a, { tags: ['keep'] })).toEqual(['p1', 'p3']);
    expect(ids(a, { tags: ['keep', 'later'] })).toEqual(['p3']);
    a.setNote(ref('p2'), 'check the brand');
    expect(ids(a, { hasNote: true })).toEqual(['p2']);
    expect(ids(a, { hasNote: false })).toHaveLength(6);
    a.setNote(ref('p2'), null);
    expect(ids(a, { hasNote: true })).toEqual([]);
  });

  it('total on the first page, count(), invalid cursors', () => {
    const first = a.query({ limit: 2 });
    expect(first.total).toBe(7);
    expect(a.count({ kinds: ['post'] })).toBe(4);
    expect(a.count({ kinds: ['comment'] })).toBe(2); // comments are kind comment (issue 14 #3)
    const second = a.query({ limit: 2, after: first.next! });
    expect(second.total).toBeNull();
    expect(() => a.query({ limit: 2, after: 'garbage!' })).toThrow(QueryError);
    expect(() => a.query({ limit: 2, platforms: ['micro_net'], after: first.next! })).toThrow(/another query/);
  });
});

describe('aggregates on the known dataset', () => {
  let a: Archive;
  beforeEach(() => {
    a = openArchive(':memory:');
    seed(a);
  });
  afterEach(() => a.close());

  it('volume per day and per week (Monday start)', () => {
    expect(a.volumeOverTime({}, 'day')).toEqual([
      { bucket: '2024-05-01', value: 2 },
      { bucket: '2024-05-06', value: 1 },
      { bucket: '2024-05-07', value: 2 },
      { bucket: '2024-05-12', value: 1 },
    ]);
    expect(a.volumeOverTime({}, 'week')).toEqual([
      { bucket: '2024-04-29', value: 2 },
      { bucket: '2024-05-06', value: 4 },
    ]);
    expect(a.volumeOverTime({ platforms: ['photo_net'] }, 'week')).toEqual([
      { bucket: '2024-04-29', value: 2 },
      { bucket: '2024-05-06', value: 3 },
    ]);
  });

  it('engagement over time sums known counts only', () => {
    expect(a.engagementOverTime({}, 'day', 'likes')).toEqual([
      { bucket: '2024-05-01', value: 30, known: 2, avg: 15 },
      { bucket: '2024-05-06', value: 0, known: 0, avg: null },
      { bucket: '2024-05-07', value: 3, known: 2, avg: 1.5 },
      { bucket: '2024-05-12', value: 5, known: 1, avg: 5 },
    ]);
  });

  it('label distribution: text, boolean and bucketed numeric values, with overrides', () => {
    expect(a.labelDistribution({}, 'intent', 'label')).toEqual([
      { bucket: 'complaining', value: 2, share: 2 / 3 },
      { bucket: 'promoting', value: 1, share: 1 / 3 },
    ]);
    expect(a.labelDistribution({}, 'sponsored', 'disclosed')).toEqual([
      { bucket: 'false', value: 2, share: 2 / 3 },
      { bucket: 'true', value: 1, share: 1 / 3 },
    ]);
    expect(a.labelDistribution({}, 'sponsored', 'p')).toEqual([
      { bucket: '0.3-0.4', value: 1, share: 1 / 3 },
      { bucket: '0.5-0.6', value: 1, share: 1 / 3 },
      { bucket: '0.8-0.9', value: 1, share: 1 / 3 },
    ]);
    a.overrideLabel(ref('p2'), 'intent', 'label', 'complaining');
    a.overrideLabel(ref('p2'), 'sponsored', 'p', 0.3); // exactly on a bucket edge
    expect(a.labelDistribution({}, 'intent', 'label')).toEqual([{ bucket: 'complaining', value: 3, share: 1 }]);
    expect(a.labelDistribution({}, 'sponsored', 'p')[0]).toEqual({ bucket: '0.3-0.4', value: 1, share: 1 / 3 });
    expect(a.labelDistribution({ author: 'alice' }, 'sponsored', 'p')).toEqual([
      { bucket: '0.5-0.6', value: 1, share: 0.5 },
      { bucket: '0.8-0.9', value: 1, share: 0.5 },
    ]);
    expect(a.labelDistribution({}, 'sentiment', 'label')).toEqual([
      { bucket: 'negative', value: 1, share: 0.5 },
      { bucket: 'positive', value: 1, share: 0.5 },
    ]);
    expect(a.labelDistribution({}, 'nothing', 'here')).toEqual([]);
  });

  it('null label values form their own bucket; small integer fields one bucket per value', () => {
    a.ingestItems([
      { platform: 'photo_net', kind: 'post', record: post({ id: 'x1', labels: { intent: { label: null, urgency: 0 } } }) },
      { platform: 'photo_net', kind: 'post', record: post({ id: 'x2', labels: { intent: { label: 'other', urgency: 3 } } }) },
      { platform: 'photo_net', kind: 'post', record: post({ id: 'x3', labels: { intent: { label: null, urgency: 3 } } }) },
    ]);
    expect(a.labelDistribution({ author: 'alice', text: 'post' }, 'intent', 'label')).toEqual([
      { bucket: 'null', value: 2, share: 2 / 3 },
      { bucket: 'other', value: 1, share: 1 / 3 },
    ]);
    expect(a.labelDistribution({}, 'intent', 'urgency')).toEqual([
      { bucket: '0', value: 1, share: 1 / 3 },
      { bucket: '3', value: 2, share: 2 / 3 },
    ]);
    // null is neither text nor number: it matches neq, never eq or ranges
    expect(a.count({ labels: [{ family: 'intent', field: 'label', op: 'neq', value: 'complaining' }] })).toBe(4);
  });

  it('top authors', () => {
    expect(a.topAuthors({}, 2)).toEqual([
      { bucket: 'alice', value: 3, platform: 'photo_net', authorId: 'a1', username: 'alice', displayName: 'Alice', likes: 10, views: 400 },
      { bucket: 'bob', value: 1, platform: 'photo_net', authorId: 'b1', username: 'bob', displayName: 'Bob', likes: 20, views: 0 },
    ]);
    expect(a.topAuthors({ kinds: ['post'], platforms: ['micro_net'] }, 5).map((x) => [x.bucket, x.value])).toEqual([['carol', 1]]);
  });

  it('credits per day / source / endpoint and the usage summary', () => {
    const day = (d: string, h = 12) => Date.parse(`${d}T${String(h).padStart(2, '0')}:00:00Z`);
    const base = ledgerEntry({
      callId: 'x',
      startedAt: 0,
      durationMs: 10,
      endpoint: 'search',
      params: '{}',
      paramsHash: 'h',
      idempotencyKey: null,
      requestId: 'r',
      creditsUsed: 0,
      creditsRemaining: 10,
    });
    const add = (o: Partial<LedgerEntry>) => a.recordAttempt({ ...base, ...o });
    add({ startedAt: day('2024-05-01', 1), creditsUsed: 5 });
    add({ startedAt: day('2024-05-01', 23), cached: true });
    add({ startedAt: day('2024-05-02'), source: 'watch:7', endpoint: 'profile/posts', creditsUsed: 3 });
    add({
      startedAt: day('2024-05-02'),
      source: 'watch:7',
      endpoint: 'profile/posts',
      status: 429,
      errorType: 'RATE_LIMITED',
      creditsRemaining: null,
    });
    add({ startedAt: day('2024-05-02'), source: 'cli', platform: 'micro_net', endpoint: 'user/tweets', dryRun: true });
    add({
      startedAt: day('2024-05-03'),
      source: 'cli',
      platform: 'micro_net',
      endpoint: 'user/tweets',
      idempotentReplay: true,
      chargeReason: 'replay',
    });
    add({ startedAt: day('2024-05-03'), source: 'cli', platform: 'micro_net', endpoint: 'user/tweets', freeCall: true });
    add({ startedAt: day('2024-05-03'), source: 'search' });
    expect(a.creditsPerDay()).toEqual([
      { bucket: '2024-05-01', value: 5, calls: 2 },
      { bucket: '2024-05-02', value: 3, calls: 3 },
      { bucket: '2024-05-03', value: 0, calls: 3 },
    ]);
    expect(a.creditsPerDay({ since: day('2024-05-02', 0), until: day('2024-05-03', 0) })).toEqual([
      { bucket: '2024-05-02', value: 3, calls: 3 },
    ]);
    expect(a.creditsPerSource()).toEqual([
      { bucket: 'search', value: 5, calls: 3 },
      { bucket: 'watch:7', value: 3, calls: 2 },
      { bucket: 'cli', value: 0, calls: 3 },
    ]);
    expect(a.creditsPerEndpoint()).toEqual([
      { bucket: 'photo_net/search', value: 5, calls: 3 },
      { bucket: 'photo_net/profile/posts', value: 3, calls: 2 },
      { bucket: 'micro_net/user/tweets', value: 0, calls: 3 },
    ]);
    expect(a.usageSummary()).toEqual({
      attempts: 8,
      charged: { requests: 2, credits: 8 },
      notCharged: { cached: 1, replay: 1, freeCall: 1, error: 1, dryRun: 1, empty: 1, fromArchive: 0 },
    });
    expect(a.usageSummary({ since: day('2024-05-03', 0) }).attempts).toBe(3);
  });
});

describe('annotations', () => {
  let a: Archive;
  beforeEach(() => {
    a = openArchive(':memory:', { clock: () => 77 });
    seed(a);
  });
  afterEach(() => a.close());

  it('tags: add, remove, list with counts, tag a whole query', () => {
    a.addTag(ref('p1'), 'Keep');
    a.addTag(ref('p1'), 'keep');
    a.addTag(ref('p2'), 'brand');
    expect(a.listTags()).toEqual([
      { tag: 'brand', count: 1 },
      { tag: 'Keep', count: 1 },
    ]);
    expect(a.tagQuery({ author: 'alice' }, 'keep')).toBe(2); // p3 and the profile; p1 had it
    expect(a.tagQuery({ author: 'alice' }, 'keep')).toBe(0);
    expect(ids(a, { tags: ['KEEP'] })).toEqual(['a1', 'p1', 'p3']);
    a.removeTag(ref('p1'), 'keep');
    expect(a.getItem('photo_net', 'post', 'p1')!.tags).toEqual([]);
    expect(a.untagQuery({}, 'keep')).toBe(2);
    expect(a.listTags()).toEqual([
      { tag: 'brand', count: 1 },
      { tag: 'Keep', count: 0 },
    ]);
    expect(() => a.addTag(ref('missing'), 'x')).toThrow(/not in the archive/);
  });

  it('notes and rows carry tags, notes and overrides', () => {
    a.setNote(ref('p1'), 'first note');
    a.setNote(ref('p1'), 'second note');
    a.addTag(ref('p1'), 'b');
    a.addTag(ref('p1'), 'A');
    a.overrideLabel(ref('p1'), 'intent', 'label', 'other');
    const row = a.query({ text: 'cafe' }).rows[0];
    expect(row.note).toBe('second note');
    expect(row.tags).toEqual(['A', 'b']);
    expect(row.overrides).toEqual({ intent: { label: 'other' } });
    expect(row.labels?.intent).toEqual({ label: 'other', confidence: 0.9 });
  });

  it('result sets: save, list, update, delete', () => {
    const rs = a.saveResultSet(
      'Complaints',
      { labels: [{ family: 'intent', field: 'label', op: 'eq', value: 'complaining' }], after: 'x' },
      { tags: ['q2'], note: 'for the report' },
    );
    expect(rs).toMatchObject({ name: 'Complaints', tags: ['q2'], note: 'for the report', createdAt: 77 });
    expect(rs.query.after).toBeUndefined();
    const list = a.listResultSets();
    expect(list).toHaveLength(1);
    expect(ids(a, list[0].query)).toEqual(['p1', 'p3']);
    a.updateResultSet(rs.id, { note: null, name: 'Complaints v2' });
    expect(a.listResultSets()[0]).toMatchObject({ name: 'Complaints v2', note: null, tags: ['q2'] });
    a.deleteResultSet(rs.id);
    expect(a.listResultSets()).toEqual([]);
  });
});

describe('export rows', () => {
  it('streams rows of a query in its order with tags, note and overrides, and releases the connection', () => {
    const a = openArchive(':memory:');
    seed(a);
    a.addTag(ref('p2'), 'keep');
    a.setNote(ref('p2'), 'n2');
    a.overrideLabel(ref('p2'), 'sponsored', 'p', 0.99);
    const q: LibraryQuery = { kinds: ['post', 'comment'], sort: { field: 'likes', dir: 'desc' }, limit: 1 };
    const it = a.iterateExportRows(q);
    const first = it.next();
    expect(first.done).toBe(false);
    expect(first.value).toMatchObject({
      platform: 'photo_net',
      kind: 'post',
      id: 'p2',
      tags: ['keep'],
      note: 'n2',
      overrides: { sponsored: { p: 0.99 } },
      firstSeenAt: 1_000,
    });
    expect((first.value.record.computed as { labels: { sponsored: { p: number } } }).labels.sponsored.p).toBe(0.35);
    it.return?.();
    // the connection is free again (better-sqlite3 refuses writes while an iterator is open)
    expect(() => a.addTag(ref('p1'), 'after')).not.toThrow();
    const all = [...a.iterateExportRows(q)].map((r) => r.id);
    expect(all).toEqual(['p2', 'p1', 'p4', 'c2', 'c1', 'p3']); // limit ignored; unknown likes last
    const paged: string[] = [];
    let after: string | undefined;
    do {
      const p = a.query({ ...q, after });
      paged.push(...p.rows.map((r) => r.id));
      after = p.next ?? undefined;
    } while (after);
    expect(paged).toEqual(all);
    expect([...a.exportRowsFor([ref('p3'), ref('zz'), ref('p1')])].map((r) => r.id)).toEqual(['p3', 'p1']);
    a.close();
  });

  it('an export of a file archive reads its own snapshot: the archive stays usable (writes and queries) meanwhile', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'loupe-export-snap-'));
    const a = openArchive(join(dir, 'a.db'));
    try {
      seed(a);
      const it = a.iterateExportRows({ sort: { field: 'published_at', dir: 'asc' } });
      const first = it.next();
      expect(first.done).toBe(false);
      expect(first.value.recordJson).toBe(JSON.stringify(first.value.record));
      // no tags, notes or overrides anywhere yet: the annotation columns are left out of the read, rows still carry them empty
      expect(first.value).toMatchObject({ tags: [], note: null, overrides: {} });
      expect(first.value.firstSeenAt).toBeGreaterThan(0);
      // while the export is open: ingest, annotate and query on the archive's own connection
      a.ingestItems([{ platform: 'photo_net', kind: 'post', record: post({ id: 'late', published_at: '2024-06-01T00:00:00Z' }) }]);
      a.addTag(ref('p1'), 'during');
      expect(a.query({ text: 'late' }).rows.map((r) => r.id)).toEqual(['late']);
      // the export finishes on the snapshot it started with: no 'late', every earlier item once
      const rest = [...it].map((r) => r.id);
      const ids = [first.value.id, ...rest];
      expect(ids).not.toContain('late');
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBe(a.count({}) - 1);
      expect([...a.iterateExportRows({})].map((r) => r.id)).toContain('late');
    } finally {
      a.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
