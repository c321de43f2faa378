import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { listAt, present, valueAt } from './maps';

describe('map lookups that say what they know', () => {
  it('listAt groups as the m.get(k) ?? m.set(k, []).get(k)! idiom did', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.string())), (pairs) => {
        const a = new Map<number, string[]>();
        const b = new Map<number, string[]>();
        for (const [k, v] of pairs) {
          listAt(a, k).push(v);
          const l = b.get(k) ?? [];
          if (!b.has(k)) b.set(k, l);
          l.push(v);
        }
        expect([...a]).toEqual([...b]);
      }),
    );
  });
  it('valueAt makes a value once; present returns what is there (undefined values too) and names what is missing', () => {
    const m = new Map<string, number | undefined>();
    let made = 0;
    expect(valueAt(m, 'a', () => ++made)).toBe(1);
    expect(valueAt(m, 'a', () => ++made)).toBe(1);
    expect(present(m, 'a')).toBe(1);
    m.set('u', undefined);
    expect(present(m, 'u')).toBeUndefined();
    expect(() => present(m, 'b', 'column')).toThrow('Internal error: no column for "b".');
  });
});
