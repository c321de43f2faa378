/**
 * The Library's thread filter (issue 27 #12): `thread` selects the comments and replies under one
 * post at any depth, on the post's network only, never the post or another post's comments, and
 * ends on a cycle in hostile data; it walks the parent index (migration 0021).
 */
import { describe, expect, it } from 'vitest';
import { openArchive } from './index';
import { post } from './test-fixtures';
import { testDb } from './testing';
import { buildWhere, parseQuery } from './sql-query';
import { and } from './sql';

describe('library query: thread', () => {
  it('the comments and replies under a post, at any depth, and nothing else', () => {
    const a = openArchive(':memory:');
    const photo = [
      post({ id: 'p1', text: 'the post' }),
      post({ id: 'p2', text: 'another post' }),
      post({ id: 'c1', kind: 'comment', parent_id: 'p1', published_at: '2024-05-02T00:00:00Z' }),
      post({ id: 'c2', kind: 'comment', parent_id: 'p1', published_at: '2024-05-03T00:00:00Z' }),
      post({ id: 'r1', kind: 'reply', parent_id: 'c1', published_at: '2024-05-04T00:00:00Z' }),
      post({ id: 'r2', kind: 'reply', parent_id: 'r1', published_at: '2024-05-05T00:00:00Z' }),
      post({ id: 'c3', kind: 'comment', parent_id: 'p2' }),
      // a cycle (hostile data): x → y → x, under neither post
      post({ id: 'x', kind: 'comment', parent_id: 'y' }),
      post({ id: 'y', kind: 'comment', parent_id: 'x' }),
    ];
    a.ingestItems(
      photo.map((record) => ({ platform: 'photo_net', kind: record.parent_id ? 'comment' : 'post', record })),
      { callId: 's1', source: 'seed' },
    );
    // the same ids on another network are another thread
    a.ingestItems(
      [post({ id: 'c9', kind: 'comment', parent_id: 'p1' })].map((record) => ({ platform: 'micro_net', kind: 'comment', record })),
      { callId: 's2', source: 'seed' },
    );

    const q = { thread: { platform: 'photo_net', id: 'p1' }, sort: { field: 'published_at' as const, dir: 'asc' as const } };
    expect(a.query(q).rows.map((r) => r.id)).toEqual(['c1', 'c2', 'r1', 'r2']);
    expect(a.count(q)).toBe(4);
    expect(a.count({ thread: { platform: 'photo_net', id: 'c1' } })).toBe(2); // a comment's replies
    expect(a.count({ thread: { platform: 'micro_net', id: 'p1' } })).toBe(1);
    expect(a.count({ thread: { platform: 'photo_net', id: 'x' } })).toBe(2); // the cycle ends
    expect(a.count({ thread: { platform: 'photo_net', id: 'nothing' } })).toBe(0);
    // with the other filters, conjunctive
    expect(a.count({ ...q, kinds: ['comment'], since: '2024-05-04' })).toBe(2);
    // the export reads the same rows
    expect([...a.iterateExportRows(q)].map((r) => r.id)).toEqual(['c1', 'c2', 'r1', 'r2']);

    const w = buildWhere(parseQuery({ thread: { platform: 'photo_net', id: 'p1' } }));
    const plan = testDb(a)
      .prepare(`EXPLAIN QUERY PLAN SELECT i.rid FROM items i WHERE ${and(w.clauses)}`)
      .all(...w.params) as Array<{ detail: string }>;
    expect(plan.map((p) => p.detail).join('\n')).toMatch(/items_parent/);
    a.close();
  });
});
