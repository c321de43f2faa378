/** `--growth …` flags → the library query's growth period (src/cli/query-flags.ts). */
import { describe, expect, it } from 'vitest';
import { buildLibraryQuery } from './query-flags';

describe('growth flags', () => {
  it('a count, a start (date or 7d before now), an end, bounds', () => {
    expect(
      buildLibraryQuery({ growth: 'likes', growthSince: '2026-01-01', growthUntil: '2026-01-31', growthMin: '100', sort: 'growth:desc' }),
    ).toEqual({
      growth: { field: 'likes', from: '2026-01-01', to: '2026-01-31', min: 100 },
      sort: { field: 'growth', dir: 'desc' },
    });
    const before = Date.now();
    const q = buildLibraryQuery({ growth: 'views', growthSince: '7d', growthMax: '-1' });
    expect(q.growth?.max).toBe(-1);
    expect(Number(q.growth?.from)).toBeGreaterThanOrEqual(before - 7 * 86_400_000);
    expect(Number(q.growth?.from)).toBeLessThanOrEqual(Date.now() - 7 * 86_400_000);
  });

  it('says what is missing or wrong', () => {
    expect(() => buildLibraryQuery({ growth: 'likes' })).toThrow(/--growth needs --growth-since/);
    expect(() => buildLibraryQuery({ growthSince: '7d' })).toThrow(/--growth names the count/);
    expect(() => buildLibraryQuery({ growth: 'followers', growthSince: '7d' })).toThrow(/one of views, likes/);
    expect(() => buildLibraryQuery({ growth: 'likes', growthSince: 'last week' })).toThrow(/--growth-since takes a date/);
    expect(() => buildLibraryQuery({ growth: 'likes', growthSince: '7d', growthMin: 'lots' })).toThrow(/--growth-min takes a number/);
  });
});
