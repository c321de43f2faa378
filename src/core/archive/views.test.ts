/**
 * The analyst views (migration 0009, views.ts): known rows read back through items_view,
 * labels_wide and labels_long, with ISO dates, effective label values (overrides win, even to
 * null), booleans as 1/0 and nulls kept; and the same views read by other SQLite programs
 * (Python's sqlite3 through sqlite-utils, the sqlite3 shell) when they are installed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openArchive, type Archive } from './archive';
import { labelColumns } from './views';
import { listResponse, post } from './test-fixtures';
import { testDb } from './testing';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loupe-views-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ref = (id: string) => ({ platform: 'photo_net', kind: 'post', id });

function fill(a: Archive): void {
  a.storeResponse(
    listResponse(
      'c1',
      'photo_net',
      'profile/posts',
      [
        post({
          id: '9007199254740993', // above 2^53: stays text
          text: 'Crumb cake',
          published_at: '2024-05-01T12:00:00Z',
          likes: 12,
          views: null,
          labels: {
            sponsored: { p: 0.82, disclosed: false, undisclosed: true, brand: 'northpeak' },
            intent: { label: 'complaining', urgency: 2, confidence: 0.7 },
            custom: { x: 'y' },
          },
        }),
        post({ id: '2', text: 'no judgments', published_at: null, noComputed: true }),
        post({ id: '3', text: 'overridden', labels: { intent: { label: 'promoting', confidence: 0.9 }, sponsored: { p: 0.1 } } }),
      ],
      { fetchedAt: Date.UTC(2024, 5, 2, 8, 30, 15, 250) },
    ),
    'cli',
    null,
  );
  a.addTag(ref('9007199254740993'), 'Keep');
  a.addTag(ref('9007199254740993'), 'bakery');
  a.setNote(ref('9007199254740993'), 'check the brand');
  a.overrideLabel(ref('3'), 'intent', 'label', 'complaining');
  a.overrideLabel(ref('3'), 'sponsored', 'p', null);
}

type Row = Record<string, unknown>;

describe('analyst views', () => {
  it('items_view: ISO 8601 dates, counts with their nulls, tags and the note', () => {
    const a = openArchive(':memory:');
    try {
      fill(a);
      const rows = testDb(a).prepare('SELECT * FROM items_view ORDER BY published_at IS NULL, id').all() as Row[];
      expect(rows.map((r) => r.id)).toEqual(['3', '9007199254740993', '2']);
      const r = rows[1];
      expect(r).toMatchObject({
        platform: 'photo_net',
        kind: 'post',
        published_at: '2024-05-01T12:00:00.000Z',
        first_seen_at: '2024-06-02T08:30:15.250Z',
        last_seen_at: '2024-06-02T08:30:15.250Z',
        seen_count: 1,
        likes: 12,
        views: null,
        text: 'Crumb cake',
        format: 'photo',
        language: 'en',
        author_username: 'alice',
        note: 'check the brand',
      });
      expect(JSON.parse(r.tags as string)).toEqual(['bakery', 'Keep']);
      expect(rows[2]).toMatchObject({ published_at: null, tags: '[]', note: null });
      expect(Object.keys(r)).not.toContain('rid'); // storage keys stay out of the analyst's way
    } finally {
      a.close();
    }
  });

  it('labels_wide: one column per spec field, effective values; labels_long: every field held', () => {
    const a = openArchive(':memory:');
    try {
      fill(a);
      const cols = (testDb(a).prepare('SELECT name FROM pragma_table_info(?)').all('labels_wide') as Array<{ name: string }>).map(
        (c) => c.name,
      );
      expect(cols.slice(0, 3)).toEqual(['platform', 'kind', 'id']);
      expect(cols.slice(3)).toEqual(labelColumns().map((c) => c.column));
      expect(cols).toEqual(
        expect.arrayContaining(['sentiment_label', 'sponsored_p', 'sponsored_undisclosed', 'intent_urgency', 'niche_label']),
      );
      const w = Object.fromEntries((testDb(a).prepare('SELECT * FROM labels_wide').all() as Row[]).map((r) => [r.id, r]));
      expect(w['9007199254740993']).toMatchObject({
        sponsored_p: 0.82,
        sponsored_disclosed: 0,
        sponsored_undisclosed: 1,
        sponsored_brand: 'northpeak',
        intent_label: 'complaining',
        intent_urgency: 2,
        sentiment_label: null,
      });
      // overrides win: a value, and an override to null
      expect(w['3']).toMatchObject({ intent_label: 'complaining', intent_confidence: 0.9, sponsored_p: null });
      expect(
        Object.values(w['2'])
          .slice(3)
          .every((v) => v === null),
      ).toBe(true);

      const long = testDb(a)
        .prepare("SELECT id, family, field, value FROM labels_long WHERE id IN ('3', '9007199254740993') ORDER BY id, family, field")
        .all() as Row[];
      expect(long).toContainEqual({ id: '9007199254740993', family: 'custom', field: 'x', value: 'y' }); // not a spec field: still here
      expect(long).toContainEqual({ id: '3', family: 'intent', field: 'label', value: 'complaining' });
      expect(long).toContainEqual({ id: '3', family: 'sponsored', field: 'p', value: null });
      expect(long.filter((r) => r.id === '3')).toHaveLength(3);
    } finally {
      a.close();
    }
  });

  const sqliteUtils = '/usr/bin/sqlite-utils';
  it.skipIf(!existsSync(sqliteUtils))("Python reads the views (sqlite-utils over Python's sqlite3, as pandas would)", () => {
    const file = join(dir, 'loupe.db');
    const a = openArchive(file);
    fill(a);
    a.close();
    const out = JSON.parse(
      execFileSync(
        sqliteUtils,
        [
          'query',
          file,
          'SELECT v.id, v.published_at, w.intent_label, w.sponsored_p FROM items_view v JOIN labels_wide w USING (platform, kind, id) ORDER BY v.id',
        ],
        { encoding: 'utf8' },
      ),
    ) as Row[];
    expect(out).toEqual([
      { id: '2', published_at: null, intent_label: null, sponsored_p: null },
      { id: '3', published_at: '2024-05-01T12:00:00.000Z', intent_label: 'complaining', sponsored_p: null },
      { id: '9007199254740993', published_at: '2024-05-01T12:00:00.000Z', intent_label: 'complaining', sponsored_p: 0.82 },
    ]);
  });

  const shell = ['/usr/bin/sqlite3', '/usr/local/bin/sqlite3'].find((p) => existsSync(p));
  it.skipIf(!shell)('the sqlite3 shell reads them', () => {
    const file = join(dir, 'loupe.db');
    const a = openArchive(file);
    fill(a);
    a.close();
    const out = execFileSync(
      shell!,
      [
        '-readonly',
        '-csv',
        file,
        'SELECT id, published_at, sponsored_undisclosed FROM items_view JOIN labels_wide USING (platform, kind, id) ORDER BY id',
      ],
      { encoding: 'utf8' },
    );
    expect(out.trim().split('\n')).toEqual(['2,,', '3,2024-05-01T12:00:00.000Z,', '9007199254740993,2024-05-01T12:00:00.000Z,1']);
  });
});
