/**
 * Frequency table (analysis.frequency): a field picker in words, sortable columns (the core
 * sorts, so the top rows are the top of the whole query), a row's click → the Library showing
 * exactly its items (the row's query), "Download CSV" (the CLI's bytes: shared/analysis-csv.ts).
 */
import { useState } from 'react';
import type { FrequencyRow, FrequencySort } from '../../../../shared/analysis';
import { frequencyCsv } from '../../../../shared/analysis-csv';
import type { LibraryQuery } from '../../../../shared/query';
import { Empty, ErrorBox, Num, Skeleton, When } from '../../components/cells';
import { fmtExact } from '../../lib/format';
import { showBidiControls } from '../../lib/words';
import { useLoupe } from '../../queries/hooks';
import { useUi } from '../../stores/ui';
import { downloadText, FIELD_ORDER, FIELD_WORDS, openInLibrary, pct, useAnalysis } from './analysis-state';

const LIMITS = [50, 100, 500, 2000];

interface Column {
  id: string;
  label: string;
  hint: string;
  sort?: FrequencySort;
  right?: boolean;
  cell: (r: FrequencyRow) => React.ReactNode;
}

const COLUMNS: Column[] = [
  {
    id: 'count',
    label: 'Items',
    hint: 'items containing it at least once — a click shows exactly these (API: count)',
    sort: 'count',
    right: true,
    cell: (r) => <Num v={r.count} exact />,
  },
  {
    id: 'occurrences',
    label: 'Times used',
    hint: 'occurrences in those items (API: occurrences)',
    sort: 'occurrences',
    right: true,
    cell: (r) => <Num v={r.occurrences} exact />,
  },
  {
    id: 'share',
    label: 'Share',
    hint: 'items ÷ all items analysed (API: share)',
    sort: 'count',
    right: true,
    cell: (r) => <span className="num">{pct(r.share)}</span>,
  },
  {
    id: 'first',
    label: 'First seen',
    hint: 'earliest publication among those items, UTC on hover (API: firstSeen)',
    sort: 'first',
    cell: (r) => <When v={r.firstSeen} why="No publication date known" />,
  },
  {
    id: 'last',
    label: 'Last seen',
    hint: 'latest publication among those items (API: lastSeen)',
    sort: 'last',
    cell: (r) => <When v={r.lastSeen} why="No publication date known" />,
  },
  {
    id: 'engagement',
    label: 'Engagement',
    hint: 'likes + comments + shares + saves over those items, known counts only (API: sums.engagement)',
    sort: 'engagement',
    right: true,
    cell: (r) => <Num v={r.sums.engagement} why="No engagement count known" />,
  },
  {
    id: 'likes',
    label: 'Likes',
    hint: 'sum of likes (API: sums.likes)',
    sort: 'likes',
    right: true,
    cell: (r) => <Num v={r.sums.likes} />,
  },
  {
    id: 'views',
    label: 'Views',
    hint: 'sum of views (API: sums.views)',
    sort: 'views',
    right: true,
    cell: (r) => <Num v={r.sums.views} />,
  },
];

export function FrequencyPanel({ query, scopeName }: { query: LibraryQuery; scopeName: string }) {
  const { field, setField, sort, setSort } = useAnalysis();
  const [limit, setLimit] = useState(50);
  const table = useLoupe(
    'analysis.frequency',
    { query, field, limit, sort: sort.by, dir: sort.dir },
    { keepPrevious: true, staleTime: 30_000 },
  );
  const t = table.data?.field === field ? table.data : undefined;
  const words = FIELD_WORDS[field];
  const clickSort = (c: Column) => {
    if (!c.sort) return;
    const active = sort.by === c.sort && (c.id !== 'share' || sort.by === 'count');
    setSort({ by: c.sort, dir: active && sort.dir === 'desc' ? 'asc' : 'desc' });
  };
  const ariaSort = (c: Column): 'ascending' | 'descending' | undefined =>
    c.sort && sort.by === c.sort && c.id !== 'share' ? (sort.dir === 'asc' ? 'ascending' : 'descending') : undefined;
  return (
    <section className="panel" aria-labelledby="freq-title" data-testid="frequency-panel">
      <div className="row gap wrap">
        <h2 id="freq-title" className="panel-title">
          Most frequent {words.label.toLowerCase()}
        </h2>
        <div className="seg analysis-seg" role="radiogroup" aria-label="What to count" data-testid="frequency-field">
          {FIELD_ORDER.map((f) => (
            <button
              key={f}
              type="button"
              role="radio"
              aria-checked={f === field}
              className={f === field ? 'on' : ''}
              title={FIELD_WORDS[f].hint}
              onClick={() => setField(f)}
              data-testid={`field-${f}`}
            >
              {FIELD_WORDS[f].label}
            </button>
          ))}
        </div>
        <label className="field inline">
          <span className="field-label">Rows</span>
          <select value={limit} onChange={(e) => setLimit(Number(e.target.value))} data-testid="frequency-limit">
            {LIMITS.map((n) => (
              <option key={n} value={n}>
                top {fmtExact(n)}
              </option>
            ))}
          </select>
        </label>
        <div className="spacer" />
        <button
          type="button"
          className="btn small"
          disabled={!t || t.rows.length === 0}
          onClick={() => t && downloadText(`${field}-${new Date().toISOString().slice(0, 10)}.csv`, frequencyCsv(t))}
          data-testid="frequency-csv"
          title="The table as shown (its rows and order) as CSV, Excel-safe"
        >
          Download CSV
        </button>
      </div>
      <div className="muted small" data-testid="frequency-summary" aria-live="polite">
        {t ? (
          <>
            Counted over <b data-testid="frequency-items">{fmtExact(t.items)}</b> item{t.items === 1 ? '' : 's'} ({scopeName})
            {t.distinct !== null ? ` · ${fmtExact(t.distinct)} different ${words.label.toLowerCase()}` : ''}
            {table.isFetching ? ' · updating…' : ''}
          </>
        ) : table.isFetching ? (
          `Counting ${words.label.toLowerCase()}…`
        ) : null}
      </div>
      <ErrorBox error={table.error} onRetry={() => void table.refetch()} />
      {!t && table.isLoading ? (
        <Skeleton rows={6} />
      ) : t && t.items === 0 ? (
        <Empty title="Nothing to count yet">
          No item matches what is being analysed ({scopeName}). Fetch something first, or analyse everything in the library.
          <span className="row gap">
            <button type="button" className="btn small" onClick={() => useUi.getState().setView('search')}>
              Go to Search
            </button>
            <button type="button" className="btn small" onClick={() => useAnalysis.getState().setScope({ kind: 'all' })}>
              Analyse everything
            </button>
          </span>
        </Empty>
      ) : t && t.rows.length === 0 ? (
        <Empty title={`No ${words.label.toLowerCase()} in these ${fmtExact(t.items)} items`}>
          Try another field: words or accounts are in almost every item.
        </Empty>
      ) : t ? (
        <div className="freq-scroll">
          <table className="mini freq" data-testid="frequency-table" aria-label={`Most frequent ${words.label.toLowerCase()}`}>
            <thead>
              <tr>
                <th scope="col">{words.term}</th>
                {COLUMNS.map((c) => (
                  <th key={c.id} scope="col" className={c.right ? 'right' : ''} aria-sort={ariaSort(c)} title={c.hint}>
                    <button type="button" className="th-sort" onClick={() => clickSort(c)} data-testid={`sort-${c.id}`}>
                      {c.label}
                      <span aria-hidden="true">{ariaSort(c) === 'descending' ? ' ↓' : ariaSort(c) === 'ascending' ? ' ↑' : ''}</span>
                    </button>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {t.rows.map((r) => (
                <tr
                  key={`${r.platform ?? ''}\u0000${r.term}`}
                  data-testid="frequency-row"
                  data-term={r.term}
                  data-count={r.count}
                  onClick={() => openInLibrary(r.query)}
                >
                  <th scope="row" className="term">
                    <button
                      type="button"
                      className="linklike"
                      onClick={(e) => (e.stopPropagation(), openInLibrary(r.query))}
                      title={`Show these ${fmtExact(r.count)} items in the Library`}
                      data-testid="frequency-open"
                    >
                      <bdi dir="auto">{showBidiControls(r.term)}</bdi>
                    </button>
                    {r.platform ? <span className="muted small"> · {r.platform}</span> : null}
                  </th>
                  {COLUMNS.map((c) => (
                    <td key={c.id} className={c.right ? 'right' : ''}>
                      {c.cell(r)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
