/**
 * The results table's parts that a scroll step does not render (ResultsTable.tsx): the widths'
 * stylesheet, the row count with the Columns menu, and the header row. Each is memoised on plain
 * values and callbacks that never change, so the render the virtualiser schedules for a scroll
 * event builds only the rows that enter (issue 30).
 */
import { memo, useState, type Dispatch, type MouseEvent as ReactMouseEvent, type SetStateAction } from 'react';
import { pageGlyphsWithinBounds, unclippedRule, type Column } from './table-columns';

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

/**
 * The widths of a table's columns and rows as one stylesheet scoped to the table (`.rt<n>`): a
 * cell carries a class (`c-<id>`), not a style of its own, so the rows that enter on a scroll step
 * are built and styled without a style per cell (issue 30). The same sheet lifts the clip of the
 * cells whose content surely fits their column's width (`unclippedRule`): recomputed as a column is
 * resized, so a narrowed column clips again. Memoised: a scroll step's render does not build it.
 */
export const TableWidths = memo(function TableWidths({
  scope,
  cols,
  widths,
}: {
  scope: string;
  cols: readonly Column[];
  widths: Readonly<Record<string, number>>;
}) {
  const glyphsFit = pageGlyphsWithinBounds();
  const width = (c: Column) => widths[c.id] ?? c.size;
  const css =
    cols.map((c) => `.${scope} .c-${c.id}{width:${width(c)}px}${unclippedRule(scope, c, width(c), glyphsFit)}`).join('') +
    `.${scope} .tr{width:${cols.reduce((a, c) => a + width(c), 0)}px}`;
  return <style>{css}</style>;
});

/** The row count and the Columns menu above the grid (memoised: a scroll step does not render it). */
export const TableTools = memo(function TableTools({
  count,
  hasMore,
  columns,
  visible,
  setVisibility,
}: {
  count: number;
  hasMore: boolean;
  columns: readonly Column[];
  visible: readonly Column[];
  setVisibility: Dispatch<SetStateAction<Record<string, boolean>>>;
}) {
  const [menu, setMenu] = useState(false);
  return (
    <div className="table-tools">
      <span className="muted" data-testid="row-count">
        {count.toLocaleString('en-US')} row{count === 1 ? '' : 's'} loaded{hasMore ? ' · more available' : ''}
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
  );
});

/**
 * The grid's header row: sort arrows, resizers, the "select all" box. Memoised on plain values and
 * callbacks that never change, so the render a scroll step schedules (the virtualiser's) does not
 * build it again, nor update its `<input>` (issue 30: that was ~10 % of a scroll's script).
 */
export const TableHead = memo(function TableHead({
  visible,
  total,
  sortId,
  sortDesc,
  manual,
  allSelected,
  onSort,
  onResize,
  onSelectAll,
}: {
  visible: readonly Column[];
  total: number;
  sortId: string | undefined;
  sortDesc: boolean;
  manual: boolean;
  allSelected: boolean;
  onSort(c: Column): void;
  onResize(c: Column, e: ReactMouseEvent): void;
  onSelectAll(on: boolean): void;
}) {
  return (
    <div className="thead" style={{ width: total }} role="row" aria-rowindex={1}>
      {visible.map((c) => {
        const sorted = sortId === c.id ? (sortDesc ? 'desc' : 'asc') : false;
        const sortable = c.sortable && (!manual || !!SERVER_SORT[c.id]);
        return (
          <div
            key={c.id}
            className={`th c-${c.id} ${c.num ? 'right' : ''} ${sortable ? 'sortable' : ''}`}
            role="columnheader"
            aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : 'none'}
            onClick={sortable ? () => onSort(c) : undefined}
            title={sortable ? 'Sort' : undefined}
          >
            {c.id === 'select' ? (
              <input
                type="checkbox"
                aria-label="Select all loaded rows"
                checked={allSelected}
                onChange={(e) => onSelectAll(e.target.checked)}
              />
            ) : (
              c.header
            )}
            {sorted === 'asc' ? ' ▲' : sorted === 'desc' ? ' ▼' : ''}
            {c.resizable ? <div className="resizer" onMouseDown={(e) => onResize(c, e)} onClick={(e) => e.stopPropagation()} /> : null}
          </div>
        );
      })}
    </div>
  );
});
