import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { viewIndexOfNumberKey, viewNumberKey } from './view-keys';

describe('view number keys', () => {
  it('every one of the first ten views has its own key, and the key leads back to it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9 }), (i) => {
        const k = viewNumberKey(i);
        expect(k).toMatch(/^[0-9]$/);
        expect(viewIndexOfNumberKey(k!)).toBe(i);
      }),
    );
    const keys = Array.from({ length: 10 }, (_, i) => viewNumberKey(i));
    expect(new Set(keys).size).toBe(10);
    expect(keys).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '0']);
  });

  it('past the tenth view, or for another key, there is none', () => {
    fc.assert(
      fc.property(
        fc.integer().filter((i) => i < 0 || i > 9),
        (i) => {
          expect(viewNumberKey(i)).toBeNull();
        },
      ),
    );
    fc.assert(
      fc.property(
        fc.string().filter((s) => !/^[0-9]$/.test(s)),
        (s) => {
          expect(viewIndexOfNumberKey(s)).toBe(-1);
        },
      ),
    );
  });
});
