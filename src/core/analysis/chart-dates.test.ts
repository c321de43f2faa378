/**
 * One absurd date never breaks a chart (issue 27 #18): posts dated anywhere JavaScript can hold
 * (from -271821-04-20 to +275760-09-13), mixed with ordinary ones, give every time chart and the
 * comparison an answer; items outside the chartable years are counted as set aside, never lost
 * and never drawn; every drawn bucket's query is one the Library accepts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openArchive } from '../archive';
import { post } from '../archive/test-fixtures';
import { libraryQuerySchema } from '../../shared/query';
import { labelShareOverTime, volumeBy } from './charts';
import { compare } from './compare';
import { CHART_MAX_MS, CHART_MIN_MS } from './buckets';

const MAX = 8_640_000_000_000_000;
const date = fc.oneof(
  fc.integer({ min: -MAX, max: MAX }),
  fc.constantFrom(MAX, -MAX, CHART_MAX_MS, CHART_MAX_MS - 1, CHART_MIN_MS, CHART_MIN_MS - 1, Date.UTC(9999, 11, 31, 23, 59, 59, 999)),
  fc.integer({ min: Date.UTC(2023, 0, 1), max: Date.UTC(2025, 0, 1) }),
);

describe('charts over any dates', () => {
  it('answer, draw only chartable dates and count the rest as set aside', () => {
    fc.assert(
      fc.property(
        fc.array(date, { minLength: 1, maxLength: 12 }),
        fc.constantFrom('day', 'week', 'month') as fc.Arbitrary<'day' | 'week' | 'month'>,
        (times, bucket) => {
          const a = openArchive(':memory:');
          try {
            a.ingestItems(
              times.map((t, i) => ({
                platform: i % 2 ? 'micro_net' : 'photo_net',
                kind: 'post',
                record: post({
                  id: String(i + 1),
                  published_at: new Date(t).toISOString(),
                  labels: { intent: { label: i % 3 ? 'complaining' : 'promoting' } },
                }),
              })),
              { callId: 'c', source: 'test' },
            );
            const inRange = times.filter((t) => t >= CHART_MIN_MS && t < CHART_MAX_MS).length;
            const aside = times.length - inRange;
            for (const s of [
              volumeBy(a, { query: {}, bucket, by: 'platform' }),
              volumeBy(a, { query: {}, bucket, by: 'label', family: 'intent', field: 'label' }),
              labelShareOverTime(a, { query: {}, bucket, family: 'intent', field: 'label' }),
            ]) {
              expect(s.marks.reduce((n, m) => n + m.value, 0)).toBe(inRange);
              expect(s.setAside ?? 0).toBe(aside);
              for (const m of s.marks) {
                expect(m.bucket).toMatch(/^\d{4}-\d{2}/);
                libraryQuerySchema.parse(m.query);
                expect(a.count(m.query)).toBe(m.value);
              }
            }
            const c = compare(a, {
              series: [
                { name: 'a', query: { platforms: ['photo_net'] } },
                { name: 'b', query: { platforms: ['micro_net'] } },
              ],
              bucket,
            });
            expect(c.series.reduce((n, x) => n + x.volume.reduce((k, v) => k + v.value, 0), 0)).toBe(inRange);
            expect(c.series.reduce((n, x) => n + (x.datesSetAside ?? 0), 0)).toBe(aside);
          } finally {
            a.close();
          }
        },
      ),
      { numRuns: 30, seed: 27 },
    );
  });
});
