import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ENGAGEMENT_FIELDS, type ItemReading, type LibraryQuery } from '../../../../shared/query';
import { withGrowth } from './GrowthFilter';
import { historySummary, knownCounts } from './MetricHistory';

const count = fc.option(fc.nat({ max: 1e9 }), { nil: null });
const reading = fc.record({ readAt: fc.nat({ max: 4e12 }), views: count, likes: count, comments: count, shares: count, saves: count });

describe('the metric history in words', () => {
  it('names only the counts the network gives, first → last', () => {
    fc.assert(
      fc.property(fc.array(reading, { minLength: 2, maxLength: 6 }), (rs: ItemReading[]) => {
        const known = knownCounts(rs);
        for (const f of ENGAGEMENT_FIELDS) expect(known.includes(f)).toBe(rs.some((r) => r[f] !== null));
        const s = historySummary(rs);
        expect(s).toContain(`${rs.length} readings`);
        for (const f of known)
          if (rs[0][f] !== null && rs[rs.length - 1][f] !== null) expect(s).toContain(`${f} ${rs[0][f]!.toLocaleString('en-US')} → `);
        for (const f of ENGAGEMENT_FIELDS.filter((x) => !known.includes(x))) expect(s).not.toContain(`${f} `);
      }),
    );
  });
});

describe('the growth condition in the Library query', () => {
  const g = { field: 'likes' as const, from: 1000 };
  it('a growth sort never outlives its condition', () => {
    const sorted: LibraryQuery = { growth: g, sort: { field: 'growth', dir: 'desc' } };
    expect(withGrowth(sorted, undefined).sort).toBeUndefined();
    expect(withGrowth(sorted, undefined).growth).toBeUndefined();
    expect(withGrowth(sorted, { ...g, min: 3 }).sort).toEqual({ field: 'growth', dir: 'desc' });
    expect(withGrowth(sorted, g, false).sort).toBeUndefined();
  });
  it('another sort and the other filters are left as they are', () => {
    const q: LibraryQuery = { text: 'x', sort: { field: 'likes', dir: 'asc' } };
    expect(withGrowth(q, g)).toEqual({ text: 'x', sort: { field: 'likes', dir: 'asc' }, growth: g });
    expect(withGrowth(q, g, true).sort).toEqual({ field: 'growth', dir: 'desc' });
    expect(withGrowth(q, undefined)).toEqual({ text: 'x', sort: { field: 'likes', dir: 'asc' }, growth: undefined });
  });
});
