import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resumePage } from './walk-position';

describe('resumePage (the Walk bar\'s "Resume from page N")', () => {
  it('names the saved position while held pages are re-read, else the page after those done', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 500 }),
        fc.option(fc.integer({ min: 0, max: 500 }), { nil: undefined }),
        fc.boolean(),
        (pagesDone, at, asNull) => {
          const rewalkAt = at === undefined ? (asNull ? null : undefined) : Math.min(at, pagesDone);
          const n = resumePage({ pagesDone, rewalkAt });
          if (rewalkAt === null || rewalkAt === undefined) expect(n).toBe(pagesDone + 1);
          else expect(n).toBe(rewalkAt + 1);
        },
      ),
    );
    // a walk restarted after 3 pages that re-read 1 of them continues at page 2, not 4
    expect(resumePage({ pagesDone: 3, rewalkAt: 1 })).toBe(2);
  });
});
