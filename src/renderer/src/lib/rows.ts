/**
 * Loaded Library rows, kept stable across renders. The Library used to flatten its keyset pages
 * with a fresh `flatMap` on every render, so every render of the view (a page starting to load, a
 * count arriving) handed the table a new array and @tanstack/react-table rebuilt its row model for
 * every loaded row (~40–60 ms at 10,000 rows: frame gaps while scrolling; measured by
 * bench/ui.bench.ts), and the selection was recomputed over all rows even with nothing selected.
 */
import type { ItemRefInput, LibraryRow } from '../../../shared/contract';
import { rowKey } from './records';

const NO_ROWS: readonly LibraryRow[] = Object.freeze([]);
const NO_REFS: readonly ItemRefInput[] = Object.freeze([]);
const flat = new WeakMap<object, LibraryRow[]>();

/** The rows of every loaded page as one array: the same array for the same pages. */
export function loadedRows(data: { pages: ReadonlyArray<{ rows: LibraryRow[] }> } | undefined): LibraryRow[] {
  if (!data) return NO_ROWS as LibraryRow[];
  let rows = flat.get(data);
  if (!rows) {
    rows = data.pages.flatMap((p) => p.rows);
    flat.set(data, rows);
  }
  return rows;
}

/** The loaded rows that are selected, as item references; nothing is scanned when none is selected. */
export function selectedRefs(rows: readonly LibraryRow[], selected: ReadonlySet<string>): ItemRefInput[] {
  if (selected.size === 0) return NO_REFS as ItemRefInput[];
  return rows.filter((r) => selected.has(rowKey(r))).map((r) => ({ platform: r.platform, kind: r.kind, id: r.id }));
}

/**
 * The rows a scrolling table draws in this frame: every row it drew before that is still in range,
 * and at most `budget` rows that enter — the ones in view first (top to bottom), then the overscan
 * nearest the view. The rest follow in the next frames. A wheel step of a screen or more brings
 * every row in view in at once, and building them all in one frame (React, style, layout, paint of
 * ~30 rows of a dozen cells) is what made the frames over 50 ms on a shared 2-core machine
 * (bench/ui.bench.ts); with the budget each frame builds a handful. `behind` is how many rows in
 * view are not drawn yet.
 */
export function rowsToDraw<T extends { index: number }>(
  items: readonly T[],
  drawnBefore: ReadonlySet<string>,
  keyOf: (index: number) => string,
  view: { startIndex: number; endIndex: number } | null,
  budget: number,
): { drawn: T[]; behind: number } {
  const lo = view?.startIndex ?? 0;
  const hi = view?.endIndex ?? Number.MAX_SAFE_INTEGER;
  const away = (i: number): number => (i < lo ? lo - i : i > hi ? i - hi : 0);
  const entering = items.filter((vi) => !drawnBefore.has(keyOf(vi.index)));
  if (entering.length <= budget) return { drawn: items as T[], behind: 0 };
  // a stable sort: rows in view keep their top-to-bottom order
  const now = new Set(entering.sort((a, b) => away(a.index) - away(b.index)).slice(0, budget).map((vi) => vi.index));
  const drawn = items.filter((vi) => now.has(vi.index) || drawnBefore.has(keyOf(vi.index)));
  let behind = 0;
  for (const vi of items) if (vi.index >= lo && vi.index <= hi && !now.has(vi.index) && !drawnBefore.has(keyOf(vi.index))) behind++;
  return { drawn, behind };
}
