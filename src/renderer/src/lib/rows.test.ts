/**
 * The Library hands its table the same row array while the loaded pages are the same (a new array
 * per render rebuilt the table's row model for every loaded row: frame gaps while scrolling 10,000
 * rows, bench/ui.bench.ts), and computes the selection without scanning rows when none is selected.
 */
import { describe, expect, it } from 'vitest';
import type { LibraryListRow } from '../../../shared/contract';
import { loadedRows, selectedRefs } from './rows';

const row = (id: string): LibraryListRow =>
  ({ platform: 'photo_net', kind: 'post', id, record: {}, tags: [], note: null, firstSeenAt: 0 }) as unknown as LibraryListRow;

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
    const untouchable = new Proxy([] as LibraryListRow[], {
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
