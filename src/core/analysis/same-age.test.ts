/** Overperformance at the same age (same-age.ts): interpolation from the metric history, and the method against the older one. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openArchive } from '../archive';
import { listResponse, post } from '../archive/test-fixtures';
import { overperformance } from './compare';
import { engagementAtAge } from './same-age';

const H = 3_600_000;
const D = 24 * H;
const T0 = Date.UTC(2026, 0, 1);
const reading = (readAt: number, likes: number | null) => ({ readAt, views: null, likes, comments: null, shares: null, saves: null });

describe('engagement at an age', () => {
  it('a reading at that age as it is; between two points on the line; after the last reading nothing (generated)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 500 }), fc.integer({ min: 0, max: 1000 })), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 0, max: 3000 }),
        (pts, ageH) => {
          // readings at increasing ages with non-decreasing engagement
          let a = 0;
          let e = 0;
          const rs = pts.map(([da, de]) => reading(T0 + (a += da) * H, (e += de)));
          const got = engagementAtAge({ publishedAt: T0, readings: rs }, ageH * H);
          const ages = rs.map((r) => (r.readAt - T0) / H);
          if (ageH > ages[ages.length - 1]) {
            expect(got).toBeNull();
            return;
          }
          const hit = ages.indexOf(ageH);
          if (hit >= 0) {
            expect(got).toEqual({ value: rs[hit].likes, fromZero: false });
            return;
          }
          const k = ages.findIndex((x) => x > ageH);
          const [a0, e0] = k === 0 ? [0, 0] : [ages[k - 1], rs[k - 1].likes!];
          expect(got!.fromZero).toBe(k === 0);
          expect(got!.value).toBeCloseTo(e0 + ((rs[k].likes! - e0) * (ageH - a0)) / (ages[k] - a0), 9);
          expect(got!.value).toBeGreaterThanOrEqual(e0);
          expect(got!.value).toBeLessThanOrEqual(rs[k].likes!);
        },
      ),
    );
    // readings without any known count are not points
    expect(engagementAtAge({ publishedAt: T0, readings: [reading(T0 + 10 * H, null), reading(T0 + 20 * H, 40)] }, 10 * H)).toEqual({
      value: 20,
      fromZero: true,
    });
  });
});

describe('overperformance at the same age', () => {
  it('a young post is compared with the older posts when they were as young; the previous-N method calls it an underperformer', () => {
    // ten posts a day apart, every one gathering likes as 90 × min(1, age / 3 days); each read at 1, 2 and 5 days of age;
    // the last post read once, a day old, with 50 likes (about 1.67× what its elders had at a day old)
    const a = openArchive(':memory:');
    const curve = (age: number) => Math.round(90 * Math.min(1, age / (3 * D)));
    const pub = (k: number) => T0 + k * D;
    let n = 0;
    for (const t of [...new Set(Array.from({ length: 10 }, (_, k) => [1, 2, 5].map((x) => pub(k) + x * D)).flat())].sort((x, y) => x - y)) {
      const rows = [];
      for (let k = 0; k < 9; k++)
        if ([1, 2, 5].some((x) => pub(k) + x * D === t))
          rows.push(post({ id: `p${k}`, likes: curve(t - pub(k)), published_at: new Date(pub(k)).toISOString() }));
      if (t === pub(9) + D) rows.push(post({ id: 'p9', likes: 50, published_at: new Date(pub(9)).toISOString() }));
      if (rows.length) a.storeResponse(listResponse(`c${n++}`, 'photo_net', 'profile/posts', rows, { fetchedAt: t }), 't', null);
    }
    const q = { query: { platforms: ['photo_net'] }, minBaseline: 3, baseline: 30 };
    const prev = overperformance(a, q).rows.find((r) => r.id === 'p9')!;
    expect(prev.score).toBeCloseTo(50 / 90, 6);
    const same = overperformance(a, { ...q, method: 'same_age' }).rows.find((r) => r.id === 'p9')!;
    expect(same.ageMs).toBe(D);
    expect(same.engagementAtAge).toBe(50);
    expect(same.baselineMedian).toBe(curve(D));
    expect(same.score).toBeCloseTo(50 / 30, 6);
    expect(same.baselinePosts).toBe(9);
    expect(same.fromZero).toBe(0);
    // at a fixed age of 36 h: p9 was not seen that old (no score); an older post is compared between its readings
    const fixed = overperformance(a, { ...q, method: 'same_age', ageHours: 36, limit: 100 });
    expect(fixed.rows.find((r) => r.id === 'p9')).toBeUndefined();
    const p8 = fixed.rows.find((r) => r.id === 'p8')!;
    expect(p8.engagementAtAge).toBeCloseTo((curve(D) + curve(2 * D)) / 2, 6);
    expect(p8.score).toBeCloseTo(1, 6);
    a.close();
  });
});
