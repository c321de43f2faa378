/**
 * The charts' rows read faster ways (chart-rows.ts) count exactly what the plain grouped SQL and
 * an independent count in JS count: items per decade of a count over its index's ranges.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openArchive, type Archive } from './index';
import { post } from './test-fixtures';
import { testDb } from './testing';
import type { EngagementField } from '../../shared/query';

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
        record: post({ id: String(k + 1), likes: l, views: l === null ? null : l * 7, saves: l, published_at: `2024-05-${String((k % 28) + 1).padStart(2, '0')}T10:00:00Z` }),
      })),
    );
    // values the extraction never writes but a column can hold: reals, negatives, huge numbers, text
    const db = testDb(a);
    const set = db.prepare('UPDATE items SET likes = ? WHERE id = ?');
    const odd: Array<number | bigint | string> = [-3, 0.5, 9.99, 10.0001, -0.25, 10n ** 18n - 1n, 10n ** 18n, 9_223_372_036_854_775_807n, 1e19, 123.5, 'n/a', '77 likes'];
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
    for (const r of testDb(a).prepare('SELECT likes AS v FROM items WHERE likes IS NOT NULL').safeIntegers(true).all() as Array<{ v: number | bigint | string }>) {
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
