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
import {
  memo,
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
  type KeyboardEvent as ReactKeyboardEvent,
  type MouseEvent as ReactMouseEvent,
  type RefObject,
} from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { LibraryListRow } from '../../../shared/contract';
import { rowKey } from '../lib/records';
import { useUi } from '../stores/ui';
import { SERVER_SORT, TableHead, TableTools, TableWidths } from './table-parts';
import {
  gridCell,
  hiddenAtFirst,
  shownColumns,
  sortRows,
  tableColumns,
  type CellCtx,
  type Column,
  type TableVariant,
  toggleKey,
} from './table-columns';

export type { TableVariant } from './table-columns';
export { SERVER_SORT } from './table-parts';

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
const Row = memo(function Row({ row, index, cols, cursor, ctx }: RowProps) {
  return (
    <div
      className={`tr ${cursor ? 'cursor' : ''} ${ctx.selected ? 'selected' : ''}`}
      role="row"
      aria-rowindex={index + ROW_INDEX_BASE}
      data-testid="result-row"
      data-id={row.id}
      tabIndex={-1}
    >
      {cols.map((c) => gridCell(c, row, ctx))}
    </div>
  );
});

let tables = 0;

/** A drawn row's `aria-rowindex` is its index in the rows plus this (the header is row 1). */
const ROW_INDEX_BASE = 2;

/** Whether an event's target is the row's checkbox (the select column's `role="checkbox"`). */
function isRowCheck(target: EventTarget, row: HTMLElement): boolean {
  const box = target instanceof Element ? target.closest('[role="checkbox"]') : null;
  return !!box && row.contains(box);
}

/** The drawn row an event happened in, and its index in the rows; null outside a row. */
function rowOfEvent(target: EventTarget, body: HTMLElement): { el: HTMLElement; index: number } | null {
  const el = target instanceof Element ? target.closest<HTMLElement>('[data-testid="result-row"]') : null;
  if (!el || !body.contains(el)) return null;
  const index = Number(el.getAttribute('aria-rowindex')) - ROW_INDEX_BASE;
  return Number.isInteger(index) && index >= 0 ? { el, index } : null;
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

  // the header's callbacks never change (it is memoised): they read the latest sort and widths through a ref
  const latest = useRef({ sort, manual, onServerSort, widths, ordered });
  latest.current = { sort, manual, onServerSort, widths, ordered };
  const onSort = useCallback((c: Column) => {
    const { sort, manual, onServerSort } = latest.current;
    // desc first, then asc, then no sort (as the column headers always did)
    const next: Sort = sort?.id !== c.id ? { id: c.id, desc: true } : sort.desc ? { id: c.id, desc: false } : null;
    if (manual) onServerSort?.(next && SERVER_SORT[next.id] ? { field: SERVER_SORT[next.id], dir: next.desc ? 'desc' : 'asc' } : null);
    else setLocalSort(next);
  }, []);
  const onResize = useCallback((c: Column, e: ReactMouseEvent) => {
    e.preventDefault();
    const x0 = e.clientX;
    const w0 = latest.current.widths[c.id] ?? c.size;
    const move = (ev: MouseEvent) => setWidths((w) => ({ ...w, [c.id]: Math.max(40, Math.round(w0 + ev.clientX - x0)) }));
    const up = () => {
      window.removeEventListener('mousemove', move);
      window.removeEventListener('mouseup', up);
    };
    window.addEventListener('mousemove', move);
    window.addEventListener('mouseup', up);
  }, []);
  const onSelectAll = useCallback(
    (on: boolean) => live.current.onSelectedChange?.(on ? new Set(latest.current.ordered.map(rowKey)) : new Set()),
    [],
  );
  const allSelected = selectable && ordered.length > 0 && ordered.every((r) => selected?.has(rowKey(r)) === true);

  // one click and one key handler for all the drawn rows (none of their own): a click on a row's
  // checkbox toggles its selection, anywhere else in the row opens it in the drawer; Space on the
  // checkbox toggles it (toggleKey), as the native box did
  const bodyRef = useRef<HTMLDivElement>(null);
  const onBodyClick = useCallback(
    (e: ReactMouseEvent) => {
      const hit = bodyRef.current ? rowOfEvent(e.target, bodyRef.current) : null;
      const row = hit ? latest.current.ordered[hit.index] : undefined;
      if (!hit || !row) return;
      if (isRowCheck(e.target, hit.el)) {
        e.stopPropagation();
        onSelect(row, !live.current.selected?.has(rowKey(row)));
      } else onOpen(hit.index, row);
    },
    [onOpen, onSelect],
  );
  const onBodyKeyDown = useCallback(
    (e: ReactKeyboardEvent) => {
      const hit = bodyRef.current ? rowOfEvent(e.target, bodyRef.current) : null;
      const row = hit ? latest.current.ordered[hit.index] : undefined;
      if (!hit || !row || !isRowCheck(e.target, hit.el) || !toggleKey(e)) return;
      e.preventDefault();
      e.stopPropagation();
      onSelect(row, !live.current.selected?.has(rowKey(row)));
    },
    [onSelect],
  );

  return (
    <div className={`table-wrap ${scope}`}>
      <TableWidths scope={scope} cols={visible} widths={widths} />
      <TableTools count={ordered.length} hasMore={!!hasMore} columns={columns} visible={visible} setVisibility={setVisibility} />
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
        <TableHead
          visible={visible}
          total={totalWidth}
          sortId={sort?.id}
          sortDesc={!!sort?.desc}
          manual={manual}
          allSelected={allSelected}
          onSort={onSort}
          onResize={onResize}
          onSelectAll={onSelectAll}
        />
        {/* rows are a fixed 30 px (no measuring), so the drawn ones are contiguous: they lie in flow below the first one's offset */}
        <div
          ref={bodyRef}
          style={{ height: virt.getTotalSize(), width: totalWidth, paddingTop: items[0]?.start ?? 0 }}
          role="rowgroup"
          onClick={onBodyClick}
          onKeyDown={onBodyKeyDown}
        >
          {items.map((vi) => {
            const row = ordered[vi.index];
            const key = rowKey(row);
            return <Row key={key} row={row} index={vi.index} cols={visible} cursor={vi.index === cursor} ctx={ctxOf(row, key)} />;
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
