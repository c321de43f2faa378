/**
 * Issue 13: what a row shows is what it is filtered, sorted and searched by — the archive's columns
 * and the renderer's cells come from one definition (src/shared/record-fields.ts). Migration 0010
 * brings an archive written by schema 9 (the older extraction) to the same columns.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordFields } from '../../shared/record-fields';
import type { LibraryRow } from '../../shared/query';
import { openArchive, type Archive } from './archive';
import { latestVersion, openDb } from './db';
import { MIGRATIONS } from './migrations/index';
import { reextractColumns } from './migrations/0010-display-columns';
import { testDb } from './testing';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loupe-0010-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const TITLE_ONLY = {
  id: '1',
  ext: { post_title: 'Northpeak sourdough guide' },
  content: { text: null },
  published_at: '2024-05-01T10:00:00Z',
  engagement: { likes: 3 },
};
const CREATED_AT = {
  id: '2',
  content: { text: 'dated by created_at' },
  created_at: '2024-06-01T00:00:00Z',
  like_count: 40,
  view_count: 900,
  username: 'poster',
};
const PLAIN = {
  id: '3',
  content: { text: 'a plain post' },
  published_at: '2024-04-01T00:00:00Z',
  author: { id: 9, username: 'baker', followers: 1200 },
  engagement: { likes: 7, views: 70 },
};
const PROFILE = { id: 'u1', username: 'crumbs', display_name: 'Crumbs & Co', follower_count: 55, bio: 'we bake' };

const ids = (a: Archive, q: Parameters<Archive['query']>[0]) => a.query(q).rows.map((r) => r.id);

/** The row shows what the shared definition reads from its record (what the renderer's cells display). */
function expectShownAsExtracted(r: LibraryRow): void {
  const f = recordFields(r.kind, r.record);
  expect({
    text: r.text,
    title: r.title,
    author: r.author,
    publishedAt: r.publishedAt,
    engagement: r.engagement,
    followers: r.followers,
  }).toEqual({
    text: f.text,
    title: f.title,
    author: f.author,
    publishedAt: f.publishedAt,
    engagement: f.engagement,
    followers: f.followers,
  });
}

describe('one definition for the archive and the views', () => {
  it('an item with only ext.post_title shows that title and is found, sorted and filtered by what it shows', () => {
    const a = openArchive(':memory:');
    try {
      a.ingestItems([
        { platform: 'forum_net', kind: 'post', record: TITLE_ONLY },
        { platform: 'forum_net', kind: 'post', record: CREATED_AT },
        { platform: 'forum_net', kind: 'post', record: PLAIN },
        { platform: 'forum_net', kind: 'profile', record: PROFILE },
      ]);
      const [hit] = a.query({ text: 'sourdough' }).rows;
      expect(hit.id).toBe('1');
      expect(hit.text).toBe('Northpeak sourdough guide');
      expect(hit.title).toBe('Northpeak sourdough guide');
      // created_at dates it, like_count / view_count count, a top-level username names its author
      expect(ids(a, { kinds: ['post'], sort: { field: 'published_at', dir: 'desc' } })).toEqual(['2', '1', '3']);
      expect(ids(a, { engagement: [{ field: 'likes', min: 10 }] })).toEqual(['2']);
      expect(ids(a, { author: 'poster' })).toEqual(['2']);
      const all = a.query({ limit: 10 }).rows;
      for (const r of all) expectShownAsExtracted(r);
      const plain = all.find((r) => r.id === '3')!;
      expect(plain.followers).toBe(1200);
      expect(plain.author.id).toBe('9');
      const profile = all.find((r) => r.kind === 'profile')!;
      expect(profile).toMatchObject({
        text: 'we bake',
        followers: 55,
        author: { id: 'u1', username: 'crumbs', displayName: 'Crumbs & Co' },
      });
    } finally {
      a.close();
    }
  });

  it('hidden counts come with the row: hidden is not "not provided"', () => {
    const a = openArchive(':memory:');
    try {
      a.ingestItems([
        { platform: 'photo_net', kind: 'post', record: { id: 'h', engagement: { likes: null, views: 5 }, flags: { likes_hidden: true } } },
      ]);
      const it = a.getItem('photo_net', 'post', 'h')!;
      expect(it.hiddenCounts).toEqual(['likes']);
      expect(it.engagement.likes).toBeNull();
    } finally {
      a.close();
    }
  });
});

/** An archive of schema 9 whose rows carry the columns the older extraction gave them. */
function buildOld(file: string): void {
  const db = openDb(file, MIGRATIONS.slice(0, 9));
  const ins = db.prepare(
    `INSERT INTO items (platform, kind, id, raw, published_at, author_id, author_username, author_display_name, text, views, likes, first_seen_at, last_seen_at)
     VALUES ('forum_net', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, 1)`,
  );
  // the old extraction: no title fallback, published_at only, engagement.* only, no author for a post without an author object
  ins.run('post', '1', JSON.stringify(TITLE_ONLY), Date.parse('2024-05-01T10:00:00Z'), null, null, null, null, null, 3);
  ins.run('post', '2', JSON.stringify(CREATED_AT), null, null, null, null, 'dated by created_at', null, null);
  ins.run('post', '3', JSON.stringify(PLAIN), Date.parse('2024-04-01T00:00:00Z'), '9', 'baker', null, 'a plain post', 70, 7);
  ins.run('profile', 'u1', JSON.stringify(PROFILE), null, 'u1', 'crumbs', 'Crumbs & Co', 'we bake', null, null);
  ins.run('post', 'bad', '["not", "a record"]', null, null, null, null, 'kept as it was', null, null);
  db.prepare("INSERT INTO tags (name, created_at) VALUES ('keep', 1)").run();
  db.prepare(
    "INSERT INTO item_tags (item_rid, tag_id, at) SELECT rid, (SELECT tag_id FROM tags WHERE name = 'keep'), 1 FROM items WHERE id = '1'",
  ).run();
  db.close();
}

describe('migration 0010: display columns', () => {
  it('adds followers and title and re-extracts the changed columns of an archive written by schema 9; the full-text index follows', () => {
    const file = join(dir, 'loupe.db');
    buildOld(file);
    const old = openDb(file, MIGRATIONS.slice(0, 9));
    const ridsBefore = old.prepare('SELECT id, rid FROM items ORDER BY rid').all();
    expect(old.prepare("SELECT count(*) FROM items_fts WHERE items_fts MATCH 'sourdough'").pluck().get()).toBe(0);
    old.close();

    const a = openArchive(file);
    try {
      const db = testDb(a);
      expect(db.pragma('user_version', { simple: true })).toBe(latestVersion());
      expect((db.prepare('PRAGMA table_info(items)').all() as Array<{ name: string }>).map((c) => c.name)).toEqual(
        expect.arrayContaining(['followers', 'title']),
      );
      expect(db.prepare('SELECT id, rid FROM items ORDER BY rid').all()).toEqual(ridsBefore);
      // what the views showed is now what the archive finds, sorts and filters by
      expect(ids(a, { text: 'sourdough' })).toEqual(['1']);
      expect(ids(a, { kinds: ['post'], sort: { field: 'published_at', dir: 'desc' } }).slice(0, 3)).toEqual(['2', '1', '3']);
      expect(ids(a, { engagement: [{ field: 'views', min: 100 }] })).toEqual(['2']);
      expect(ids(a, { author: 'poster' })).toEqual(['2']);
      const rows = a.query({ limit: 10 }).rows;
      for (const r of rows.filter((x) => x.id !== 'bad')) expectShownAsExtracted(r);
      expect(rows.find((r) => r.id === '1')).toMatchObject({ title: 'Northpeak sourdough guide', tags: ['keep'] });
      expect(rows.find((r) => r.id === '3')!.followers).toBe(1200);
      expect(rows.find((r) => r.id === 'u1')!.followers).toBe(55);
      // a stored answer that is not a record keeps its columns
      expect(a.getItem('forum_net', 'post', 'bad')!.text).toBe('kept as it was');
      // the external-content index matches the table exactly
      expect(() => db.prepare("INSERT INTO items_fts (items_fts, rank) VALUES ('integrity-check', 1)").run()).not.toThrow();
      expect(ids(a, { text: 'plain' })).toEqual(['3']);
    } finally {
      a.close();
    }
  });

  it('works in batches, reports progress after each, writes only rows that changed, and a second run changes nothing', () => {
    const file = join(dir, 'loupe.db');
    buildOld(file);
    const db = openDb(file, MIGRATIONS.slice(0, 9));
    db.exec('ALTER TABLE items ADD COLUMN followers INTEGER; ALTER TABLE items ADD COLUMN title TEXT');
    const seen: Array<[number, number]> = [];
    const r = db.transaction(() => reextractColumns(db, (done, total) => seen.push([done, total]), 2))();
    expect(seen).toEqual([
      [2, 5],
      [4, 5],
      [5, 5],
    ]);
    // 1: text + title; 2: date, counts, author; 3: followers; u1: followers (bad: not a record, kept)
    expect(r).toEqual({ items: 5, changed: 4 });
    expect(db.transaction(() => reextractColumns(db, undefined, 2))()).toEqual({ items: 5, changed: 0 });
    db.close();
  });
});
