/** Growth over a period (growth-sql.ts): the Library's filter and sort against the same rule computed from each item's history. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LibraryQuery } from '../../shared/query';
import { openArchive, type Archive } from './archive';
import type { Reading } from './readings';
import { listResponse, post } from './test-fixtures';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);
type C = number | null;

/** The rule, from an item's readings (oldest first): v(to) − (v(from) ?? the first reading). */
function growthOf(h: Reading[], field: 'likes' | 'views', from: number, to: number): number | null {
  const at = (t: number) => [...h].reverse().find((r) => r.readAt <= t);
  const end = at(to);
  if (!end) return null;
  const start = at(from) ?? h[0];
  const a = end[field];
  const b = start[field];
  return a === null || b === null ? null : a - b;
}

function fill(a: Archive, answers: Array<{ day: number; counts: Array<[C, C]> }>): void {
  answers.forEach((ans, n) =>
    a.storeResponse(
      listResponse(
        `c${n}`,
        'photo_net',
        'profile/posts',
        ans.counts
          .map(([likes, views], i) => post({ id: String(i + 1), likes, views, comments: 1 }))
          .filter((_, i) => ans.counts[i] !== undefined),
        {
          fetchedAt: T0 + ans.day * DAY,
        },
      ),
      't',
      null,
    ),
  );
}

const c = fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 5, arbitrary: fc.integer({ min: 0, max: 50 }) });
const answers = fc.array(
  fc.record({ dt: fc.integer({ min: 0, max: 3 }), counts: fc.array(fc.tuple(c, c), { minLength: 1, maxLength: 6 }) }),
  { minLength: 1, maxLength: 8 },
);

describe('growth over a period', () => {
  it('filters and sorts as the rule computed from each item history says (generated)', () => {
    fc.assert(
      fc.property(
        answers,
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 0, max: 12 }),
        fc.boolean(),
        fc.integer({ min: -5, max: 10 }),
        (steps, fromDay, len, open, min) => {
          const a = openArchive(':memory:');
          try {
            let day = 0;
            fill(
              a,
              steps.map((s) => ({ day: (day += s.dt), counts: s.counts })),
            );
            const from = T0 + fromDay * DAY;
            const to = open ? undefined : from + len * DAY;
            const ids = a.query({ limit: 100 }).rows.map((r) => r.id);
            const want = new Map(
              ids.map((id) => [
                id,
                growthOf(a.datasets.history({ platform: 'photo_net', kind: 'post', id }), 'likes', from, to ?? Infinity),
              ]),
            );
            const growth = {
              field: 'likes' as const,
              from: new Date(from).toISOString(),
              ...(to === undefined ? {} : { to: new Date(to).toISOString() }),
            };
            // the filter
            const q: LibraryQuery = { growth: { ...growth, min } };
            const got = a
              .query({ ...q, limit: 100 })
              .rows.map((r) => r.id)
              .sort();
            expect(got).toEqual(ids.filter((id) => want.get(id) !== null && want.get(id)! >= min).sort());
            expect(a.count(q)).toBe(got.length);
            // the sort, keyset pages of 2: known growth largest first (ties by archive order, newest first), unknown last
            const seen: string[] = [];
            let after: string | undefined;
            do {
              const p = a.query({ growth, sort: { field: 'growth', dir: 'desc' }, limit: 2, after });
              seen.push(...p.rows.map((r) => r.id));
              after = p.next ?? undefined;
            } while (after);
            const known = seen.filter((id) => want.get(id) !== null);
            expect(known.map((id) => want.get(id))).toEqual(known.map((id) => want.get(id)!).sort((x, y) => y - x));
            expect(seen.slice(known.length).every((id) => want.get(id) === null)).toBe(true);
            expect(seen.sort()).toEqual([...ids].sort());
          } finally {
            a.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a sort by growth without a period is a clear error; a period that ends before it starts too', () => {
    const a = openArchive(':memory:');
    expect(() => a.query({ sort: { field: 'growth', dir: 'desc' } })).toThrow(/needs a growth period/);
    expect(() => a.query({ growth: { field: 'likes', from: '2026-02-01', to: '2026-01-01' } })).toThrow(/ends before it starts/);
    a.close();
  });
});
