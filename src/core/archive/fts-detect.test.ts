/**
 * Migration 0008: the full-text index is declared so Datasette and sqlite-utils find it (issue 16:
 * `items?_search=` was silently ignored). Their detection is reproduced here as they run it: both
 * read sqlite_master with LIKE patterns (Datasette `detect_fts_sql`, datasette/utils/__init__.py;
 * sqlite-utils `Table.detect_fts`, sqlite_utils/db.py), and Datasette then searches with
 * `rowid in (select rowid from <fts> where <fts> match escape_fts(:search))`. When Debian's
 * `sqlite-utils` is installed, the real tool searches the archive too.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Archive, openArchive } from './archive';
import { openDb, type Db } from './db';
import { MIGRATIONS } from './migrations/index';
import { inferVersion } from './salvage';
import { listResponse, post, writeAsOldSchema } from './test-fixtures';
import { testDb } from './testing';

/**
 * Datasette's detect_fts_sql(table), as its source writes it, except `tbl_name = "items"`: Python's
 * SQLite reads that double-quoted word as a string (SQLite's legacy fallback), better-sqlite3's
 * build does not (SQLITE_DQS=0), so it is written as the string it means.
 */
const datasetteDetect = (db: Db, table: string): string | null => {
  const t = table.replace(/'/g, "''");
  const row = db
    .prepare(
      `select name from sqlite_master
        where rootpage = 0
        and (
          sql like '%VIRTUAL TABLE%USING FTS%content="${t}"%'
          or sql like '%VIRTUAL TABLE%USING FTS%content=[${t}]%'
          or (
            tbl_name = '${t}'
            and sql like '%VIRTUAL TABLE%USING FTS%'
          )
        )`,
    )
    .get() as { name: string } | undefined;
  return row?.name ?? null;
};

/** sqlite-utils Table.detect_fts(), with its named parameters. */
const sqliteUtilsDetect = (db: Db, table: string): string | null => {
  const row = db
    .prepare(
      `SELECT name FROM sqlite_master
        WHERE rootpage = 0
        AND (
          sql LIKE :like
          OR sql LIKE :like2
          OR (
            tbl_name = :table
            AND sql LIKE '%VIRTUAL TABLE%USING FTS%'
          )
        )`,
    )
    .get({ like: `%VIRTUAL TABLE%USING FTS%content=[${table}]%`, like2: `%VIRTUAL TABLE%USING FTS%content="${table}"%`, table }) as
    { name: string } | undefined;
  return row?.name ?? null;
};

/** Datasette's escape_fts: every word a quoted phrase, quoted phrases kept, a dangling quote closed. */
function escapeFts(query: string): string {
  let q = query;
  if ((q.match(/"/g) ?? []).length % 2) q += '"';
  const bits = q.split(/\s+|(".*?")/).filter((b) => b && b !== '""');
  return bits.map((b) => (b.startsWith('"') ? b : `"${b}"`)).join(' ');
}

/** Datasette's table search: the rows of `items` whose rowid the detected index matches. */
const datasetteSearch = (db: Db, search: string): string[] => {
  const fts = datasetteDetect(db, 'items');
  if (!fts) return [];
  return (
    db
      .prepare(`select id from items where rowid in (select rowid from [${fts}] where [${fts}] match :search) order by id`)
      .all({ search: escapeFts(search) }) as Array<{ id: string }>
  ).map((r) => r.id);
};

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loupe-fts-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function fill(a: Archive): void {
  a.storeResponse(
    listResponse('c1', 'photo_net', 'profile/posts', [
      post({ id: '1', text: 'Crumb cake from Northpeak bakery' }),
      post({ id: '2', text: 'Café crème at dawn' }),
      post({ id: '3', text: 'nothing to see', author: { username: 'crumb_fan' } }),
    ]),
    'cli',
    null,
  );
}

describe('the full-text index, as Datasette and sqlite-utils detect it', () => {
  it('an archive of schema 7 hides its index from both; migration 0008 declares it and keeps every match', () => {
    const file = join(dir, 'loupe.db');
    const old = openDb(file, MIGRATIONS.slice(0, 7));
    writeAsOldSchema(old, () => fill(new Archive(old)));
    expect(datasetteDetect(old, 'items')).toBeNull(); // what issue 16 saw: _search ignored
    expect(sqliteUtilsDetect(old, 'items')).toBeNull();
    const before = old
      .prepare("SELECT rowid FROM items_fts WHERE items_fts MATCH 'crumb OR creme' ORDER BY rowid")
      .pluck()
      .all() as number[];
    old.close();

    const a = openArchive(file);
    try {
      expect(datasetteDetect(testDb(a), 'items')).toBe('items_fts');
      expect(sqliteUtilsDetect(testDb(a), 'items')).toBe('items_fts');
      // the same index: every match of before, diacritics folded, author names included
      expect(testDb(a).prepare("SELECT rowid FROM items_fts WHERE items_fts MATCH 'crumb OR creme' ORDER BY rowid").pluck().all()).toEqual(
        before,
      );
      expect(before.length).toBe(3);
      expect(datasetteSearch(testDb(a), 'northpeak')).toEqual(['1']);
      expect(datasetteSearch(testDb(a), 'creme')).toEqual(['2']);
      expect(datasetteSearch(testDb(a), 'crumb')).toEqual(['1', '3']);
      expect(datasetteSearch(testDb(a), '"crumb cake"')).toEqual(['1']);
      // Loupe's own query and the triggers work on the new declaration
      expect(
        a
          .query({ text: 'crumb' })
          .rows.map((r) => r.id)
          .sort(),
      ).toEqual(['1', '3']);
      a.storeResponse(
        listResponse('c2', 'photo_net', 'profile/posts', [
          post({ id: '4', text: 'more crumb' }),
          post({ id: '1', text: 'Edited: no cake' }),
        ]),
        'cli',
        null,
      );
      expect(datasetteSearch(testDb(a), 'crumb')).toEqual(['3', '4']);
      expect(a.query({ text: 'cake' }).rows.map((r) => r.id)).toEqual(['1']);
      expect(
        testDb(a).prepare("INSERT INTO items_fts (items_fts, rank) VALUES ('integrity-check', 1)").run().changes,
      ).toBeGreaterThanOrEqual(0);
    } finally {
      a.close();
    }
  });

  it('a new archive is declared that way from the start', () => {
    const a = openArchive(':memory:');
    try {
      expect(datasetteDetect(testDb(a), 'items')).toBe('items_fts');
      expect(testDb(a).prepare("SELECT sql FROM sqlite_master WHERE name = 'items_fts'").pluck().get()).toContain('content="items"');
      // recovery infers a lost schema version from the tables: this one is 8
      expect(inferVersion(testDb(a))).toBeGreaterThanOrEqual(8);
    } finally {
      a.close();
    }
  });

  const tool = '/usr/bin/sqlite-utils';
  it.skipIf(!existsSync(tool))('sqlite-utils (Debian package) finds and searches the index', () => {
    const file = join(dir, 'loupe.db');
    const a = openArchive(file);
    fill(a);
    a.close();
    const found = JSON.parse(
      execFileSync(tool, ['search', file, 'items', 'crumb', '-c', 'id', '--json-cols'], { encoding: 'utf8' }),
    ) as Array<{ id: string }>;
    expect(found.map((r) => r.id).sort()).toEqual(['1', '3']);
  });
});
