/** Results of a walk or a query: facets on the left, table or cards, drawer opens on click. */
import { useMemo, useState } from 'react';
import type { LibraryListRow } from '../../../shared/contract';
import type { LibraryQuery } from '../../../shared/query';
import { ViewExport } from '../components/ViewExport';
import { applyFacets } from '../lib/records';
import { Facets } from '../components/Facets';
import { ResultsTable, type TableVariant } from '../components/ResultsTable';
import { Cards } from '../components/Cards';

export function ResultsPane({
  rows,
  variant,
  hasMore,
  fetchingMore,
  onLoadMore,
  showRelevance,
  allowCards = true,
  threaded,
  initialMode = 'table',
  extraTools,
  exportQuery,
  exportWhat,
}: {
  rows: LibraryListRow[];
  variant: TableVariant;
  hasMore?: boolean;
  fetchingMore?: boolean;
  onLoadMore?: () => void;
  showRelevance?: boolean;
  allowCards?: boolean;
  threaded?: boolean;
  initialMode?: 'table' | 'cards';
  extraTools?: React.ReactNode;
  /** the view's query: "Export…" exports every row of it held in the archive that the facets show (issue 27 #12) */
  exportQuery?: LibraryQuery | null;
  /** the results in words, for the export's note ("this search's results") */
  exportWhat?: string;
}) {
  const [sel, setSel] = useState<Set<string>>(new Set());
  const [relMin, setRelMin] = useState(0);
  const [mode, setMode] = useState<'table' | 'cards'>(initialMode);
  const [exporting, setExporting] = useState(false);
  const shown = useMemo(() => applyFacets(rows, sel, showRelevance ? relMin : null), [rows, sel, relMin, showRelevance]);
  return (
    <div className="results">
      <Facets rows={rows} selected={sel} onChange={setSel} relevanceMin={relMin} onRelevanceMin={setRelMin} showRelevance={showRelevance} />
      <div className="results-main">
        <div className="row gap results-tools">
          {allowCards ? (
            <div className="seg" role="group" aria-label="View as">
              <button
                className={mode === 'table' ? 'on' : ''}
                onClick={() => setMode('table')}
                aria-pressed={mode === 'table'}
                data-testid="mode-table"
              >
                Table
              </button>
              <button
                className={mode === 'cards' ? 'on' : ''}
                onClick={() => setMode('cards')}
                aria-pressed={mode === 'cards'}
                data-testid="mode-cards"
              >
                Cards
              </button>
            </div>
          ) : null}
          {shown.length !== rows.length ? (
            <span className="muted small" data-testid="filtered-count">
              {shown.length} of {rows.length} loaded rows match the filters
            </span>
          ) : null}
          <div className="spacer" />
          {extraTools}
          {exportQuery ? (
            <button className="btn small" onClick={() => setExporting(!exporting)} aria-expanded={exporting} data-testid="view-export-open">
              Export…
            </button>
          ) : null}
        </div>
        {exportQuery && exporting ? (
          <ViewExport
            query={exportQuery}
            what={exportWhat ?? (variant === 'comment' ? 'these comments' : showRelevance ? 'this search’s results' : 'these posts')}
            selected={sel}
            relevanceMin={showRelevance ? relMin : null}
            loaded={rows.length}
            onClose={() => setExporting(false)}
          />
        ) : null}
        {mode === 'cards' ? (
          <Cards rows={shown} hasMore={hasMore} onLoadMore={onLoadMore} fetchingMore={fetchingMore} />
        ) : (
          <ResultsTable
            rows={shown}
            variant={variant}
            hasMore={hasMore}
            onLoadMore={onLoadMore}
            fetchingMore={fetchingMore}
            threaded={threaded}
          />
        )}
      </div>
    </div>
  );
}
