/**
 * Migration 0006: an archive written before issue 14 #3 was fixed holds comments as kind `post`
 * (and list items keyed `reply` as kind `reply`). The archive is built at schema 5 and its
 * comments put back the way the old extraction stored them; opening it with the current code
 * re-kinds exactly the rows the fixed extraction calls comments, and loses nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Archive, openArchive } from './archive';
import { openDb } from './db';
import { MIGRATIONS } from './migrations/index';
import { rekindStoredComments } from './comment-kinds';
import { envelope, listResponse, post, writeAsOldSchema } from './test-fixtures';
import { testDb } from './testing';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loupe-0006-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const comment = (id: string, text: string, extra: Record<string, unknown> = {}) =>
  post({ id, text, kind: 'text', parent_id: 'P1', labels: { sentiment: { label: 'negative', p: 0.9 } }, ...extra });

/** An archive at schema 5 whose comments were stored the old way. */
function buildOld(file: string): void {
  const db = openDb(file, MIGRATIONS.slice(0, 5));
  const a = new Archive(db, { clock: () => 5_000 });
  writeAsOldSchema(db, () => writeOld(db, a));
  a.close();
}

function writeOld(db: ReturnType<typeof openDb>, a: Archive): void {
  // a reply page in the spec's list shape ({ post }), judged with comment families (the old code: kind post)
  a.storeResponse(
    listResponse('c1', 'micro_net', 'tweet/replies', [comment('101', 'first reply crumbs'), comment('102', 'second reply')], {
      fetchedAt: 1_000,
    }),
    'comments',
    'w1',
  );
  // a post feed: stays posts
  a.storeResponse(
    listResponse('c2', 'micro_net', 'user/tweets', [post({ id: '201', text: 'a post', labels: { intent: { label: 'other' } } })], {
      fetchedAt: 1_100,
    }),
    'feed',
    'w2',
  );
  // a comments answer carrying its parent post as a single object: the parent stays a post
  a.storeResponse(
    {
      callId: 'c3',
      platform: 'forum_net',
      endpoint: 'post/comments',
      paramsHash: 'h3',
      fetchedAt: 1_200,
      envelope: envelope('forum_net', 'post/comments', {
        post: post({ id: 'P1', text: 'the parent post' }),
        items: [{ post: comment('301', 'forum comment', { labels: null }) }],
      }),
    },
    'comments',
    'w3',
  );
  // old list items keyed `reply` (kind reply), on a page no other signal marks
  a.storeResponse(
    listResponse('c4', 'video_net', 'video/feed', [post({ id: '401', text: 'keyed reply', kind: 'reply' })], {
      kind: 'reply',
      fetchedAt: 1_300,
    }),
    'x',
    null,
  );
  // a bulk ingest (no answer stored): its kind came from the caller and stays
  a.ingestItems([{ platform: 'micro_net', kind: 'post', record: comment('501', 'ingested') }], { callId: 'bulk', source: 'import' });
  a.addTag({ platform: 'micro_net', kind: 'comment', id: '101' }, 'Keep');
  a.setNote({ platform: 'micro_net', kind: 'comment', id: '101' }, 'old note');
  a.overrideLabel({ platform: 'micro_net', kind: 'comment', id: '102' }, 'sentiment', 'label', 'positive');
  // the way the old extraction stored them
  db.exec(`UPDATE items SET kind = 'post' WHERE kind = 'comment'`);
  db.exec(`UPDATE items SET kind = 'reply', post_kind = NULL WHERE id = '401'`);
  // a watchlist that holds one of them under the old kind
  db.exec(`INSERT INTO watchlists (id, name, seen_at, created_at, updated_at) VALUES ('wl', 'list', 0, 0, 0)`);
  db.exec(
    `INSERT INTO watches (watch_id, watchlist_id, position, platform, endpoint, params, label, created_at) VALUES ('w', 'wl', 0, 'micro_net', 'tweet/replies', '{}', 'x', 0)`,
  );
  db.exec(
    `INSERT INTO watch_items (watch_id, platform, kind, item_id, chain_id, run_id, seen_at) VALUES ('w', 'micro_net', 'post', '101', 'ch', 'r', 1)`,
  );
}

const kinds = (a: Archive) =>
  Object.fromEntries(
    (testDb(a).prepare("SELECT platform || '/' || id AS k, kind FROM items ORDER BY k").all() as Array<{ k: string; kind: string }>).map(
      (r) => [r.k, r.kind],
    ),
  );

describe('migration 0006: comments stored as posts', () => {
  it('re-kinds the comments of stored answers; posts, parent posts and ingested rows stay', () => {
    const file = join(dir, 'loupe.db');
    buildOld(file);
    const before = openDb(file, MIGRATIONS.slice(0, 5));
    expect((before.prepare("SELECT count(*) AS n FROM items WHERE kind = 'comment'").get() as { n: number }).n).toBe(0);
    before.close();

    const a = openArchive(file);
    try {
      expect(testDb(a).pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(6);
      expect(kinds(a)).toEqual({
        'forum_net/301': 'comment',
        'forum_net/P1': 'post',
        'micro_net/101': 'comment',
        'micro_net/102': 'comment',
        'micro_net/201': 'post',
        'micro_net/501': 'post',
        'video_net/401': 'comment',
      });
      // the library finds them as comments, with what was attached to them
      expect(a.count({ kinds: ['comment'] })).toBe(4);
      const r101 = a.getItem('micro_net', 'comment', '101')!;
      expect(r101.tags).toEqual(['Keep']);
      expect(r101.note).toBe('old note');
      expect(a.count({ kinds: ['comment'], labels: [{ family: 'sentiment', field: 'label', op: 'eq', value: 'positive' }] })).toBe(1); // 102's override
      expect(a.count({ kinds: ['comment'], text: 'crumbs' })).toBe(1);
      expect(a.count({ source: { type: 'walk', id: 'w1' }, kinds: ['comment'] })).toBe(2);
      // an old `reply` row is extracted as a comment (a post record), not as a profile-like row
      expect(a.getItem('video_net', 'comment', '401')?.postKind).toBe('reply');
      // the watchlist still holds its item, under the new kind
      expect(testDb(a).prepare("SELECT kind FROM watch_items WHERE item_id = '101'").pluck().all()).toEqual(['comment']);
      expect(testDb(a).prepare('PRAGMA integrity_check').pluck().get() as string).toBe('ok');
    } finally {
      a.close();
    }
  });

  it('a comment held twice (old post row + a comment row fetched after the fix) becomes one row with both histories', () => {
    const file = join(dir, 'loupe.db');
    buildOld(file);
    // after the fix, the same reply was fetched again (newer counts) and tagged and noted on its own
    const db = openDb(file, MIGRATIONS.slice(0, 5));
    const a5 = new Archive(db, { clock: () => 6_000 });
    writeAsOldSchema(db, () =>
      a5.storeResponse(
        listResponse('c9', 'micro_net', 'tweet/replies', [comment('101', 'first reply crumbs', { likes: 42 })], { fetchedAt: 9_000 }),
        'again',
        'w9',
      ),
    );
    expect(db.prepare("SELECT count(*) FROM items WHERE id = '101'").pluck().get() as number).toBe(2);
    // today's annotation code on the old schema too (it writes the author column 0013 added)
    writeAsOldSchema(db, () => {
      a5.addTag({ platform: 'micro_net', kind: 'comment', id: '101' }, 'new');
      a5.setNote({ platform: 'micro_net', kind: 'comment', id: '101' }, 'new note');
    });
    db.exec(
      `INSERT INTO watch_items (watch_id, platform, kind, item_id, chain_id, run_id, seen_at) VALUES ('w', 'micro_net', 'comment', '101', 'ch2', 'r2', 2)`,
    );
    a5.close();

    const a = openArchive(file);
    try {
      expect(testDb(a).prepare("SELECT count(*) FROM items WHERE id = '101'").pluck().get() as number).toBe(1);
      const it = a.getItem('micro_net', 'comment', '101')!;
      expect(it.tags.sort()).toEqual(['Keep', 'new']);
      expect(it.note).toBe('old note\n\nnew note');
      expect(it.engagement.likes).toBe(42); // the later answer wins
      expect(it.seenCount).toBe(2);
      expect(it.provenance.map((p) => p.callId).sort()).toEqual(['c1', 'c9']);
      expect(a.count({ kinds: ['comment'], text: 'crumbs' })).toBe(1);
      expect(a.count({ kinds: ['comment'], labels: [{ family: 'sentiment', field: 'label', op: 'eq', value: 'negative' }] })).toBe(1); // 101 (102 overridden, 301 and 401 unjudged)
      expect(testDb(a).prepare("SELECT kind FROM watch_items WHERE item_id = '101'").pluck().all()).toEqual(['comment']);
      expect(testDb(a).prepare('PRAGMA integrity_check').pluck().get() as string).toBe('ok');
      expect(
        testDb(a).prepare("INSERT INTO items_fts (items_fts, rank) VALUES ('integrity-check', 1)").run().changes,
      ).toBeGreaterThanOrEqual(0);
    } finally {
      a.close();
    }
  });

  it('reads only answers that can name a comment, and a second run changes nothing', () => {
    const file = join(dir, 'loupe.db');
    buildOld(file);
    const db = openDb(file, MIGRATIONS.slice(0, 5));
    const r = db.transaction(() => rekindStoredComments(db))();
    // c1 (reply endpoint), c3 (comments endpoint), c4 ("reply" kind); c2 is a post feed with post families only
    expect(r).toEqual({ answersRead: 3, rekinded: 4, merged: 0 });
    // again: only the comments answer that also holds its parent post (a post) is read; nothing changes
    expect(db.transaction(() => rekindStoredComments(db))()).toEqual({ answersRead: 1, rekinded: 0, merged: 0 });
    db.close();
  });
});
