/**
 * Issue 30 "no slow corners": the Library's first page does not wait for its exact total, and a
 * page's plan choices (a sort walk's sample, a text's density estimate) are made once per archive
 * version. Whatever plan a page takes, its rows are those of a plain reference query: generated
 * archives (a network without views, words of every density, ties, unknown values), every sort ×
 * network × text of the bench's grid, paged, on the default plans and on the probing ones.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Archive, openArchive } from './index';
import type { LibraryQuery, SortField } from '../../shared/query';
import { post } from './test-fixtures';
import { testDb } from './testing';
import { ctxOf } from './context';

const NETS = ['photo_net', 'forum_net', 'micro_net'] as const;
const WORDS = ['alpha', 'beta', 'gamma', 'delta'] as const;
const SORTS: Array<[SortField, string]> = [
  ['published_at', 'published_at'],
  ['views', 'views'],
  ['likes', 'likes'],
  ['comments', 'comments'],
  ['shares', 'shares'],
  ['relevance', 'relevance_p'],
  ['author', 'author_username COLLATE NOCASE'],
  ['first_seen_at', 'first_seen_at'],
];

interface Gen {
  net: number;
  words: boolean[];
  views: number | null;
  likes: number | null;
  comments: number | null;
  shares: number | null;
  relevance: number | null;
  user: number | null;
  day: number | null;
}

const small = (max: number) => fc.option(fc.integer({ min: 0, max }), { nil: null, freq: 4 });
const genItem: fc.Arbitrary<Gen> = fc.record({
  // micro_net is rare (a sparse network in most walks)
  net: fc.constantFrom(0, 0, 0, 1, 1, 1, 2),
  // alpha in most texts, delta in few
  words: fc
    .tuple(fc.boolean(), fc.boolean(), fc.boolean(), fc.constantFrom(false, false, false, true))
    .map((t) => [!t[0] || t[1], ...t.slice(1)]),
  views: small(50),
  likes: small(9),
  comments: small(3),
  shares: small(5),
  relevance: fc.option(
    fc.integer({ min: 0, max: 10 }).map((n) => n / 10),
    { nil: null, freq: 3 },
  ),
  user: fc.option(fc.integer({ min: 0, max: 11 }), { nil: null, freq: 6 }),
  day: fc.option(fc.integer({ min: 0, max: 20 }), { nil: null, freq: 8 }),
});

function build(items: Gen[]): Archive {
  const a = openArchive(':memory:');
  for (let b = 0; b < items.length; b += 50) {
    a.ingestItems(
      items.slice(b, b + 50).map((g, j) => {
        const i = b + j;
        return {
          platform: NETS[g.net],
          kind: 'post',
          record: post({
            id: String(1_000_000 + i),
            text: ['word', ...WORDS.filter((_, k) => g.words[k])].join(' '),
            // forum_net has no views at all: sorting it by views walks nothing
            views: g.net === 1 ? null : g.views,
            likes: g.likes,
            comments: g.comments,
            shares: g.shares,
            relevance: g.relevance,
            author: {
              id: g.user === null ? null : `u${g.user}`,
              username: g.user === null ? null : `${g.user % 2 ? 'User' : 'user'}${g.user % 6}`,
            },
            published_at: g.day === null ? null : new Date(Date.UTC(2024, 0, 1 + g.day)).toISOString(),
          }),
        };
      }),
      { callId: `c${b}`, source: 'test', fetchedAt: 1_000 + (b % 150) },
    );
  }
  return a;
}

/** The plain query: every match, known values first in the sort's order, ties and unknowns by rid. */
function reference(a: Archive, q: LibraryQuery, col: string): string[] {
  const where: string[] = [];
  const params: unknown[] = [];
  if (q.platforms) {
    where.push('platform = ?');
    params.push(q.platforms[0]);
  }
  if (q.text) {
    where.push('rid IN (SELECT rowid FROM items_fts WHERE items_fts MATCH ?)');
    params.push(`"${q.text}"`);
  }
  const dir = q.sort!.dir === 'asc' ? 'ASC' : 'DESC';
  const bare = col.replace(/ COLLATE NOCASE$/, '');
  const rows = testDb(a)
    .prepare(
      `SELECT id FROM items ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY (${bare} IS NULL), ${col} ${dir}, rid ${dir}`,
    )
    .all(...params) as Array<{ id: string }>;
  return rows.map((r) => r.id);
}

function pageAll(a: Archive, q: LibraryQuery, limit: number): string[] {
  const out: string[] = [];
  let after: string | undefined;
  for (let pages = 0; ; pages++) {
    if (pages > 500) throw new Error('paging does not end');
    const p = a.listQuery({ ...q, limit, after });
    out.push(...p.rows.map((r) => r.id));
    if (!p.next) return out;
    after = p.next;
  }
}

describe('the Library grid (issue 30)', () => {
  it('every sort × network × text gives the reference rows, on every plan', () => {
    fc.assert(
      fc.property(fc.array(genItem, { minLength: 250, maxLength: 380 }), fc.integer({ min: 40, max: 120 }), (items, limit) => {
        const a = build(items);
        // the probing plans: every filter counted dense
        const probed = new Archive(testDb(a), { denseAt: 1 });
        try {
          for (const text of [undefined, 'alpha', 'delta'])
            for (const net of [undefined, 'forum_net', 'micro_net'])
              for (const [field, col] of SORTS)
                for (const dir of ['desc', 'asc'] as const) {
                  const q: LibraryQuery = { sort: { field, dir }, ...(net ? { platforms: [net] } : {}), ...(text ? { text } : {}) };
                  const want = reference(a, q, col);
                  const what = JSON.stringify(q);
                  expect(pageAll(a, q, limit), what).toEqual(want);
                  expect(pageAll(probed, q, limit), what).toEqual(want);
                  expect(a.count(q), what).toBe(want.length);
                }
        } finally {
          a.close();
        }
      }),
      { numRuns: 2, seed: 30, endOnFailure: true },
    );
  });

  it('a lean first page carries its total once it is counted; a full page always does', () => {
    const a = build(Array.from({ length: 40 }, (_, i) => ({ ...fc.sample(genItem, { numRuns: 1, seed: i })[0], net: i % 3 })));
    try {
      const q: LibraryQuery = { platforms: ['forum_net'], text: 'word', limit: 5 };
      const first = a.listQuery(q);
      expect(first.rows).toHaveLength(5);
      expect(first.total).toBeNull();
      const n = a.count(q);
      expect(n).toBeGreaterThan(5);
      expect(a.listQuery(q).total).toBe(n);
      expect(a.listQuery({ ...q, sort: { field: 'likes', dir: 'asc' } }).total).toBe(n);
      // the archive changed: the count is no longer known
      a.ingestItems([{ platform: 'forum_net', kind: 'post', record: post({ id: '9', text: 'word' }) }], { callId: 'more', source: 'test' });
      expect(a.listQuery(q).total).toBeNull();
      expect(a.query(q).total).toBe(n + 1);
      expect(a.listQuery({ ...q, after: first.next! }).total).toBeNull();
    } finally {
      a.close();
    }
  });

  it("a page's plan samples and estimates run once per archive version", () => {
    const a = build(Array.from({ length: 400 }, (_, i) => ({ ...fc.sample(genItem, { numRuns: 1, seed: i })[0], net: i % 3 })));
    // every statement a page runs, by kind: each statement prepared from here on counts its runs
    // (the archive's statements are prepared once per text and cached: see sql.ts)
    const c = ctxOf(a);
    const ran: string[] = [];
    const prepare = c.db.prepare.bind(c.db);
    c.db.prepare = ((text: string) => {
      const s = prepare(text);
      const kind = /coalesce\(sum\(/.test(text) ? 'sample' : /FROM \(SELECT 1 /.test(text) ? 'estimate' : 'other';
      for (const m of ['get', 'all'] as const) {
        const f = s[m].bind(s) as (...args: unknown[]) => unknown;
        Object.assign(s, {
          [m]: (...args: unknown[]) => {
            ran.push(kind);
            return f(...args);
          },
        });
      }
      return s;
    }) as typeof c.db.prepare;
    try {
      const q: LibraryQuery = { platforms: ['micro_net'], text: 'alpha', sort: { field: 'views', dir: 'desc' }, limit: 10 };
      const first = a.listQuery(q);
      const planned = ran.filter((k) => k !== 'other').length;
      expect(planned).toBeGreaterThan(0);
      ran.length = 0;
      expect(a.listQuery(q)).toEqual(first);
      expect(a.listQuery({ ...q, text: 'beta' }).rows.length).toBeGreaterThan(0);
      expect(ran.filter((k) => k === 'sample')).toEqual([]);
      expect(ran.filter((k) => k === 'estimate').length).toBeLessThanOrEqual(2); // beta's own
      // a write: the choices are made again
      a.ingestItems([{ platform: 'micro_net', kind: 'post', record: post({ id: '9', text: 'alpha', views: 3 }) }], {
        callId: 'more',
        source: 'test',
      });
      ran.length = 0;
      a.listQuery(q);
      expect(ran.filter((k) => k === 'sample').length).toBeGreaterThan(0);
    } finally {
      a.close();
    }
  });
});
