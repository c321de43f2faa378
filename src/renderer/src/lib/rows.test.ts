/**
 * The Library hands its table the same row array while the loaded pages are the same (a new array
 * per render rebuilt the table's row model for every loaded row: frame gaps while scrolling 10,000
 * rows, bench/ui.bench.ts), and computes the selection without scanning rows when none is selected.
 */
import { describe, expect, it } from 'vitest';
import type { LibraryRow } from '../../../shared/contract';
import { loadedRows, rowsToDraw, selectedRefs } from './rows';

const row = (id: string): LibraryRow => ({ platform: 'photo_net', kind: 'post', id, record: {}, tags: [], note: null, firstSeenAt: 0 }) as unknown as LibraryRow;

describe('loaded Library rows', () => {
  it('are the same array for the same pages, and a new one when a page arrives', () => {
    const p1 = { rows: [row('1'), row('2')], next: 'x' };
    const data = { pages: [p1] };
    const a = loadedRows(data);
    expect(loadedRows(data)).toBe(a);
    expect(a.map((r) => r.id)).toEqual(['1', '2']);
    const more = { pages: [p1, { rows: [row('3')], next: null }] };
    const b = loadedRows(more);
    expect(b).not.toBe(a);
    expect(b.map((r) => r.id)).toEqual(['1', '2', '3']);
    expect(loadedRows(more)).toBe(b);
    expect(loadedRows(undefined)).toBe(loadedRows(undefined));
    expect(loadedRows(undefined)).toEqual([]);
  });

  it('selection: no scan of the rows when nothing is selected; refs of the selected ones otherwise', () => {
    const untouchable = new Proxy([] as LibraryRow[], {
      get() {
        throw new Error('the rows were scanned');
      },
    });
    expect(selectedRefs(untouchable, new Set())).toEqual([]);
    const rows = [row('1'), row('2'), row('3')];
    expect(selectedRefs(rows, new Set(['photo_net/post/3', 'photo_net/post/1']))).toEqual([
      { platform: 'photo_net', kind: 'post', id: '1' },
      { platform: 'photo_net', kind: 'post', id: '3' },
    ]);
  });
});

describe('rows a scrolling frame draws', () => {
  const items = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, k) => ({ index: from + k }));
  const key = (i: number) => `r${i}`;
  const drawn = (r: { drawn: Array<{ index: number }> }) => r.drawn.map((vi) => vi.index);

  it('draws every row when few enter (a small scroll, the first frame of a short list)', () => {
    expect(drawn(rowsToDraw(items(0, 9), new Set(), key, { startIndex: 0, endIndex: 5 }, 10))).toEqual(items(0, 9).map((vi) => vi.index));
    const r = rowsToDraw(items(3, 12), new Set(items(0, 11).map((vi) => key(vi.index))), key, { startIndex: 5, endIndex: 10 }, 2);
    expect(drawn(r)).toEqual(items(3, 12).map((vi) => vi.index));
    expect(r.behind).toBe(0);
  });

  it('a jump of a screen: the rows already drawn stay, the rows in view enter first, top to bottom, then the overscan nearest the view', () => {
    // range 20..39 (overscan 20..24 and 35..39), view 25..34; rows 20..22 were drawn before
    const r = rowsToDraw(items(20, 39), new Set([key(20), key(21), key(22)]), key, { startIndex: 25, endIndex: 34 }, 4);
    expect(drawn(r)).toEqual([20, 21, 22, 25, 26, 27, 28]);
    expect(r.behind).toBe(6);
    // the next frame (those are drawn now): four more in view
    const next = rowsToDraw(items(20, 39), new Set(drawn(r).map(key)), key, { startIndex: 25, endIndex: 34 }, 4);
    expect(drawn(next)).toEqual([20, 21, 22, 25, 26, 27, 28, 29, 30, 31, 32]);
    expect(next.behind).toBe(2);
    // then the last two in view, and the overscan nearest the view (24 above, 35 below)
    const third = rowsToDraw(items(20, 39), new Set(drawn(next).map(key)), key, { startIndex: 25, endIndex: 34 }, 4);
    expect(drawn(third)).toEqual([20, 21, 22, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35]);
    expect(third.behind).toBe(0);
  });
});
