/**
 * The Library's top authors read from the analysis index's author summary (plain queries) equal
 * a count in JS of the stored items and the grouped query over the items, after ingests, a
 * re-fetch that changes an item's author, likes and day, and on an index built before the summary
 * existed (filled from the first item).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openArchive, type Archive } from '../archive';
import { post } from '../archive/test-fixtures';
import { testDb } from '../archive/testing';
import type { AuthorCount, LibraryQuery } from '../../shared/query';
import { mulberry32 } from '../../shared/random';
import { AnalysisIndex } from './analysis-index';
import { frequencyTable } from './frequency';

const DAY = 86_400_000;
const PLATFORMS = ['photo_net', 'micro_net', 'forum_net'];

function items(n: number, from: number, seed: number): Array<{ platform: string; kind: string; record: Record<string, unknown> }> {
  const r = mulberry32(seed);
  return Array.from({ length: n }, (_, i) => {
    const a = Math.floor(r() * 12);
    // authors with an id, authors known only by a username (in varying case), and no author at all
    const author =
      a < 8
        ? { id: `id${a}`, username: `user${a}`, display_name: `User ${a}` }
        : a < 11
          ? { id: null, username: ['Nameonly', 'NAMEONLY', 'other'][a - 8], display_name: null }
          : { id: null, username: null, display_name: null };
    return {
      platform: PLATFORMS[Math.floor(r() * 3)],
      kind: r() < 0.2 ? 'comment' : 'post',
      record: post({
        id: String(from + i),
        author,
        likes: r() < 0.1 ? null : Math.floor(r() * 50),
        views: r() < 0.3 ? null : Math.floor(r() * 1000),
        published_at: r() < 0.05 ? null : new Date(Date.UTC(2024, 0, 1) + Math.floor(r() * 40 * DAY)).toISOString(),
      }),
    };
  });
}

interface Plain {
  platforms?: string[];
  kinds?: string[];
  since?: number;
  until?: number;
}

/** Top authors counted in JS from the stored rows, in the Library's order (items, likes, network, key). */
function counted(a: Archive, q: Plain): Array<[string, string, number, number, number]> {
  const m = new Map<string, [string, string, number, number, number]>();
  const rows = testDb(a)
    .prepare('SELECT platform, kind, published_at AS t, author_id AS id, author_username AS u, likes, views FROM items')
    .all() as Array<{
    platform: string;
    kind: string;
    t: number | null;
    id: string | null;
    u: string | null;
    likes: number | null;
    views: number | null;
  }>;
  for (const r of rows) {
    if (r.id === null && r.u === null) continue;
    if ((q.platforms && !q.platforms.includes(r.platform)) || (q.kinds && !q.kinds.includes(r.kind))) continue;
    if ((q.since !== undefined || q.until !== undefined) && r.t === null) continue;
    if ((q.since !== undefined && r.t! < q.since) || (q.until !== undefined && r.t! >= q.until)) continue;
    const key = r.id ?? '@' + r.u!.toLowerCase();
    const e = m.get(r.platform + '\u0000' + key) ?? [r.platform, key, 0, 0, 0];
    e[2]++;
    e[3] += r.likes ?? 0;
    e[4] += r.views ?? 0;
    m.set(r.platform + '\u0000' + key, e);
  }
  return [...m.values()].sort(
    (x, y) => y[2] - x[2] || y[3] - x[3] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0),
  );
}

const shape = (rows: AuthorCount[]): Array<[string, string, number, number, number]> =>
  rows.map((r) => [r.platform, r.authorId ?? '@' + (r.username ?? '').toLowerCase(), r.value, r.likes, r.views]);

describe('top authors from the author summary', () => {
  let a: Archive;
  let index: AnalysisIndex;
  let answered: number;
  beforeEach(() => {
    a = openArchive(':memory:');
    a.ingestItems(items(800, 1, 1), { callId: 'first', source: 'test' });
    index = new AnalysisIndex(a);
    const source = a.authorCountsSource!;
    answered = 0;
    a.authorCountsSource = (q, n) => {
      const v = source(q, n);
      if (v) answered++;
      return v;
    };
  });
  afterEach(() => a.close());

  const t = (s: string): number => Date.parse(s);
  const cases: Array<[LibraryQuery, Plain]> = [
    [{}, {}],
    [{ platforms: ['micro_net'] }, { platforms: ['micro_net'] }],
    [
      { platforms: ['photo_net', 'forum_net'], kinds: ['post'] },
      { platforms: ['photo_net', 'forum_net'], kinds: ['post'] },
    ],
    [
      { since: '2024-01-10', until: '2024-01-20' },
      { since: t('2024-01-10T00:00:00Z'), until: t('2024-01-21T00:00:00Z') },
    ],
    [
      { platforms: ['forum_net'], since: '2024-01-15' },
      { platforms: ['forum_net'], since: t('2024-01-15T00:00:00Z') },
    ],
  ];

  const check = (): void => {
    for (const [q, plain] of cases) {
      const before = answered;
      const got = a.topAuthors(q, 100);
      expect(answered, `answered from the summary: ${JSON.stringify(q)}`).toBe(before + 1);
      expect(shape(got), JSON.stringify(q)).toEqual(counted(a, plain));
      // the same list, names included, as the grouped query over the items gives it
      const source = a.authorCountsSource;
      a.authorCountsSource = null;
      const fromItems = a.topAuthors(q, 100);
      a.authorCountsSource = source;
      expect(got, JSON.stringify(q)).toEqual(fromItems);
      expect(a.topAuthors(q, 3)).toEqual(fromItems.slice(0, 3));
    }
  };

  it('answers plain queries from the summary, equal to the items, and follows ingests and changes', () => {
    check();
    a.ingestItems(items(300, 10_000, 2), { callId: 'second', source: 'test' });
    check();
    // a re-fetch: the same posts with another author, other likes and another day
    const again = items(50, 10_000, 2).map((x, k) => ({
      ...x,
      record: {
        ...x.record,
        author: { id: `moved${k % 3}`, username: `moved${k % 3}`, display_name: null, avatar_url: null, verified: null },
        engagement: { views: 5, likes: 1000 + k, comments: null, shares: null, saves: null },
        published_at: '2024-01-12T10:00:00Z',
      },
    }));
    a.ingestItems(again, { callId: 'third', source: 'test' });
    expect(index.authorsCurrent()).toBe(false);
    check();
    expect(index.authorsCurrent()).toBe(true);
    // the moved posts count for their new authors only
    const moved = a.topAuthors({}, 100).filter((r) => r.authorId?.startsWith('moved'));
    expect(moved.reduce((n, r) => n + r.value, 0)).toBe(50);
    expect(moved.every((r) => r.likes >= 1000)).toBe(true);
  });

  it("gives the authors' frequency table of a plain query, equal to the one counted from the items", () => {
    const compare = (): void => {
      for (const [q] of cases) {
        for (const [sort, dir] of [
          ['count', 'desc'],
          ['likes', 'desc'],
          ['first', 'asc'],
          ['engagement', 'desc'],
        ] as const) {
          const input = { query: q, field: 'authors' as const, sort, dir, limit: 7 };
          const fromIndex = frequencyTable(a, input, index);
          const fromItems = frequencyTable(a, input);
          expect(fromIndex.basis, JSON.stringify(q)).toBe('index');
          expect(fromItems.basis).toBe('items');
          expect({ ...fromIndex, basis: 'items' }, `${JSON.stringify(q)} ${sort}`).toEqual(fromItems);
          expect(fromIndex.rows.length).toBe(7);
        }
      }
    };
    compare();
    // a re-fetch that forgets counts (sums known before become unknown), moves posts to another day and author
    const again = items(200, 1, 1).map((x, k) => ({
      ...x,
      record: {
        ...x.record,
        engagement: { views: null, likes: null, comments: null, shares: null, saves: null },
        ...(k % 4 === 0
          ? {
              published_at: '2024-01-16T10:00:00Z',
              author: { id: 'id1', username: 'user1', display_name: 'User 1', avatar_url: null, verified: null },
            }
          : {}),
      },
    }));
    a.ingestItems(again, { callId: 'again', source: 'test' });
    compare();
    // the names shown are those of the author's latest item: a re-fetch renames an author
    const first = frequencyTable(a, { query: {}, field: 'authors', limit: 50 }, index).rows.find((r) => r.authorId !== null)!;
    const rid = testDb(a)
      .prepare('SELECT max(rid) AS r FROM items WHERE platform = ? AND author_id = ?')
      .get(first.platform, first.authorId) as { r: number };
    const rec = JSON.parse((testDb(a).prepare('SELECT raw FROM items WHERE rid = ?').get(rid.r) as { raw: string }).raw) as Record<
      string,
      unknown
    >;
    a.ingestItems(
      [{ platform: first.platform!, kind: 'post', record: { ...rec, author: { ...(rec.author as object), username: 'renamed' } } }],
      { callId: 'rename', source: 'test' },
    );
    const row = (rows: Array<{ platform?: string | null; authorId?: string | null }>) =>
      rows.find((r) => r.platform === first.platform && r.authorId === first.authorId);
    expect(first.term).not.toBe('renamed');
    expect((row(frequencyTable(a, { query: {}, field: 'authors', limit: 50 }, index).rows) as { term: string }).term).toBe('renamed');
    expect((row(a.topAuthors({}, 50)) as { bucket: string }).bucket).toBe('renamed');
  });

  it('leaves other queries to the items', () => {
    const before = answered;
    const q: LibraryQuery = { text: 'post', platforms: ['micro_net'] };
    const got = a.topAuthors(q, 10);
    expect(answered).toBe(before);
    expect(got.length).toBeGreaterThan(0);
    expect(a.topAuthors({ since: '2024-01-10T06:00:00Z' }, 5).length).toBeGreaterThan(0);
    expect(answered).toBe(before);
  });

  it('fills the summary of an index built before it, from the first item', () => {
    expect(index.catchUp(Infinity)).toBe(true);
    const db = testDb(a);
    db.exec(
      "DROP TRIGGER an_author_changed; DROP TRIGGER an_author_deleted; DROP TABLE an_author_items; DROP TABLE an_author_keys; DROP TABLE an_author_totals; DROP TABLE an_author_dirty; DELETE FROM an_state WHERE k = 'authors_upto'",
    );
    const older = new AnalysisIndex(a);
    expect(older.current()).toBe(true);
    expect(older.authorsCurrent()).toBe(false);
    expect(older.authorsBacklog()).toBe(800);
    answered = 0;
    const source = a.authorCountsSource!;
    a.authorCountsSource = (q, n) => {
      const v = source(q, n);
      if (v) answered++;
      return v;
    };
    check();
    expect(older.authorsCurrent()).toBe(true);
  });

  it('builds a large backlog in the background and answers from the items meanwhile', async () => {
    a.ingestItems(items(6_000, 100_000, 3), { callId: 'big', source: 'test' });
    const before = answered;
    const fromItems = a.topAuthors({ platforms: ['micro_net'] }, 5);
    expect(answered).toBe(before);
    await index.warm();
    expect(index.authorsCurrent()).toBe(true);
    expect(a.topAuthors({ platforms: ['micro_net'] }, 5)).toEqual(fromItems);
    expect(answered).toBe(before + 1);
  });
});
