/**
 * The virtualised results table: sortable, resizable and hideable columns; j/k cursor; Enter opens
 * the drawer (global keys in App); keyset "load more" at the end. Text cells render as text only.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import {
  flexRender,
  getCoreRowModel,
  getSortedRowModel,
  useReactTable,
  type ColumnDef,
  type SortingState,
  type VisibilityState,
} from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { LibraryRow } from '../../../shared/contract';
import { engagement, engagementHidden, labelChips, publishedAt, recordAuthor, recordText, relevance, rowKey, followers, type EngagementField } from '../lib/records';
import { truncate } from '../lib/format';
import { useUi } from '../stores/ui';
import { Chips, Num, RelBar, When } from './cells';

export type TableVariant = 'post' | 'comment' | 'library';

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
  rows: LibraryRow[];
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

function whyMissing(unavailable: string[] | undefined, field: string): string | undefined {
  if (unavailable && unavailable.some((u) => u === field || u.endsWith('.' + field))) return `This network does not provide ${field} (listed in "unavailable")`;
  return undefined;
}

export function ResultsTable({ rows, variant, hasMore, fetchingMore, onLoadMore, serverSort, onServerSort, selected, onSelectedChange, threaded, unavailable }: Props) {
  const [sorting, setSorting] = useState<SortingState>([]);
  const [collapsed, setCollapsed] = useState<Set<string>>(new Set());
  const [visibility, setVisibility] = useState<VisibilityState>((): VisibilityState =>
    variant === 'comment'
      ? { platform: false, kind: false, views: false, shares: false, saves: false, relevance: false, tags: false, firstSeen: false }
      : variant === 'post'
        ? { platform: false, saves: false, tags: false, firstSeen: false }
        : { saves: false, relevance: false, firstSeen: false },
  );
  const [menu, setMenu] = useState(false);
  const openDrawer = useUi((s) => s.openDrawer);
  const cursor = useUi((s) => s.cursor);
  const setCursor = useUi((s) => s.setCursor);
  const setTableRows = useUi((s) => s.setTableRows);

  // Threading: parent first, its replies after it (indented), children hidden when collapsed.
  const { ordered, depth, childCount } = useMemo(() => {
    const depth = new Map<string, number>();
    const childCount = new Map<string, number>();
    if (!threaded) return { ordered: rows, depth, childCount };
    const byId = new Map(rows.map((r) => [r.id, r]));
    const kids = new Map<string, LibraryRow[]>();
    const roots: LibraryRow[] = [];
    for (const r of rows) {
      const pid = typeof r.record.parent_id === 'string' ? r.record.parent_id : null;
      if (pid && byId.has(pid) && pid !== r.id) {
        kids.set(pid, [...(kids.get(pid) ?? []), r]);
        childCount.set(pid, (childCount.get(pid) ?? 0) + 1);
      } else roots.push(r);
    }
    const out: LibraryRow[] = [];
    const seen = new Set<string>();
    const walk = (r: LibraryRow, d: number) => {
      if (seen.has(r.id)) return;
      seen.add(r.id);
      depth.set(r.id, d);
      out.push(r);
      if (!collapsed.has(r.id)) for (const k of kids.get(r.id) ?? []) walk(k, d + 1);
    };
    for (const r of roots) walk(r, 0);
    return { ordered: out, depth, childCount };
  }, [rows, threaded, collapsed]);

  // Column definitions are built once per table shape, not per page or selection: rebuilding them
  // made the table recompute every loaded row's cells on each new page (scroll jank). Cells read the
  // current rows, selection and threading through `live`, updated on every render.
  const live = useRef({ rows, selected, onSelectedChange, depth, childCount, collapsed, unavailable });
  live.current = { rows, selected, onSelectedChange, depth, childCount, collapsed, unavailable };
  const selectable = !!selected && !!onSelectedChange;
  const columns = useMemo<ColumnDef<LibraryRow>[]>(() => {
    const eng = (f: EngagementField): ColumnDef<LibraryRow> => ({
      id: f,
      header: f[0].toUpperCase() + f.slice(1),
      size: Math.max(74, 22 + 8.5 * f.length), // the header (uppercase, 11 px) must fit: "COMMENTS" clipped at 74
      accessorFn: (r) => engagement(r.record, f) ?? undefined,
      sortUndefined: 'last',
      meta: { num: true },
      cell: (c) => <Num v={engagement(c.row.original.record, f)} hidden={engagementHidden(c.row.original.record, f)} why={whyMissing(live.current.unavailable, f)} />,
    });
    const cols: ColumnDef<LibraryRow>[] = [];
    if (selectable) {
      cols.push({
        id: 'select',
        header: () => (
          <input
            type="checkbox"
            aria-label="Select all loaded rows"
            checked={live.current.rows.length > 0 && live.current.rows.every((r) => live.current.selected?.has(rowKey(r)))}
            onChange={(e) => live.current.onSelectedChange?.(e.target.checked ? new Set(live.current.rows.map(rowKey)) : new Set())}
          />
        ),
        size: 30,
        enableSorting: false,
        enableResizing: false,
        enableHiding: false,
        cell: (c) => (
          <input
            type="checkbox"
            aria-label="Select row"
            data-testid="row-select"
            checked={!!live.current.selected?.has(rowKey(c.row.original))}
            onClick={(e) => e.stopPropagation()}
            onChange={(e) => {
              const s = new Set(live.current.selected);
              const k = rowKey(c.row.original);
              if (e.target.checked) s.add(k);
              else s.delete(k);
              live.current.onSelectedChange?.(s);
            }}
          />
        ),
      });
    }
    cols.push(
      {
        id: 'text',
        header: variant === 'comment' ? 'Comment' : 'Text',
        size: variant === 'comment' ? 460 : 380,
        enableHiding: false,
        accessorFn: (r) => recordText(r.record),
        cell: (c) => {
          const r = c.row.original;
          const d = live.current.depth.get(r.id) ?? 0;
          const n = live.current.childCount.get(r.id) ?? 0;
          return (
            <span className="textcell" style={{ paddingLeft: d * 18 }}>
              {threaded && n > 0 ? (
                <button
                  className="twisty"
                  aria-label={live.current.collapsed.has(r.id) ? `Show ${n} replies` : `Hide ${n} replies`}
                  title={live.current.collapsed.has(r.id) ? `Show ${n} replies` : `Hide replies`}
                  onClick={(e) => {
                    e.stopPropagation();
                    const s = new Set(live.current.collapsed);
                    if (s.has(r.id)) s.delete(r.id);
                    else s.add(r.id);
                    setCollapsed(s);
                  }}
                >
                  {live.current.collapsed.has(r.id) ? `▸ ${n}` : '▾'}
                </button>
              ) : d > 0 ? (
                <span className="reply-mark">↳</span>
              ) : null}
              {recordText(r.record) ? <bdi className="ellipsis">{truncate(recordText(r.record).replace(/\s+/g, ' '), 300)}</bdi> : <span className="muted">(no text)</span>}
            </span>
          );
        },
      },
      {
        id: 'author',
        header: 'Author',
        size: 130,
        accessorFn: (r) => recordAuthor(r.record),
        cell: (c) => <span className="ellipsis">{recordAuthor(c.row.original.record) || '—'}</span>,
      },
      { id: 'platform', header: 'Network', size: 100, accessorFn: (r) => r.platform, cell: (c) => <span className="ellipsis muted">{c.row.original.platform}</span> },
      { id: 'kind', header: 'Kind', size: 64, accessorFn: (r) => r.kind, cell: (c) => <span className="muted">{c.row.original.kind}</span> },
      {
        id: 'published',
        header: 'Published',
        size: 92,
        accessorFn: (r) => publishedAt(r.record) ?? undefined,
        sortUndefined: 'last',
        cell: (c) => <When v={publishedAt(c.row.original.record)} />,
      },
      eng('views'),
      eng('likes'),
      eng('comments'),
      eng('shares'),
      eng('saves'),
      {
        id: 'followers',
        header: 'Followers',
        size: 96,
        accessorFn: (r) => followers(r.record) ?? undefined,
        sortUndefined: 'last',
        meta: { num: true },
        cell: (c) => <Num v={followers(c.row.original.record)} />,
      },
      {
        id: 'labels',
        header: 'Labels',
        size: 230,
        enableSorting: false,
        cell: (c) => <Chips chips={labelChips(c.row.original)} />,
      },
      {
        id: 'relevance',
        header: 'Relevance',
        size: 110,
        accessorFn: (r) => relevance(r.record) ?? undefined,
        sortUndefined: 'last',
        cell: (c) => <RelBar p={relevance(c.row.original.record)} />,
      },
      { id: 'tags', header: 'Tags', size: 110, enableSorting: false, cell: (c) => <span className="muted ellipsis">{c.row.original.tags.join(', ')}{c.row.original.note ? ' ✎' : ''}</span> },
      { id: 'firstSeen', header: 'First seen', size: 92, accessorFn: (r) => r.firstSeenAt, cell: (c) => <When v={c.row.original.firstSeenAt} /> },
    );
    return cols;
  }, [variant, selectable, threaded]);

  const manual = !!onServerSort;
  const table = useReactTable({
    data: ordered,
    columns,
    state: {
      sorting: manual ? (serverSort ? [{ id: Object.keys(SERVER_SORT).find((k) => SERVER_SORT[k] === serverSort.field) ?? serverSort.field, desc: serverSort.dir === 'desc' }] : []) : sorting,
      columnVisibility: { ...visibility, followers: visibility.followers ?? ordered.some((r) => r.kind === 'profile') },
    },
    onSortingChange: (up) => {
      const cur: SortingState = manual ? (serverSort ? [{ id: Object.keys(SERVER_SORT).find((k) => SERVER_SORT[k] === serverSort.field) ?? '', desc: serverSort.dir === 'desc' }] : []) : sorting;
      const next = typeof up === 'function' ? up(cur) : up;
      if (manual) {
        const s = next[0];
        onServerSort!(s && SERVER_SORT[s.id] ? { field: SERVER_SORT[s.id], dir: s.desc ? 'desc' : 'asc' } : null);
      } else setSorting(next);
    },
    onColumnVisibilityChange: setVisibility,
    manualSorting: manual,
    enableColumnResizing: true,
    columnResizeMode: 'onChange',
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    getRowId: (r) => rowKey(r),
    enableSortingRemoval: true,
    sortDescFirst: true,
  });

  const tableRows = table.getRowModel().rows;
  const parentRef = useRef<HTMLDivElement>(null);
  const virt = useVirtualizer({ count: tableRows.length, getScrollElement: () => parentRef.current, estimateSize: () => 30, overscan: 12 });

  // register for keyboard navigation (j/k/Enter live in App)
  const refs = useMemo(() => tableRows.map((r) => ({ platform: r.original.platform, kind: r.original.kind, id: r.original.id })), [tableRows]);
  useEffect(() => {
    setTableRows(refs);
  }, [refs, setTableRows]);
  useEffect(() => () => setTableRows([]), [setTableRows]);
  useEffect(() => {
    if (tableRows.length) virt.scrollToIndex(Math.min(cursor, tableRows.length - 1), { align: 'auto' });
  }, [cursor]);

  const items = virt.getVirtualItems();
  const last = items[items.length - 1];
  useEffect(() => {
    if (last && hasMore && !fetchingMore && onLoadMore && last.index >= tableRows.length - 15) onLoadMore();
  }, [last, hasMore, fetchingMore, onLoadMore, tableRows.length]);

  const totalWidth = table.getVisibleLeafColumns().reduce((a, c) => a + c.getSize(), 0);

  return (
    <div className="table-wrap">
      <div className="table-tools">
        <span className="muted" data-testid="row-count">
          {tableRows.length.toLocaleString('en-US')} row{tableRows.length === 1 ? '' : 's'} loaded{hasMore ? ' · more available' : ''}
        </span>
        <div className="spacer" />
        <div className="menu-anchor">
          <button className="btn small ghost" onClick={() => setMenu(!menu)} aria-expanded={menu} data-testid="columns-menu">
            Columns ▾
          </button>
          {menu ? (
            <div className="popover" onMouseLeave={() => setMenu(false)}>
              {table
                .getAllLeafColumns()
                .filter((c) => c.getCanHide())
                .map((c) => (
                  <label key={c.id} className="check">
                    <input type="checkbox" checked={c.getIsVisible()} onChange={c.getToggleVisibilityHandler()} /> {typeof c.columnDef.header === 'string' ? c.columnDef.header : c.id}
                  </label>
                ))}
            </div>
          ) : null}
        </div>
      </div>
      {/* the grid is keyboard-reachable (tabIndex: it scrolls) and holds only rows (load-more sits below it) */}
      <div className="table-scroll" ref={parentRef} data-testid="results-table" role="grid" aria-rowcount={tableRows.length + 1} aria-label="Results" tabIndex={0}>
        <div className="thead" style={{ width: totalWidth }} role="row" aria-rowindex={1}>
          {table.getHeaderGroups()[0].headers.map((h) => {
            const sorted = h.column.getIsSorted();
            const isNum = (h.column.columnDef.meta as { num?: boolean } | undefined)?.num;
            const sortable = h.column.getCanSort() && (!manual || !!SERVER_SORT[h.column.id]);
            return (
              <div
                key={h.id}
                className={`th ${isNum ? 'right' : ''} ${sortable ? 'sortable' : ''}`}
                style={{ width: h.getSize() }}
                role="columnheader"
                aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : 'none'}
                onClick={sortable ? h.column.getToggleSortingHandler() : undefined}
                title={sortable ? 'Sort' : undefined}
              >
                {flexRender(h.column.columnDef.header, h.getContext())}
                {sorted === 'asc' ? ' ▲' : sorted === 'desc' ? ' ▼' : ''}
                {h.column.getCanResize() ? <div className="resizer" onMouseDown={h.getResizeHandler()} onClick={(e) => e.stopPropagation()} /> : null}
              </div>
            );
          })}
        </div>
        <div style={{ height: virt.getTotalSize(), width: totalWidth, position: 'relative' }} role="rowgroup">
          {items.map((vi) => {
            const row = tableRows[vi.index];
            return (
              <div
                key={row.id}
                className={`tr ${vi.index === cursor ? 'cursor' : ''} ${selected?.has(row.id) ? 'selected' : ''}`}
                style={{ transform: `translateY(${vi.start}px)`, width: totalWidth }}
                role="row"
                aria-rowindex={vi.index + 2}
                data-testid="result-row"
                data-id={row.original.id}
                onClick={() => {
                  setCursor(vi.index);
                  openDrawer({ platform: row.original.platform, kind: row.original.kind, id: row.original.id });
                }}
              >
                {row.getVisibleCells().map((cell) => (
                  <div key={cell.id} className={`td ${(cell.column.columnDef.meta as { num?: boolean } | undefined)?.num ? 'right' : ''}`} style={{ width: cell.column.getSize() }} role="gridcell">
                    {flexRender(cell.column.columnDef.cell, cell.getContext())}
                  </div>
                ))}
              </div>
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
