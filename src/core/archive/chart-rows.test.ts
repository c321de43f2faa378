/**
 * The charts' rows read faster ways (chart-rows.ts) count exactly what the plain grouped SQL and
 * an independent count in JS count: items per decade of a count over its index's ranges.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openArchive, type Archive } from './index';
import { post } from './test-fixtures';
import { testDb } from './testing';
import type { EngagementField, LibraryQuery } from '../../shared/query';
import { probedGroups } from './aggregates';
import { ctxOf } from './context';
import { buildWhere, parseQuery } from './sql-query';

/** The decade the chart puts a count in, computed in JS: -1 for 0 or less, else the digits of its integer part - 1 (at most 18). */
function decadeOf(v: number | bigint): number {
  if (v <= 0) return -1;
  const int = typeof v === 'bigint' ? v : v >= 2 ** 63 ? 2n ** 63n - 1n : BigInt(Math.trunc(v));
  return Math.min(18, String(int).length - 1);
}

describe('engagementDecades', () => {
  let a: Archive;
  beforeEach(() => {
    a = openArchive(':memory:');
    const likes = [null, 0, 1, 5, 9, 10, 11, 99, 100, 101, 999, 1000, 12_345, 99_999, 100_000, 7_654_321, null, 3, 42];
    a.ingestItems(
      likes.map((l, k) => ({
        platform: k % 3 === 0 ? 'micro_net' : 'photo_net',
        kind: 'post',
        record: post({
          id: String(k + 1),
          likes: l,
          views: l === null ? null : l * 7,
          saves: l,
          published_at: `2024-05-${String((k % 28) + 1).padStart(2, '0')}T10:00:00Z`,
        }),
      })),
    );
    // values the extraction never writes but a column can hold: reals, negatives, huge numbers, text
    const db = testDb(a);
    const set = db.prepare('UPDATE items SET likes = ? WHERE id = ?');
    const odd: Array<number | bigint | string> = [
      -3,
      0.5,
      9.99,
      10.0001,
      -0.25,
      10n ** 18n - 1n,
      10n ** 18n,
      9_223_372_036_854_775_807n,
      1e19,
      123.5,
      'n/a',
      '77 likes',
    ];
    a.ingestItems(odd.map((_, k) => ({ platform: 'photo_net', kind: 'post', record: post({ id: String(100 + k), likes: 1 }) })));
    odd.forEach((v, k) => set.run(v, String(100 + k)));
  });
  afterEach(() => a.close());

  const reference = (field: EngagementField, where = '1'): Array<{ b: number; c: number }> =>
    testDb(a)
      .prepare(
        `SELECT CASE WHEN ${field} <= 0 THEN -1 ELSE length(CAST(CAST(${field} AS INTEGER) AS TEXT)) - 1 END AS b, count(*) AS c
         FROM items WHERE ${field} IS NOT NULL AND ${where} GROUP BY b ORDER BY b`,
      )
      .all() as Array<{ b: number; c: number }>;

  it('per decade over the index equals the grouped expression and a count in JS', () => {
    const got = a.engagementDecades({}, 'likes');
    expect(got).toEqual(reference('likes'));
    // the numbers, counted in JS (the two text values: their leading integer, '77 likes' → 1, 'n/a' → 0)
    const js = new Map<number, number>();
    for (const r of testDb(a).prepare('SELECT likes AS v FROM items WHERE likes IS NOT NULL').safeIntegers(true).all() as Array<{
      v: number | bigint | string;
    }>) {
      const b = typeof r.v === 'string' ? (r.v === '77 likes' ? 1 : 0) : decadeOf(r.v);
      js.set(b, (js.get(b) ?? 0) + 1);
    }
    expect(got).toEqual([...js].sort((x, y) => x[0] - y[0]).map(([b, c]) => ({ b, c })));
    expect(got.find((r) => r.b === 17)?.c).toBe(1);
    expect(got.find((r) => r.b === 18)?.c).toBe(3);
    expect(got.find((r) => r.b === -1)?.c).toBe(3);
  });

  it('every count, with and without filters, equals the grouped expression', () => {
    for (const field of ['views', 'likes', 'comments', 'shares', 'saves'] as const) {
      expect(a.engagementDecades({}, field), field).toEqual(reference(field));
      expect(a.engagementDecades({ platforms: ['micro_net'] }, field), field).toEqual(reference(field, "platform = 'micro_net'"));
    }
  });
});

describe('dayRows by label over a selective query', () => {
  let a: Archive;
  const DAY = 86_400_000;
  beforeEach(() => {
    a = openArchive(':memory:');
    let s = 7;
    const r = (): number => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const words = ['kalo', 'mera', 'kalo mera', 'other text'];
    const labelsOf = (k: number): Record<string, Record<string, unknown>> | null =>
      k % 11 === 0
        ? null
        : {
            intent: { label: ['complaining', 'promoting', 'other', null, 3, 2.5][Math.floor(r() * 6)], urgency: Math.floor(r() * 3) },
            // more distinct values than the per-item probes take: the label rows drive
            sponsored: { p: r() < 0.1 ? null : Math.round(r() * 1000) / 1000 },
          };
    a.ingestItems(
      Array.from({ length: 400 }, (_, k) => ({
        platform: k % 3 === 0 ? 'micro_net' : 'photo_net',
        kind: 'post',
        record: post({
          id: String(k + 1),
          text: `${words[k % 4]} ${k}`,
          author: { id: `a${k % 9}`, username: `user${k % 9}`, display_name: null },
          labels: labelsOf(k),
          published_at: k % 17 === 0 ? null : new Date(Date.UTC(2024, 0, 1) + Math.floor(r() * 40 * DAY) - 3 * DAY).toISOString(),
        }),
      })),
    );
  });
  afterEach(() => a.close());

  /** The plain SQL: every label row of the field joined to its item, the query's items by rid. */
  const reference = (family: string, field: string, rids: string): Array<{ d: number; k: unknown; c: number }> =>
    testDb(a)
      .prepare(
        `SELECT CAST(floor(i.published_at / 86400000.0) AS INTEGER) AS d,
           iif(typeof(l.value) = 'real' AND l.value BETWEEN 0 AND 1, CAST(l.value * 100 AS INTEGER) / 100.0, l.value) AS k, count(*) AS c
         FROM item_labels l JOIN items i ON i.rid = l.item_rid JOIN label_fields f ON f.ff = l.ff
         WHERE f.family = ? AND f.field = ? AND l.value < x'' AND i.published_at IS NOT NULL AND i.rid IN (${rids})
         GROUP BY d, k ORDER BY d, k`,
      )
      .all(family, field) as Array<{ d: number; k: unknown; c: number }>;
  const sorted = (rows: Array<{ d: number; k: unknown; c: number }>): Array<{ d: number; k: unknown; c: number }> =>
    [...rows].sort((x, y) => x.d - y.d || (String(typeof x.k) + String(x.k) < String(typeof y.k) + String(y.k) ? -1 : 1));

  it('starting from the query items counts what the label rows count', () => {
    const cases: Array<[Parameters<Archive['dayRows']>[0], string]> = [
      [{ text: 'kalo' }, "SELECT rowid FROM items_fts WHERE items_fts MATCH 'kalo'"],
      [
        { text: 'kalo', platforms: ['micro_net'] },
        "SELECT rowid FROM items_fts WHERE items_fts MATCH 'kalo' INTERSECT SELECT rid FROM items WHERE platform = 'micro_net'",
      ],
      [{ author: 'user4' }, "SELECT rid FROM items WHERE author_id = 'user4' OR author_username = 'user4'"],
      [{ text: 'nothing-matches' }, 'SELECT NULL WHERE 0'],
      [
        { labels: [{ family: 'intent', field: 'urgency', op: 'eq', value: 1 }] },
        "SELECT item_rid FROM item_labels JOIN label_fields USING (ff) WHERE family = 'intent' AND field = 'urgency' AND value = 1",
      ],
    ];
    for (const [q, rids] of cases) {
      for (const [family, field] of [
        ['intent', 'label'],
        ['intent', 'urgency'],
        ['sponsored', 'p'],
        ['intent', 'no-such-field'],
      ]) {
        const want = reference(family, field, rids);
        expect(sorted(a.dayRows(q, 'label', family, field)), `${JSON.stringify(q)} ${family}.${field}`).toEqual(sorted(want));
        if (family === 'intent' && field === 'label' && rids !== 'SELECT NULL WHERE 0') expect(want.length).toBeGreaterThan(3);
      }
    }
    // counted in JS from the items' own labels: the string-valued field over the search
    const js = new Map<string, number>();
    for (const row of testDb(a)
      .prepare(
        "SELECT i.published_at AS t, i.labels AS l FROM items i WHERE i.rid IN (SELECT rowid FROM items_fts WHERE items_fts MATCH 'kalo')",
      )
      .all() as Array<{ t: number | null; l: string | null }>) {
      const v = row.l === null ? undefined : (JSON.parse(row.l) as { intent?: { label?: unknown } }).intent?.label;
      if (row.t === null || v === undefined || v === null) continue;
      const key = `${Math.floor(row.t / DAY)} ${String(v)}`;
      js.set(key, (js.get(key) ?? 0) + 1);
    }
    const got = new Map(a.dayRows({ text: 'kalo' }, 'label', 'intent', 'label').map((x) => [`${x.d} ${String(x.k)}`, x.c]));
    expect(got).toEqual(js);
  });

  it("a label distribution's value groups from the query items equal the field's key range tested against them", () => {
    const ctx = ctxOf(a);
    const key = (r: unknown): string => `${(r as { t: string }).t}:${String((r as { v: unknown }).v)}`;
    const cases: Array<[LibraryQuery, string]> = [
      [{ text: 'kalo' }, "SELECT rowid FROM items_fts WHERE items_fts MATCH 'kalo'"],
      [
        { text: 'mera', platforms: ['photo_net'] },
        "SELECT rowid FROM items_fts WHERE items_fts MATCH 'mera' INTERSECT SELECT rid FROM items WHERE platform = 'photo_net'",
      ],
      [{ author: 'user2' }, "SELECT rid FROM items WHERE author_id = 'user2' OR author_username = 'user2'"],
    ];
    for (const [q, rids] of cases) {
      for (const [family, field] of [
        ['intent', 'label'],
        ['intent', 'urgency'],
      ]) {
        const want = testDb(a)
          .prepare(
            `SELECT l.value AS v, typeof(l.value) AS t, count(*) AS c FROM item_labels l JOIN label_fields f ON f.ff = l.ff
             WHERE f.family = ? AND f.field = ? AND l.item_rid IN (${rids}) GROUP BY l.value ORDER BY l.value`,
          )
          .all(family, field);
        const got = probedGroups(ctx, buildWhere(parseQuery(q)), family, field);
        expect(got, `${JSON.stringify(q)} ${family}.${field}`).not.toBeNull();
        const byValue = (rows: unknown[]): unknown[] => [...rows].sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0));
        expect(byValue(got!)).toEqual(byValue(want));
        // the blob (null label) group is counted too
        if (field === 'label') expect(got!.some((g) => g.t === 'blob')).toBe(true);
      }
    }
    // the distribution itself: the null bucket counts the items of the search whose label is null
    const nulls = (
      testDb(a)
        .prepare("SELECT i.labels AS l FROM items i WHERE i.rid IN (SELECT rowid FROM items_fts WHERE items_fts MATCH 'kalo')")
        .all() as Array<{ l: string | null }>
    ).filter((r) => r.l !== null && (JSON.parse(r.l) as { intent: { label: unknown } }).intent.label === null).length;
    expect(a.labelDistribution({ text: 'kalo' }, 'intent', 'label').find((b) => b.bucket === 'null')?.value).toBe(nulls);
  });
});
