/** Durations in words (issue 27 #20): generated spans read back to what they were, never as decimals. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { everyWords, scheduleWords, spanWords } from './durations';

const MS: Record<string, number> = { second: 1e3, minute: 60e3, hour: 3600e3, day: 86400e3, week: 7 * 86400e3 };
/** "1 day 12 hours" → ms */
function readBack(s: string): number {
  let ms = 0;
  for (const m of s.matchAll(/(\d+) (second|minute|hour|day|week)s?/g)) ms += Number(m[1]) * MS[m[2]];
  return ms;
}

describe('durations in words', () => {
  it('the reported case and the common ones', () => {
    expect(everyWords(0.016666666666666666)).toBe('every minute');
    expect(everyWords(1)).toBe('every hour');
    expect(everyWords(6)).toBe('every 6 hours');
    expect(everyWords(24)).toBe('every day');
    expect(everyWords(36)).toBe('every 1 day 12 hours');
    expect(everyWords(1.5)).toBe('every 1 hour 30 minutes');
    expect(everyWords(336)).toBe('every 2 weeks');
    expect(spanWords(45_000)).toBe('45 seconds');
    expect(scheduleWords({ cron: '0 8 * * *' })).toBe('on the cron schedule 0 8 * * *');
    expect(scheduleWords(null)).toBe('manual only');
  });

  it('any span reads back within its rounding, in whole numbers', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 400 * 86_400_000, noNaN: true }), (ms) => {
        const w = spanWords(ms);
        expect(w).not.toMatch(/\d\.\d|e[+-]|NaN|Infinity/);
        const back = readBack(w);
        // seconds under a minute, a minute under a day, an hour beyond
        const tol = ms < 60_000 ? 500 : ms < 86_400_000 ? 30_000 : 1_800_000;
        expect(Math.abs(back - ms)).toBeLessThanOrEqual(tol);
      }),
      { numRuns: 2000 },
    );
  });

  it('every schedule the contract accepts reads as words', () => {
    fc.assert(
      fc.property(fc.double({ min: 1 / 60, max: 744, noNaN: true }), (h) => {
        const w = everyWords(h);
        expect(w).toMatch(/^every (\d+ )?(second|minute|hour|day|week)/);
        expect(w).not.toMatch(/\d\.\d/);
      }),
    );
  });
});
