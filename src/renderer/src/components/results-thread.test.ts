/**
 * Issue 14: the Library's list rows are lean (no raw record: `library.query` with `lean: true`).
 * Comment threads come from the row's `parentId` column, not from the record; the cards'
 * thumbnail from its `thumbnailUrl`.
 */
import { describe, expect, it } from 'vitest';
import type { LibraryListRow } from '../../../shared/query';
import { thread } from './ResultsTable';

const row = (id: string, parentId: string | null): LibraryListRow => ({
  platform: 'forum_net',
  kind: 'comment',
  id,
  tags: [],
  note: null,
  overrides: {},
  firstSeenAt: 0,
  lastSeenAt: 0,
  seenCount: 1,
  publishedAt: null,
  author: { id: null, username: null, displayName: null },
  text: id,
  url: null,
  lang: null,
  postKind: null,
  parentId,
  engagement: { views: null, likes: null, comments: null, shares: null, saves: null },
  hiddenCounts: [],
  followers: null,
  title: null,
  labels: null,
  relevance: null,
  thumbnailUrl: null,
});

describe('threads of lean rows', () => {
  it('put replies under their parent by parentId, and hide them when collapsed', () => {
    const rows = [row('r1', 'p'), row('p', null), row('r2', 'p'), row('rr', 'r1'), row('orphan', 'gone')];
    const t = thread(rows, new Set());
    expect(t.ordered.map((r) => r.id)).toEqual(['p', 'r1', 'rr', 'r2', 'orphan']);
    expect(Object.fromEntries(t.depth)).toEqual({ p: 0, r1: 1, rr: 2, r2: 1, orphan: 0 });
    expect(t.childCount.get('p')).toBe(2);
    expect(thread(rows, new Set(['p'])).ordered.map((r) => r.id)).toEqual(['p', 'orphan']);
  });
});
