/** Results of a walk or a query: facets on the left, table or cards, drawer opens on click. */
import { useMemo, useState } from 'react';
import type { LibraryListRow } from '../../../shared/contract';
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
}) {
  const [sel, setSel] = useState<Set<string>>(new Set());
  const [relMin, setRelMin] = useState(0);
  const [mode, setMode] = useState<'table' | 'cards'>(initialMode);
  const shown = useMemo(() => applyFacets(rows, sel, showRelevance ? relMin : null), [rows, sel, relMin, showRelevance]);
  return (
    <div className="results">
      <Facets rows={rows} selected={sel} onChange={setSel} relevanceMin={relMin} onRelevanceMin={setRelMin} showRelevance={showRelevance} />
      <div className="results-main">
        <div className="row gap results-tools">
          {allowCards ? (
            <div className="seg" role="group" aria-label="View as">
              <button className={mode === 'table' ? 'on' : ''} onClick={() => setMode('table')} aria-pressed={mode === 'table'} data-testid="mode-table">
                Table
              </button>
              <button className={mode === 'cards' ? 'on' : ''} onClick={() => setMode('cards')} aria-pressed={mode === 'cards'} data-testid="mode-cards">
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
        </div>
        {mode === 'cards' ? (
          <Cards rows={shown} hasMore={hasMore} onLoadMore={onLoadMore} fetchingMore={fetchingMore} />
        ) : (
          <ResultsTable rows={shown} variant={variant} hasMore={hasMore} onLoadMore={onLoadMore} fetchingMore={fetchingMore} threaded={threaded} />
        )}
      </div>
    </div>
  );
}
