/**
 * The virtualised results table: sortable, resizable and hideable columns; j/k cursor; Enter opens
 * the drawer (global keys in App); keyset "load more" at the end. Text cells render as text only.
 *
 * Only the rows in view are built. The table keeps no row model over the loaded rows (it used
 * @tanstack/react-table's, rebuilt over every loaded row whenever a page arrived: scroll jank at
 * 10,000 rows, bench/ui.bench.ts); a row is a memoised component whose cells are functions of the
 * row and its own context (table-columns.tsx), so an arriving page renders the new rows that come
 * into view and nothing else, and scrolling renders only the rows that enter.
 */
import { memo, useCallback, useEffect, useMemo, useRef, useState, type MouseEvent as ReactMouseEvent, type RefObject } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { LibraryListRow } from '../../../shared/contract';
import { rowKey } from '../lib/records';
import { useUi } from '../stores/ui';
import {
  gridCell,
  hiddenAtFirst,
  shownColumns,
  sortRows,
  tableColumns,
  type CellCtx,
  type Column,
  type TableVariant,
  unclippedRule,
  pageGlyphsWithinBounds,
} from './table-columns';

export type { TableVariant } from './table-columns';

/** server sort field for a column id (Library view sorts on the server: keyset pages) */
export const SERVER_SORT: Record<string, string> = {
  published: 'published_at',
  views: 'views',
  likes: 'likes',
  comments: 'comments',
  shares: 'shares',
  relevance: 'relevance',
  author: 'author',
  firstSeen: 'first_seen_at',
};

interface Props {
  rows: LibraryListRow[];
  variant: TableVariant;
  hasMore?: boolean;
  fetchingMore?: boolean;
  onLoadMore?: () => void;
  /** server-side sorting (Library); absent → sorts what is loaded */
  serverSort?: { field: string; dir: 'asc' | 'desc' } | null;
  onServerSort?: (s: { field: string; dir: 'asc' | 'desc' } | null) => void;
  selected?: Set<string>;
  onSelectedChange?: (s: Set<string>) => void;
  /** comment threads: replies indented under their parent, collapsible */
  threaded?: boolean;
  unavailable?: string[];
}

type Sort = { id: string; desc: boolean } | null;

/** Comment threads: parent first, its replies after it (indented), children hidden when collapsed. */
export function thread(rows: readonly LibraryListRow[], collapsed: ReadonlySet<string>) {
  const depth = new Map<string, number>();
  const childCount = new Map<string, number>();
  const byId = new Set(rows.map((r) => r.id));
  const kids = new Map<string, LibraryListRow[]>();
  const roots: LibraryListRow[] = [];
  for (const r of rows) {
    const pid = r.parentId;
    if (pid && byId.has(pid) && pid !== r.id) {
      const k = kids.get(pid);
      if (k) k.push(r);
      else kids.set(pid, [r]);
      childCount.set(pid, (childCount.get(pid) ?? 0) + 1);
    } else roots.push(r);
  }
  const out: LibraryListRow[] = [];
  const seen = new Set<string>();
  const walk = (r: LibraryListRow, d: number) => {
    if (seen.has(r.id)) return;
    seen.add(r.id);
    depth.set(r.id, d);
    out.push(r);
    if (!collapsed.has(r.id)) for (const k of kids.get(r.id) ?? []) walk(k, d + 1);
  };
  for (const r of roots) walk(r, 0);
  return { ordered: out, depth, childCount };
}

interface RowProps {
  row: LibraryListRow;
  index: number;
  cols: readonly Column[];
  cursor: boolean;
  ctx: CellCtx;
  onOpen(index: number, row: LibraryListRow): void;
}

/** A focused row (back from the drawer) hands focus on to the cursor's row as j / k move it. */
function useFocusFollowsCursor(grid: RefObject<HTMLDivElement | null>): void {
  useEffect(() => {
    const a = document.activeElement;
    if (!(a instanceof HTMLElement) || a.dataset.testid !== 'result-row' || !grid.current?.contains(a) || a.classList.contains('cursor'))
      return;
    grid.current.querySelector<HTMLElement>('[data-testid="result-row"].cursor')?.focus({ preventScroll: true });
  });
}

/**
 * One drawn row; renders again only when its row, index, columns, cursor or context change. Its
 * width and its cells' widths are the table's stylesheet's (`TableWidths`), not styles of its own.
 * It has no place of its own either: the drawn rows lie in flow under their rowgroup's top padding
 * (the offset of the first), not each moved by a transform written on it, so the rows that enter on
 * a scroll step carry no style of their own and cost less to style, pre-paint and paint (issue 30).
 */
const Row = memo(function Row({ row, index, cols, cursor, ctx, onOpen }: RowProps) {
  return (
    <div
      className={`tr ${cursor ? 'cursor' : ''} ${ctx.selected ? 'selected' : ''}`}
      role="row"
      aria-rowindex={index + 2}
      data-testid="result-row"
      data-id={row.id}
      tabIndex={-1}
      onClick={() => onOpen(index, row)}
    >
      {cols.map((c) => gridCell(c, row, ctx))}
    </div>
  );
});

let tables = 0;

/**
 * The widths of a table's columns and rows as one stylesheet scoped to the table (`.rt<n>`): a
 * cell carries a class (`c-<id>`), not a style of its own, so the rows that enter on a scroll step
 * are built and styled without a style per cell (issue 30). The same sheet lifts the clip of the
 * cells whose content surely fits their column's width (`unclippedRule`): recomputed as a column is
 * resized, so a narrowed column clips again.
 */
function TableWidths({ scope, cols, width, total }: { scope: string; cols: readonly Column[]; width(c: Column): number; total: number }) {
  const glyphsFit = pageGlyphsWithinBounds();
  const css =
    cols.map((c) => `.${scope} .c-${c.id}{width:${width(c)}px}${unclippedRule(scope, c, width(c), glyphsFit)}`).join('') +
    `.${scope} .tr{width:${total}px}`;
  return <style>{css}</style>;
}

export function ResultsTable({
  rows,
  variant,
  hasMore,
  fetchingMore,
  onLoadMore,
  serverSort,
  onServerSort,
  selected,
  onSelectedChange,
  threaded,
  unavailable,
}: Props) {
  const [localSort, setLocalSort] = useState<Sort>(null);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(() => new Set());
  const [visibility, setVisibility] = useState<Record<string, boolean>>(() => hiddenAtFirst(variant));
  const [widths, setWidths] = useState<Record<string, number>>({});
  const [menu, setMenu] = useState(false);
  const [scope] = useState(() => `rt${++tables}`);
  const openDrawer = useUi((s) => s.openDrawer);
  const cursor = useUi((s) => s.cursor);
  const setCursor = useUi((s) => s.setCursor);
  const setTableRows = useUi((s) => s.setTableRows);

  const selectable = !!selected && !!onSelectedChange;
  const columns = useMemo(() => tableColumns(variant, selectable), [variant, selectable]);
  const manual = !!onServerSort;
  const sort: Sort = manual
    ? serverSort
      ? {
          id: Object.keys(SERVER_SORT).find((k) => SERVER_SORT[k] === serverSort.field) ?? serverSort.field,
          desc: serverSort.dir === 'desc',
        }
      : null
    : localSort;

  // the order rows are drawn in: as loaded (the server sorted them), sorted here, or threaded
  const threads = useMemo(() => (threaded ? thread(rows, collapsed) : null), [rows, threaded, collapsed]);
  const localColumn = !manual && localSort ? columns.find((c) => c.id === localSort.id) : undefined;
  const ordered = useMemo(
    () => (threads ? threads.ordered : localColumn ? sortRows(rows, localColumn, !!localSort?.desc) : rows),
    [threads, rows, localColumn, localSort?.desc],
  );

  const hasProfiles = useMemo(
    () => visibility.followers === undefined && ordered.some((r) => r.kind === 'profile'),
    [ordered, visibility.followers],
  );
  const visible = useMemo(() => shownColumns(columns, visibility, hasProfiles, sort?.id), [columns, visibility, hasProfiles, sort?.id]);
  const width = (c: Column) => widths[c.id] ?? c.size;
  const totalWidth = visible.reduce((a, c) => a + width(c), 0);

  // cells read selection and threading through a per-row context, made again only when that row's
  // inputs change (so a memoised row stays as it is); callbacks go through a ref and never change
  const live = useRef({ selected, onSelectedChange });
  live.current = { selected, onSelectedChange };
  const onSelect = useCallback((row: LibraryListRow, on: boolean) => {
    const s = new Set(live.current.selected);
    if (on) s.add(rowKey(row));
    else s.delete(rowKey(row));
    live.current.onSelectedChange?.(s);
  }, []);
  const onToggleReplies = useCallback((id: string) => {
    setCollapsed((cur) => {
      const s = new Set(cur);
      if (s.has(id)) s.delete(id);
      else s.add(id);
      return s;
    });
  }, []);
  const onOpen = useCallback(
    (index: number, row: LibraryListRow) => {
      setCursor(index);
      openDrawer({ platform: row.platform, kind: row.kind, id: row.id });
    },
    [setCursor, openDrawer],
  );
  const ctxCache = useRef(new Map<string, CellCtx>());
  const ctxOf = (row: LibraryListRow, key: string): CellCtx => {
    const depth = threads?.depth.get(row.id) ?? 0;
    const kids = threads?.childCount.get(row.id) ?? 0;
    const isCollapsed = collapsed.has(row.id);
    const isSelected = !!selected?.has(key);
    const prev = ctxCache.current.get(key);
    if (
      prev &&
      prev.depth === depth &&
      prev.kids === kids &&
      prev.collapsed === isCollapsed &&
      prev.selected === isSelected &&
      prev.threaded === !!threaded &&
      prev.unavailable === unavailable
    )
      return prev;
    const next: CellCtx = {
      depth,
      kids,
      collapsed: isCollapsed,
      selected: isSelected,
      threaded: !!threaded,
      unavailable,
      onSelect,
      onToggleReplies,
    };
    ctxCache.current.set(key, next);
    return next;
  };
  // the cache holds the contexts of drawn rows only: cleared when it grows past a few screens
  if (ctxCache.current.size > 2000) ctxCache.current.clear();

  const parentRef = useRef<HTMLDivElement>(null);
  // useFlushSync off: a scroll event schedules the render instead of forcing it inside the event
  // (React renders once for the frame's scroll events, before the frame paints)
  const virt = useVirtualizer({
    count: ordered.length,
    getScrollElement: () => parentRef.current,
    estimateSize: () => 30,
    overscan: 12,
    useFlushSync: false,
  });

  // register for keyboard navigation (j/k/Enter live in App)
  const refs = useMemo(() => ordered.map((r) => ({ platform: r.platform, kind: r.kind, id: r.id })), [ordered]);
  useEffect(() => setTableRows(refs), [refs, setTableRows]);
  useEffect(() => () => setTableRows([]), [setTableRows]);
  useEffect(() => {
    if (ordered.length) virt.scrollToIndex(Math.min(cursor, ordered.length - 1), { align: 'auto' });
  }, [cursor]);
  useFocusFollowsCursor(parentRef);

  const items = virt.getVirtualItems();
  const last = items[items.length - 1];
  useEffect(() => {
    if (last && hasMore && !fetchingMore && onLoadMore && last.index >= ordered.length - 15) onLoadMore();
  }, [last, hasMore, fetchingMore, onLoadMore, ordered.length]);

  const toggleSort = (c: Column) => {
    // desc first, then asc, then no sort (as the column headers always did)
    const next: Sort = sort?.id !== c.id ? { id: c.id, desc: true } : sort.desc ? { id: c.id, desc: false } : null;
    if (manual) onServerSort?.(next && SERVER_SORT[next.id] ? { field: SERVER_SORT[next.id], dir: next.desc ? 'desc' : 'asc' } : null);
    else setLocalSort(next);
  };
  const startResize = (c: Column, e: ReactMouseEvent) => {
    e.preventDefault();
    const x0 = e.clientX;
    const w0 = width(c);
    const move = (ev: MouseEvent) => setWidths((w) => ({ ...w, [c.id]: Math.max(40, Math.round(w0 + ev.clientX - x0)) }));
    const up = () => {
      window.removeEventListener('mousemove', move);
      window.removeEventListener('mouseup', up);
    };
    window.addEventListener('mousemove', move);
    window.addEventListener('mouseup', up);
  };
  const allSelected = selectable && ordered.length > 0 && ordered.every((r) => selected?.has(rowKey(r)) === true);

  return (
    <div className={`table-wrap ${scope}`}>
      <TableWidths scope={scope} cols={visible} width={width} total={totalWidth} />
      <div className="table-tools">
        <span className="muted" data-testid="row-count">
          {ordered.length.toLocaleString('en-US')} row{ordered.length === 1 ? '' : 's'} loaded{hasMore ? ' · more available' : ''}
        </span>
        <div className="spacer" />
        <div className="menu-anchor">
          <button className="btn small ghost" onClick={() => setMenu(!menu)} aria-expanded={menu} data-testid="columns-menu">
            Columns ▾
          </button>
          {menu ? (
            <div className="popover" onMouseLeave={() => setMenu(false)}>
              {columns
                .filter((c) => c.hideable)
                .map((c) => (
                  <label key={c.id} className="check">
                    <input
                      type="checkbox"
                      checked={visible.includes(c)}
                      onChange={(e) => setVisibility((v) => ({ ...v, [c.id]: e.target.checked }))}
                    />{' '}
                    {c.header}
                  </label>
                ))}
            </div>
          ) : null}
        </div>
      </div>
      {/* the grid is keyboard-reachable (tabIndex: it scrolls) and holds only rows (load-more sits below it) */}
      <div
        className={`table-scroll ${virt.isScrolling ? 'scrolling' : ''}`}
        ref={parentRef}
        data-testid="results-table"
        role="grid"
        aria-rowcount={ordered.length + 1}
        aria-label="Results"
        tabIndex={0}
      >
        <div className="thead" style={{ width: totalWidth }} role="row" aria-rowindex={1}>
          {visible.map((c) => {
            const sorted = sort?.id === c.id ? (sort.desc ? 'desc' : 'asc') : false;
            const sortable = c.sortable && (!manual || !!SERVER_SORT[c.id]);
            return (
              <div
                key={c.id}
                className={`th c-${c.id} ${c.num ? 'right' : ''} ${sortable ? 'sortable' : ''}`}
                role="columnheader"
                aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : 'none'}
                onClick={sortable ? () => toggleSort(c) : undefined}
                title={sortable ? 'Sort' : undefined}
              >
                {c.id === 'select' ? (
                  <input
                    type="checkbox"
                    aria-label="Select all loaded rows"
                    checked={allSelected}
                    onChange={(e) => onSelectedChange?.(e.target.checked ? new Set(ordered.map(rowKey)) : new Set())}
                  />
                ) : (
                  c.header
                )}
                {sorted === 'asc' ? ' ▲' : sorted === 'desc' ? ' ▼' : ''}
                {c.resizable ? (
                  <div className="resizer" onMouseDown={(e) => startResize(c, e)} onClick={(e) => e.stopPropagation()} />
                ) : null}
              </div>
            );
          })}
        </div>
        {/* rows are a fixed 30 px (no measuring), so the drawn ones are contiguous: they lie in flow below the first one's offset */}
        <div style={{ height: virt.getTotalSize(), width: totalWidth, paddingTop: items[0]?.start ?? 0 }} role="rowgroup">
          {items.map((vi) => {
            const row = ordered[vi.index];
            const key = rowKey(row);
            return (
              <Row key={key} row={row} index={vi.index} cols={visible} cursor={vi.index === cursor} ctx={ctxOf(row, key)} onOpen={onOpen} />
            );
          })}
        </div>
      </div>
      {hasMore && onLoadMore ? (
        <div className="load-more">
          <button className="btn small" onClick={onLoadMore} disabled={fetchingMore} data-testid="load-more">
            {fetchingMore ? 'Loading…' : 'Load more'}
          </button>
        </div>
      ) : null}
    </div>
  );
}
