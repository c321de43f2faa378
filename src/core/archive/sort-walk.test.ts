/**
 * Issue 30 "No slow corners": a page sorted by a column walks that column's index only when the
 * networks chosen are dense among the rows it walks. A network that has no value there (forum_net
 * sorted by views) was walked with `+platform` through every other row that has one (0.9-1.6 s at
 * 1M); now its own index finds its rows. Both plans give the same pages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive, type Archive } from './index';
import { ctxOf } from './context';
import { estimator, sampler } from './library';
import { buildWhere, parseQuery, sortColumn, sortPlan } from './sql-query';
import { post } from './test-fixtures';
import { testDb } from './testing';
import { mulberry32 } from '../../shared/random';
import type { LibraryListRow, LibraryQuery } from '../../shared/query';

// more rows with views than the walk samples (2,000), so the choice is made from the data
const WITH_VIEWS = 2_600;
const WITHOUT = 600;
let a: Archive;

beforeAll(() => {
  a = openArchive(':memory:');
  const r = mulberry32(30);
  const items: Array<{ platform: string; kind: string; record: Record<string, unknown> }> = [];
  let forums = 0;
  for (let i = 0; i < WITH_VIEWS + WITHOUT; i++) {
    const forum = i % 5 === 0 && forums++ < WITHOUT;
    items.push({
      platform: forum ? 'forum_net' : 'photo_net',
      kind: 'post',
      record: post({
        id: String(8_000_000_000_000_000_000n + BigInt(i)),
        views: forum ? null : Math.floor(r() * 500),
        likes: Math.floor(r() * 50),
        text: `cake ${i % 3 ? 'tart' : 'pie'}`,
      }),
    });
  }
  for (let s = 0; s < items.length; s += 500) a.ingestItems(items.slice(s, s + 500), { callId: `walk-${s}`, source: 'test' });
});
afterAll(() => a.close());

function plan(q: LibraryQuery): string {
  const p = parseQuery(q);
  const sp = sortPlan(p);
  const c = ctxOf(a);
  const w = buildWhere(p, estimator(c), sortColumn(sp), { dir: sp.dir, sample: sampler(c) });
  const sqlText = `SELECT i.rid FROM ${sp.from0} WHERE ${[sp.known, ...w.clauses].join(' AND ')} ORDER BY ${sp.expr} ${sp.dir}, ${sp.tie} ${sp.dir} LIMIT 101`;
  return (
    testDb(a)
      .prepare(`EXPLAIN QUERY PLAN ${sqlText}`)
      .all(...sp.knownParams, ...w.params) as Array<{ detail: string }>
  )
    .map((d) => d.detail)
    .join('; ');
}

function allPages(q: LibraryQuery): LibraryListRow[] {
  const rows: LibraryListRow[] = [];
  let after: string | undefined;
  for (;;) {
    const p = a.listQuery({ ...q, limit: 97, ...(after ? { after } : {}) });
    rows.push(...p.rows);
    if (!p.next) return rows;
    after = p.next;
  }
}

describe('sorted pages of one network', () => {
  it('a network without the sort value is found by its own index, not by walking the sort index', () => {
    expect(plan({ platforms: ['forum_net'], sort: { field: 'views', dir: 'desc' } })).not.toMatch(/items_views/);
    expect(plan({ platforms: ['forum_net'], sort: { field: 'views', dir: 'asc' } })).not.toMatch(/items_views/);
    // a network dense among the rows with views still walks that index (no sort of all its rows)
    expect(plan({ platforms: ['photo_net'], sort: { field: 'views', dir: 'desc' } })).toMatch(/items_views/);
  });

  it('gives every row once, in the sort order, whichever plan each phase takes', () => {
    type Row = { id: string; rid: number; platform: string; views: number | null; likes: number | null; text: string };
    const all = testDb(a).prepare('SELECT id, rid, platform, views, likes, text FROM items').all() as Row[];
    for (const platforms of [['forum_net'], ['photo_net'], ['forum_net', 'photo_net']])
      for (const field of ['views', 'likes'] as const)
        for (const dir of ['desc', 'asc'] as const)
          for (const text of [undefined, 'pie']) {
            const q: LibraryQuery = { platforms, sort: { field, dir }, ...(text ? { text } : {}) };
            const got = allPages(q);
            const tie = (x: Row, y: Row): number => (dir === 'desc' ? y.rid - x.rid : x.rid - y.rid);
            const want = all
              .filter((x) => platforms.includes(x.platform) && (!text || x.text.includes(text)))
              .sort((x, y) => {
                const [u, v] = [x[field], y[field]];
                if (u === null || v === null) return u === v ? tie(x, y) : u === null ? 1 : -1;
                return (dir === 'desc' ? v - u : u - v) || tie(x, y);
              })
              .map((x) => x.id);
            expect(
              got.map((r) => r.id),
              JSON.stringify(q),
            ).toEqual(want);
          }
  }, 60_000);
});
