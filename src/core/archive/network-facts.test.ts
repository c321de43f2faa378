import { describe, expect, it } from 'vitest';
import type { LibraryQuery } from '../../shared/query';
import { openArchive } from './archive';
import { ctxOf } from './context';
import { factRows } from './network-facts';
import { buildWhere, parseQuery } from './sql-query';
import { post } from './test-fixtures';

describe('network fact rows', () => {
  const a = openArchive(':memory:');
  // 80 posts, one a day, ingested out of date order (rid order is not date order)
  const recs = Array.from({ length: 80 }, (_, i) => {
    const day = (i * 37) % 80;
    return post({
      id: `19000000000000${String(1000 + i)}`,
      text: `#t${i % 9} #u${i % 4} @a${i % 3}`,
      author: { id: `91000000000000000${String(10 + (i % 5))}`, username: `user${i % 5}`, display_name: `User ${i % 5}` },
      likes: i,
      published_at: new Date(Date.UTC(2024, 0, 1 + day, 12)).toISOString(),
      labels: { sponsored: { p: (i % 10) / 10 }, intent: { label: i % 2 ? 'complaining' : 'promoting' } },
    });
  });
  a.ingestItems(recs.map((record) => ({ platform: 'micro_net', kind: 'post', record })));
  a.overrideLabel({ platform: 'micro_net', kind: 'post', id: recs[7].id as string }, 'sponsored', 'p', 0.95);
  const c = ctxOf(a);

  /** the plain walk in rid order: what every path must give */
  const walked = (q: LibraryQuery, authors: boolean): unknown[] => {
    const w = buildWhere(parseQuery(q));
    const rows = [...factRows(c, {}, authors)] as unknown[][];
    const ids = new Set(
      c
        .st(`SELECT i.id FROM items i ${w.clauses.length ? `WHERE ${w.clauses.join(' AND ')}` : ''}`)
        .pluck()
        .all(...w.params) as string[],
    );
    return rows.filter((r) => ids.has(r[2] as string));
  };

  it('a narrow query (under a quarter of the archive: its rids, looked up in order) gives the rows and order of the walk', () => {
    for (const q of [
      { since: '2024-03-05' },
      { since: '2024-01-05', until: '2024-01-20' },
      { author: 'user2', since: '2024-02-01' },
    ] as LibraryQuery[])
      for (const authors of [true, false]) {
        const rows = [...factRows(c, q, authors)];
        expect(rows.length, JSON.stringify(q)).toBeGreaterThan(0);
        expect(rows.length).toBeLessThan(20);
        expect(rows, JSON.stringify(q)).toEqual(walked(q, authors));
      }
  });

  it('a wide query and no query walk the table: the same rows in rid order', () => {
    for (const q of [{}, { since: '2024-01-10' }, { until: '2024-03-01' }] as LibraryQuery[]) {
      const rows = [...factRows(c, q, true)];
      expect(rows.length).toBeGreaterThan(20);
      expect(rows).toEqual(walked(q, true));
    }
  });

  it('more rids than one statement takes are read in chunks, in order', () => {
    const b = openArchive(':memory:');
    const many = Array.from({ length: 10_000 }, (_, i) =>
      post({
        id: `1800000000000${String(10_000 + i)}`,
        text: `#a #b${i % 3}`,
        published_at: new Date(Date.UTC(2024, 0, 1) + ((i * 7919) % 10_000) * 60_000).toISOString(),
      }),
    );
    b.ingestItems(many.map((record) => ({ platform: 'micro_net', kind: 'post', record })));
    const bc = ctxOf(b);
    const q = { since: new Date(Date.UTC(2024, 0, 1) + 7_500 * 60_000).toISOString() };
    const rows = [...factRows(bc, q, false)];
    expect(rows).toHaveLength(2_500);
    const all = [...factRows(bc, {}, false)];
    const ids = new Set(rows.map((r) => r[2]));
    expect(rows).toEqual(all.filter((r) => ids.has(r[2])));
    b.close();
  });
});
