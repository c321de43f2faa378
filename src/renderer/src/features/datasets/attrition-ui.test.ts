import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { AttritionRow } from '../../../../shared/contract-datasets';
import { attritionCsv, attritionWords, byMonth } from './AttritionPanel';

const row = fc.record({
  platform: fc.constantFrom('photo_net', 'micro_net', 'video_net'),
  month: fc.option(fc.constantFrom('2026-01', '2026-02', '2025-12'), { nil: null }),
  available: fc.nat({ max: 1000 }),
  unavailable: fc.nat({ max: 1000 }),
  notRechecked: fc.nat({ max: 1000 }),
});

describe('the attrition panel', () => {
  it('sums by month without losing an item, months in order, no date last', () => {
    fc.assert(
      fc.property(
        fc.array(row, { maxLength: 20 }),
        fc.option(fc.constantFrom('photo_net', 'micro_net'), { nil: null }),
        (rows: AttritionRow[], p) => {
          const mine = rows.filter((r) => p === null || r.platform === p);
          const m = byMonth(rows, p);
          for (const k of ['available', 'unavailable', 'notRechecked'] as const)
            expect(m.reduce((s, x) => s + x[k], 0)).toBe(mine.reduce((s, x) => s + x[k], 0));
          const months = m.map((x) => x.month);
          expect(new Set(months).size).toBe(months.length);
          const dated = months.filter((x) => x !== 'no date');
          expect(dated).toEqual([...dated].sort());
          if (months.includes('no date')) expect(months[months.length - 1]).toBe('no date');
        },
      ),
    );
  });
  it("exports the command line's CSV and says the shares in words", () => {
    const rows: AttritionRow[] = [
      { platform: 'photo_net', month: '2026-01', available: 21, unavailable: 2, notRechecked: 0 },
      { platform: 'photo_net', month: null, available: 0, unavailable: 0, notRechecked: 1 },
    ];
    expect(attritionCsv(rows)).toBe(
      '\uFEFF"platform","month","available","unavailable","not_rechecked"\r\n"photo_net","2026-01","21","2","0"\r\n"photo_net",,"0","0","1"\r\n',
    );
    expect(attritionWords(rows)).toBe('24 items: 21 available (87.5 %), 2 unavailable (8.3 %), 1 not re-checked (4.2 %).');
  });
});
