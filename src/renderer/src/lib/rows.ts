/**
 * Loaded Library rows, kept stable across renders. The Library used to flatten its keyset pages
 * with a fresh `flatMap` on every render, so every render of the view (a page starting to load, a
 * count arriving) handed the table a new array and @tanstack/react-table rebuilt its row model for
 * every loaded row (~40–60 ms at 10,000 rows: frame gaps while scrolling; measured by
 * bench/ui.bench.ts), and the selection was recomputed over all rows even with nothing selected.
 */
import type { ItemRefInput, LibraryListRow } from '../../../shared/contract';
import { rowKey } from './records';

const NO_ROWS: readonly LibraryListRow[] = Object.freeze([]);
const NO_REFS: readonly ItemRefInput[] = Object.freeze([]);
const flat = new WeakMap<object, LibraryListRow[]>();

/** The rows of every loaded page as one array: the same array for the same pages. */
export function loadedRows(data: { pages: ReadonlyArray<{ rows: LibraryListRow[] }> } | undefined): LibraryListRow[] {
  if (!data) return NO_ROWS as LibraryListRow[];
  let rows = flat.get(data);
  if (!rows) {
    rows = data.pages.flatMap((p) => p.rows);
    flat.set(data, rows);
  }
  return rows;
}

/** The loaded rows that are selected, as item references; nothing is scanned when none is selected. */
export function selectedRefs(rows: readonly LibraryListRow[], selected: ReadonlySet<string>): ItemRefInput[] {
  if (selected.size === 0) return NO_REFS as ItemRefInput[];
  return rows.filter((r) => selected.has(rowKey(r))).map((r) => ({ platform: r.platform, kind: r.kind, id: r.id }));
}
