/**
 * Issue 14 (scrolling 10,000 rows): the Library's list pages are lean. `library.query` with
 * `lean: true` (what the renderer asks for) answers rows without the raw API record — only the
 * columns, plus what a list shows from the record (thumbnail) — and the same cursors; the drawer
 * reads the whole record through `library.item`. Without `lean` the rows are as before (the CLI's
 * JSON lines: `record` 4th, no list-only fields).
 */
import { describe, expect, it } from 'vitest';
import { dispatch } from '../bridge';
import { libraryMethods } from '../methods/library';
import type { LibraryListRow, LibraryPage, LibraryRow } from '../../shared/query';
import type { ItemDetail } from '../../shared/contract';
import { openArchive } from './archive';

const POST = {
  id: '10',
  content: { text: 'a post with a picture', thumbnail_url: 'https://img.example/10.jpg' },
  published_at: '2024-05-01T10:00:00Z',
  author: { id: '7', username: 'baker' },
  engagement: { likes: 3, views: null },
  flags: { views_hidden: true },
  extra: { deep: ['kept', 'in', 'the', 'record'] },
};
const REPLY = { id: '11', parent_id: '10', text: 'a reply', published_at: '2024-05-01T11:00:00Z', author: { id: '8', username: 'crumb' } };
const NUMERIC_PARENT = { id: '12', parent_id: 10, text: 'a reply naming its parent by number', published_at: '2024-05-01T12:00:00Z' };

async function withApp(f: (call: <T>(m: string, input: unknown) => Promise<T>) => Promise<void>) {
  const a = openArchive(':memory:');
  try {
    a.ingestItems([
      { platform: 'forum_net', kind: 'post', record: POST },
      { platform: 'forum_net', kind: 'comment', record: REPLY },
      { platform: 'forum_net', kind: 'comment', record: NUMERIC_PARENT },
    ]);
    const app = { impl: libraryMethods(a) as never, secrets: () => [] };
    await f(async <T>(m: string, input: unknown) => {
      const r = await dispatch(app, m, input);
      if (!r.ok) throw new Error(JSON.stringify(r.error));
      return r.result as T;
    });
  } finally {
    a.close();
  }
}

const byId = <R extends { id: string }>(rows: R[]) => Object.fromEntries(rows.map((r) => [r.id, r]));

describe('lean library pages', () => {
  it('carry no raw record, the same columns, the thumbnail and parent; the drawer gets the record from library.item', async () => {
    await withApp(async (call) => {
      const full = await call<LibraryPage>('library.query', { limit: 10 });
      const lean = await call<LibraryPage<LibraryListRow>>('library.query', { limit: 10, lean: true });
      expect(lean.total).toBe(3);
      expect(lean.rows.map((r) => r.id)).toEqual(full.rows.map((r) => r.id));
      for (const r of lean.rows) expect(r).not.toHaveProperty('record');
      const f = byId(full.rows);
      for (const r of lean.rows) {
        const { thumbnailUrl, ...cols } = r;
        const { record: _record, ...fullCols } = f[r.id];
        expect(cols).toEqual(fullCols);
        expect(thumbnailUrl).toBe(r.id === '10' ? 'https://img.example/10.jpg' : null);
      }
      const l = byId(lean.rows);
      expect(l['10'].hiddenCounts).toEqual(['views']);
      expect(l['11'].parentId).toBe('10');
      expect(l['12'].parentId).toBe('10'); // ids are text (record-fields.ts idText)
      expect(JSON.stringify(lean).length).toBeLessThan(JSON.stringify(full).length);
      // the drawer's item: the whole record
      const item = await call<ItemDetail>('library.item', { platform: 'forum_net', kind: 'post', id: '10' });
      expect(item.record).toEqual(POST);
    });
  });

  it('default rows are unchanged: the record 4th, no list-only fields; lean and full pages share cursors', async () => {
    await withApp(async (call) => {
      const p1 = await call<LibraryPage>('library.query', { limit: 1, sort: { field: 'published_at', dir: 'asc' } });
      expect(Object.keys(p1.rows[0]).slice(0, 5)).toEqual(['platform', 'kind', 'id', 'record', 'tags']);
      expect(p1.rows[0]).not.toHaveProperty('thumbnailUrl');
      expect(p1.rows[0].record).toEqual(POST);
      const l1 = await call<LibraryPage<LibraryListRow>>('library.query', {
        limit: 1,
        sort: { field: 'published_at', dir: 'asc' },
        lean: true,
      });
      expect(l1.next).toBe(p1.next);
      const l2 = await call<LibraryPage<LibraryListRow>>('library.query', {
        limit: 1,
        sort: { field: 'published_at', dir: 'asc' },
        after: p1.next,
        lean: true,
      });
      const p2 = await call<LibraryPage<LibraryRow>>('library.query', {
        limit: 1,
        sort: { field: 'published_at', dir: 'asc' },
        after: l1.next,
      });
      expect(l2.rows.map((r) => r.id)).toEqual(['11']);
      expect(p2.rows.map((r) => r.id)).toEqual(['11']);
      expect(p2.rows[0].record).toEqual(REPLY);
    });
  });
});
