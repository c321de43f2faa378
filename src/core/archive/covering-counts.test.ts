/**
 * Migration 0011: the counts beside the chart indexes. An archive written by schema 10 gets
 * `items_platform_kind_published` and `items_published` with the five counts; the charts of the
 * counts of filtered items then read those indexes alone and count what a count in JS counts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openArchive } from './archive';
import { latestVersion } from './db';
import { post, UNDO_0013 } from './test-fixtures';
import { testDb } from './testing';
import type { EngagementField, LibraryQuery } from '../../shared/query';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loupe-0011-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const PLATFORMS = ['photo_net', 'micro_net', 'forum_net'];
const DAY = 86_400_000;
const FIELDS: EngagementField[] = ['views', 'likes', 'comments', 'shares', 'saves'];

/** Schema 10's two chart indexes, as 0001 and 0003 created them (and no 0012 column, nothing of 0013). */
const OLD_INDEXES = `${UNDO_0013}
DROP INDEX items_spaceless;
ALTER TABLE items DROP COLUMN spaceless;
DROP INDEX items_platform_kind_published;
CREATE INDEX items_platform_kind_published ON items (platform, kind, published_at);
DROP INDEX items_published;
CREATE INDEX items_published ON items (published_at);
PRAGMA user_version = 10;`;

const columnsOf = (db: { prepare(s: string): { all(): unknown[] } }, index: string): string[] =>
  (db.prepare(`PRAGMA index_info(${index})`).all() as Array<{ name: string }>).map((c) => c.name);

describe('migration 0011 (covering counts)', () => {
  it('widens the chart indexes of a schema 10 archive; the charts of filtered counts read them alone and count what JS counts', () => {
    const file = join(dir, 'loupe.db');
    const a0 = openArchive(file);
    let s = 3;
    const r = (): number => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const count = (): number | null => (r() < 0.15 ? null : r() < 0.1 ? 0 : Math.floor(10 ** (r() * 7)));
    a0.ingestItems(
      Array.from({ length: 500 }, (_, k) => ({
        platform: PLATFORMS[k % 3],
        kind: 'post',
        record: post({
          id: String(k + 1),
          views: count(),
          likes: count(),
          comments: count(),
          shares: count(),
          saves: count(),
          published_at: k % 13 === 0 ? null : new Date(Date.UTC(2024, 0, 1) + Math.floor(r() * 200 * DAY)).toISOString(),
        }),
      })),
    );
    a0.close();
    const old = new Database(file);
    old.exec(OLD_INDEXES);
    expect(columnsOf(old, 'items_published')).toEqual(['published_at']);
    old.close();

    const a = openArchive(file);
    try {
      const db = testDb(a);
      expect(db.pragma('user_version', { simple: true })).toBe(latestVersion());
      expect(columnsOf(db, 'items_platform_kind_published')).toEqual(['platform', 'kind', 'published_at', ...FIELDS]);
      expect(columnsOf(db, 'items_published')).toEqual(['published_at', ...FIELDS]);

      const rows = db.prepare(`SELECT platform, kind, published_at AS t, ${FIELDS.join(', ')} FROM items`).all() as Array<
        Record<string, number | string | null>
      >;
      const since = Date.UTC(2024, 3, 1);
      const cases: Array<[LibraryQuery, (x: Record<string, number | string | null>) => boolean, string]> = [
        [{ platforms: ['micro_net'] }, (x) => x.platform === 'micro_net', 'platform'],
        [{ platforms: ['photo_net', 'forum_net'], kinds: ['post'] }, (x) => x.platform !== 'micro_net' && x.kind === 'post', 'platform'],
        [{ since: '2024-04-01' }, (x) => x.t !== null && (x.t as number) >= since, 'published'],
        [
          { platforms: ['forum_net'], since: '2024-04-01' },
          (x) => x.platform === 'forum_net' && x.t !== null && (x.t as number) >= since,
          'platform',
        ],
      ];
      for (const [q, keep, via] of cases) {
        for (const field of FIELDS) {
          const js = new Map<number, number>();
          for (const x of rows) {
            const v = x[field] as number | null;
            if (v === null || !keep(x)) continue;
            const b = v <= 0 ? -1 : String(Math.trunc(v)).length - 1;
            js.set(b, (js.get(b) ?? 0) + 1);
          }
          const want = [...js].sort((p, q2) => p[0] - q2[0]).map(([b, c]) => ({ b, c }));
          expect(want.length, `${JSON.stringify(q)} ${field}`).toBeGreaterThan(2);
          expect(a.engagementDecades(q, field), `${JSON.stringify(q)} ${field}`).toEqual(want);
        }
        // the chart's query reads the index alone
        const w = q.since !== undefined && !q.platforms ? 'i.published_at >= 1' : "i.platform IN ('micro_net') AND i.published_at >= 1";
        const decade = 'CASE WHEN i.saves <= 0 THEN -1 ELSE length(CAST(CAST(i.saves AS INTEGER) AS TEXT)) - 1 END';
        const sql = `EXPLAIN QUERY PLAN SELECT ${decade} AS b, count(*) AS c FROM items i WHERE ${w} AND i.saves IS NOT NULL GROUP BY b ORDER BY b`;
        const plan = (db.prepare(sql).all() as Array<{ detail: string }>).map((p) => p.detail).join(' ');
        expect(plan, JSON.stringify(q)).toContain(`COVERING INDEX items_${via === 'platform' ? 'platform_kind_published' : 'published'}`);
      }
    } finally {
      a.close();
    }
  });
});
