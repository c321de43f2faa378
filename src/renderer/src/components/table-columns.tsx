/**
 * The results table's columns: header, width, whether it sorts / hides / resizes, the value a
 * local sort compares, and the cell of one row. A cell is a plain function of its row and that
 * row's context (threading depth, selection, what the network does not provide), so a row renders
 * on its own when it appears, and not again while its inputs stay the same (ResultsTable's Row).
 *
 * Rows are cheap (issue 30, scrolling at load 2): a cell whose content is one piece of text (a
 * count, a date, the network, the tags, the post's text, the author) is drawn as its grid cell alone, the text
 * straight in it and its tooltip on it (a `FlatCell`), not as an element inside an element; the
 * label chips sit in their cell without a container, as inline boxes on one line (`chipline`), not
 * flex items; the row's checkbox is a `role="checkbox"` element, not an `<input>`; widths come from
 * the table's stylesheet (`c-<id>` classes), not a style on every cell; a cell whose text surely
 * fits its column is drawn without a clip (`fitClass`, `unclippedRule`). A 900 px scroll step
 * builds ~30 rows.
 */
import type { ReactElement, ReactNode } from 'react';
import type { LibraryListRow } from '../../../shared/contract';
import { displayAuthor, displayText, labelChips } from '../lib/records';
import type { EngagementField } from '../../../shared/query';
import { abbreviate, fmtExact, relative, toMs, truncate, utc } from '../lib/format';
import { chipSpans, NOT_PROVIDED, RelBar } from './cells';

export type TableVariant = 'post' | 'comment' | 'library';

/** What a cell knows besides its row; the same object while nothing about the row changes. */
export interface CellCtx {
  depth: number;
  /** replies loaded under this row (threaded tables) */
  kids: number;
  collapsed: boolean;
  selected: boolean;
  threaded: boolean;
  unavailable: readonly string[] | undefined;
  onToggleReplies(id: string): void;
}

/** A cell that is one piece of text: drawn as the grid cell itself, with its class and tooltip. */
export interface FlatCell {
  flat: true;
  text: string;
  cls?: string;
  title?: string;
  /** what a screen reader says instead of the text ("—" says why it is missing) */
  label?: string;
  /** 'auto': the text is isolated and takes its direction from itself (as `<bdi>`) */
  dir?: 'auto';
}

const isFlat = (v: ReactNode | FlatCell): v is FlatCell => typeof v === 'object' && v !== null && (v as FlatCell).flat === true;

/** "—" with why (never 0): "Not provided by this network", "Hidden by the owner". */
function missing(why: string | undefined): FlatCell {
  const w = why ?? NOT_PROVIDED;
  return { flat: true, text: '—', cls: 'null', title: w, label: w };
}

/** A count abbreviated (12.3k), the exact figure on hover; null → "—". */
export function numCell(v: number | null | undefined, hidden?: boolean, why?: string): FlatCell {
  if (v === null || v === undefined) return missing(hidden ? 'Hidden by the owner' : why);
  return { flat: true, text: abbreviate(v), cls: 'num', title: fmtExact(v) };
}

/** A time relative to the service's now ("3 h ago"), the UTC time on hover; null → "—". */
export function whenCell(v: string | number | null | undefined): FlatCell {
  const ms = toMs(v ?? null);
  return ms === null ? missing(undefined) : { flat: true, text: relative(ms), title: utc(ms) };
}

/** The table's font size (styles.css: the body's 13 px, which cells inherit) and a cell's padding, left and right. */
export const CELL_FONT_PX = 13;
export const CELL_PADDING_PX = 16;
/** A text's width is bounded in steps of FIT_STEP_PX, up to FIT_STEPS of them (wider: no bound). */
export const FIT_STEP_PX = 4;
export const FIT_STEPS = 32;

/**
 * An upper bound of `text`'s width in px in the table's font, or Infinity when it may be wider than
 * FIT_STEPS steps (or holds a character outside the ones bounded here). The bounds are the widest
 * glyphs of the sans fonts `system-ui` resolves to (DejaVu Sans, Noto Sans, Segoe UI, SF, Roboto,
 * Verdana): digits, '_' and lower-case letters but m and w ≤ 0.65 em (bounded at 0.7); space, dot,
 * comma, colon, hyphen ≤ 0.4 em (0.5); every other printable ASCII character and "—" ≤ 1 em (1.05).
 */
export function textWidthBound(text: string): number {
  let em = 0;
  const most = (FIT_STEPS * FIT_STEP_PX) / CELL_FONT_PX;
  for (let i = 0; i < text.length && em <= most; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 48 && c <= 57) || (c >= 97 && c <= 122 && c !== 109 && c !== 119) || c === 95) em += 0.7;
    else if (c === 32 || c === 44 || c === 45 || c === 46 || c === 58) em += 0.5;
    else if ((c > 32 && c < 127) || c === 0x2014) em += 1.05;
    else return Infinity;
  }
  return em <= most ? em * CELL_FONT_PX : Infinity;
}

/** The characters textWidthBound bounds, by the bound of their width in em. */
export function boundedGlyphs(): Array<{ em: number; chars: string[] }> {
  const narrow: string[] = [];
  const thin = [' ', ',', '-', '.', ':'];
  const wide: string[] = ['\u2014'];
  for (let c = 33; c < 127; c++) {
    const ch = String.fromCharCode(c);
    if ((c >= 48 && c <= 57) || (c >= 97 && c <= 122 && c !== 109 && c !== 119) || c === 95) narrow.push(ch);
    else if (!thin.includes(ch)) wide.push(ch);
  }
  return [
    { em: 0.7, chars: narrow },
    { em: 0.5, chars: thin },
    { em: 1.05, chars: wide },
  ];
}

/**
 * Whether a font keeps within textWidthBound's bounds: its size is CELL_FONT_PX and no glyph is
 * wider than its class's bound (`widthOf`: a character's advance in px, null when it cannot be
 * measured). A user's `system-ui` may resolve to a family, weight or size other than the ones the
 * bounds were taken from; where it does not keep within them, every cell keeps its clip.
 */
export function glyphsWithinBounds(fontPx: number, widthOf: (ch: string) => number | null): boolean {
  if (fontPx !== CELL_FONT_PX) return false;
  for (const { em, chars } of boundedGlyphs())
    for (const ch of chars) {
      const w = widthOf(ch);
      if (w === null || !(w <= em * CELL_FONT_PX)) return false;
    }
  return true;
}

let pageGlyphs: boolean | null = null;

/** glyphsWithinBounds for this page's cell font, measured once with a canvas; false without one. */
export function pageGlyphsWithinBounds(): boolean {
  if (pageGlyphs !== null) return pageGlyphs;
  pageGlyphs = false;
  if (typeof document === 'undefined' || !document.body) return pageGlyphs;
  const cs = getComputedStyle(document.body);
  const ctx = document.createElement('canvas').getContext('2d');
  if (!ctx) return pageGlyphs;
  ctx.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
  pageGlyphs = glyphsWithinBounds(parseFloat(cs.fontSize), (ch) => ctx.measureText(ch).width);
  return pageGlyphs;
}

/**
 * The class saying how wide a flat cell's text is at most (`f<k>`: k steps of FIT_STEP_PX), or ''
 * when unbounded. A column whose width holds k steps draws its `f<k>` cells without a clip
 * (ResultsTable's stylesheet): a clip per cell is ~20 % of a scroll step's main-thread time (issue
 * 30), and a text that fits looks the same clipped or not.
 */
export function fitClass(text: string): string {
  const px = textWidthBound(text);
  return px === Infinity ? '' : ` f${Math.ceil(px / FIT_STEP_PX)}`;
}

/**
 * The stylesheet rule that draws a column's cells without a clip where their content surely fits
 * its width: all of them for a column whose content is never wider (`fits`), else the flat cells
 * whose text's bound (`f<k>`) fits, when the page's font keeps within the bounds (`glyphsFit`,
 * pageGlyphsWithinBounds); '' when none do.
 */
export function unclippedRule(scope: string, c: Column, width: number, glyphsFit = true): string {
  if (c.fits) return `.${scope} .td.c-${c.id}{overflow:visible}`;
  if (!glyphsFit) return '';
  const steps = Math.min(FIT_STEPS, Math.floor((width - CELL_PADDING_PX) / FIT_STEP_PX));
  if (steps < 0) return '';
  const sel: string[] = [];
  for (let k = 0; k <= steps; k++) sel.push(`.${scope} .td.c-${c.id}.f${k}`);
  return `${sel.join(',')}{overflow:visible}`;
}

/** One grid cell of a row (its width from the table's stylesheet: `c-<id>`). */
export function gridCell(c: Column, r: LibraryListRow, ctx: CellCtx): ReactElement {
  const v = c.cell(r, ctx);
  const cls = `td c-${c.id}${c.num ? ' right' : ''}${c.tdClass ? ` ${c.tdClass}` : ''}`;
  return isFlat(v) ? (
    <div
      key={c.id}
      className={`${cls} flat${v.cls ? ` ${v.cls}` : ''}${fitClass(v.text)}`}
      role="gridcell"
      title={v.title}
      aria-label={v.label}
      dir={v.dir}
    >
      {v.text}
    </div>
  ) : (
    <div key={c.id} className={cls} role="gridcell">
      {v}
    </div>
  );
}

export interface Column {
  id: string;
  header: string;
  size: number;
  /** right-aligned number */
  num?: boolean;
  sortable: boolean;
  hideable: boolean;
  resizable: boolean;
  /** the value a local sort compares; undefined sorts last in both directions */
  value?: (r: LibraryListRow) => string | number | undefined;
  /** the cell's content: elements, or one piece of text drawn as the cell itself */
  cell(r: LibraryListRow, c: CellCtx): ReactNode | FlatCell;
  /** a class of the grid cell itself (e.g. the labels cell lays its chips out) */
  tdClass?: string;
  /** its content is never wider than the column (a fixed width): drawn without a clip */
  fits?: boolean;
}

function whyMissing(unavailable: readonly string[] | undefined, field: string): string | undefined {
  if (unavailable && unavailable.some((u) => u === field || u.endsWith('.' + field)))
    return `This network does not provide ${field} (listed in "unavailable")`;
  return undefined;
}

const col = (c: Partial<Column> & Pick<Column, 'id' | 'header' | 'size' | 'cell'>): Column => ({
  sortable: !!c.value,
  hideable: true,
  resizable: true,
  ...c,
});

function eng(f: EngagementField): Column {
  return col({
    id: f,
    header: f[0].toUpperCase() + f.slice(1),
    size: Math.max(74, 22 + 8.5 * f.length), // the header (uppercase, 11 px) must fit: "COMMENTS" clipped at 74
    num: true,
    value: (r) => r.engagement[f] ?? undefined,
    cell: (r, c) => numCell(r.engagement[f], r.hiddenCounts.includes(f), whyMissing(c.unavailable, f)),
  });
}

function textCell(r: LibraryListRow, c: CellCtx): ReactNode | FlatCell {
  const text = displayText(r);
  // most rows: the text alone, isolated (dir=auto, as <bdi>) in the cell, cut with an ellipsis
  if (c.depth === 0 && !(c.threaded && c.kids > 0))
    return text
      ? { flat: true, text: truncate(text.replace(/\s+/g, ' '), 300), dir: 'auto' }
      : { flat: true, text: '(no text)', cls: 'muted' };
  return (
    <span className="textcell" style={{ paddingLeft: c.depth * 18 }}>
      {c.threaded && c.kids > 0 ? (
        <button
          className="twisty"
          aria-label={c.collapsed ? `Show ${c.kids} replies` : `Hide ${c.kids} replies`}
          title={c.collapsed ? `Show ${c.kids} replies` : `Hide replies`}
          onClick={(e) => {
            e.stopPropagation();
            c.onToggleReplies(r.id);
          }}
        >
          {c.collapsed ? `▸ ${c.kids}` : '▾'}
        </button>
      ) : c.depth > 0 ? (
        <span className="reply-mark">↳</span>
      ) : null}
      {text ? <bdi className="ellipsis">{truncate(text.replace(/\s+/g, ' '), 300)}</bdi> : <span className="muted">(no text)</span>}
    </span>
  );
}

/**
 * The checkbox that selects a row (never clipped: a 16 px box in 36 px less 16 of padding). Not an
 * `<input>`: a form control is the row's costliest element to build, style and paint, and ~30 enter
 * on every scroll step (issue 30). A `role="checkbox"` element does what the native one did: in the
 * tab order, its state in `aria-checked`, a click or Space toggles it (`toggleKey`), Enter does not;
 * the page's keys leave it alone as they leave a form control (commands.ts `isTyping`); styles.css
 * `.rowcheck` draws the native box in both colour schemes.
 */
function selectColumn(): Column {
  return col({
    id: 'select',
    header: 'Select',
    size: 36,
    hideable: false,
    resizable: false,
    fits: true,
    // no handlers of its own: the table's rowgroup takes the clicks and Space of every row's box
    cell: (_r, c) => (
      <span className="rowcheck" role="checkbox" aria-checked={c.selected} aria-label="Select row" tabIndex={0} data-testid="row-select" />
    ),
  });
}

/** Whether a key press toggles a checkbox: Space alone, not held down (as a native checkbox). */
export function toggleKey(e: Pick<KeyboardEvent, 'key' | 'repeat' | 'ctrlKey' | 'metaKey' | 'altKey'>): boolean {
  return e.key === ' ' && !e.repeat && !e.ctrlKey && !e.metaKey && !e.altKey;
}

/** The columns of a table shape (the select column first when rows can be selected). */
export function tableColumns(variant: TableVariant, selectable: boolean): Column[] {
  const cols: Column[] = [];
  if (selectable) cols.push(selectColumn());
  cols.push(
    col({
      id: 'text',
      header: variant === 'comment' ? 'Comment' : 'Text',
      size: variant === 'comment' ? 460 : 380,
      hideable: false,
      value: (r) => displayText(r),
      cell: textCell,
    }),
    col({
      id: 'author',
      header: 'Author',
      size: 130,
      value: (r) => displayAuthor(r),
      // the name isolated (dir=auto, as <bdi>) in the cell itself: drawn without a clip where it surely fits
      cell: (r) => ({ flat: true, text: displayAuthor(r) || '—', dir: 'auto' }),
    }),
    col({
      id: 'platform',
      header: 'Network',
      size: 100,
      value: (r) => r.platform,
      cell: (r) => ({ flat: true, text: r.platform, cls: 'muted' }),
    }),
    col({ id: 'kind', header: 'Kind', size: 64, value: (r) => r.kind, cell: (r) => ({ flat: true, text: r.kind, cls: 'muted' }) }),
    col({
      id: 'published',
      header: 'Published',
      size: 92,
      value: (r) => r.publishedAt ?? undefined,
      cell: (r) => whenCell(r.publishedAt),
    }),
    eng('views'),
    eng('likes'),
    eng('comments'),
    eng('shares'),
    eng('saves'),
    col({
      id: 'followers',
      header: 'Followers',
      size: 96,
      num: true,
      value: (r) => r.followers ?? undefined,
      cell: (r) => numCell(r.followers),
    }),
    col({ id: 'labels', header: 'Labels', size: 230, tdClass: 'chipline', cell: (r) => chipSpans(labelChips(r)) }),
    col({
      id: 'relevance',
      header: 'Relevance',
      size: 110,
      value: (r) => r.relevance ?? undefined,
      cell: (r) => <RelBar p={r.relevance} />,
    }),
    col({
      id: 'tags',
      header: 'Tags',
      size: 110,
      cell: (r) => ({ flat: true, text: r.tags.join(', ') + (r.note ? ' ✎' : ''), cls: 'muted' }),
    }),
    col({ id: 'firstSeen', header: 'First seen', size: 92, value: (r) => r.firstSeenAt, cell: (r) => whenCell(r.firstSeenAt) }),
  );
  return variant === 'post' ? searchOrder(cols) : cols;
}

/**
 * Search results: relevance and the labels (what an analyst filters on) right after the text, so
 * they are on screen at 1,440 px beside the facets (issue 27 #14); the counts follow.
 */
function searchOrder(cols: Column[]): Column[] {
  const first = ['select', 'text', 'relevance', 'labels'];
  return [...first.flatMap((id) => cols.filter((c) => c.id === id)), ...cols.filter((c) => !first.includes(c.id))];
}

/** Columns hidden at first, per table shape (the Columns menu shows them again). */
export function hiddenAtFirst(variant: TableVariant): Record<string, boolean> {
  return variant === 'comment'
    ? { platform: false, kind: false, views: false, shares: false, saves: false, relevance: false, tags: false, firstSeen: false }
    : variant === 'post'
      ? { platform: false, saves: false, tags: false, firstSeen: false }
      : { saves: false, relevance: false, firstSeen: false };
}

/** The columns drawn: those not hidden (followers: shown when profiles are listed) and always the one the rows are sorted by, whose header carries the order's arrow. */
export function shownColumns(
  columns: Column[],
  visibility: Record<string, boolean>,
  hasProfiles: boolean,
  sortedId: string | undefined,
): Column[] {
  return columns.filter(
    (c) => c.id === sortedId || (c.id === 'followers' ? (visibility.followers ?? hasProfiles) : visibility[c.id] !== false),
  );
}

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/**
 * A local sort of the loaded rows (the views that do not sort on the server): unknown values
 * last in both directions, ties in the order the rows came.
 */
export function sortRows(rows: readonly LibraryListRow[], column: Column | undefined, desc: boolean): readonly LibraryListRow[] {
  if (!column?.value) return rows;
  const value = column.value;
  const keyed = rows.map((r, i) => ({ r, i, v: value(r) }));
  keyed.sort((a, b) => {
    if (a.v === undefined || b.v === undefined) return a.v === b.v ? a.i - b.i : a.v === undefined ? 1 : -1;
    const d = typeof a.v === 'number' && typeof b.v === 'number' ? a.v - b.v : collator.compare(String(a.v), String(b.v));
    return d === 0 ? a.i - b.i : desc ? -d : d;
  });
  return keyed.map((k) => k.r);
}
