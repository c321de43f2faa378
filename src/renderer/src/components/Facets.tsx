/** Facets over what is loaded: label values with counts, relevance threshold. Applied instantly. */
import type { LibraryListRow } from '../../../shared/contract';
import { facetCounts } from '../lib/records';

export function Facets({
  rows,
  selected,
  onChange,
  relevanceMin,
  onRelevanceMin,
  showRelevance,
}: {
  rows: LibraryListRow[];
  selected: Set<string>;
  onChange: (s: Set<string>) => void;
  relevanceMin?: number;
  onRelevanceMin?: (v: number) => void;
  showRelevance?: boolean;
}) {
  const groups = facetCounts(rows);
  return (
    <aside className="facets" data-testid="facets" aria-label="Filters">
      {showRelevance && onRelevanceMin ? (
        <div className="facet-group">
          <div className="facet-title">Relevance ≥ {(relevanceMin ?? 0).toFixed(2)}</div>
          <input
            type="range"
            min={0}
            max={1}
            step={0.05}
            value={relevanceMin ?? 0}
            onChange={(e) => onRelevanceMin(Number(e.target.value))}
            aria-label="Minimum relevance"
            data-testid="facet-relevance"
          />
        </div>
      ) : null}
      {groups.every((g) => g.family === 'language') ? (
        <div className="muted small">Label filters appear when results carry labels.</div>
      ) : null}
      {groups.map((g) => (
        <div key={g.family} className="facet-group">
          <div className="facet-title">{g.family.replace(/_/g, ' ')}</div>
          {g.values.map((v) => (
            <label key={v.key} className="facet" data-testid={`facet-${v.key}`}>
              <input
                type="checkbox"
                checked={selected.has(v.key)}
                onChange={(e) => {
                  const s = new Set(selected);
                  if (e.target.checked) s.add(v.key);
                  else s.delete(v.key);
                  onChange(s);
                }}
              />
              <span className="facet-text">{v.text}</span>
              <span className="facet-count num">{v.count}</span>
            </label>
          ))}
        </div>
      ))}
      {selected.size > 0 || (relevanceMin ?? 0) > 0 ? (
        <button
          className="btn small ghost"
          onClick={() => {
            onChange(new Set());
            onRelevanceMin?.(0);
          }}
        >
          Clear filters
        </button>
      ) : null}
    </aside>
  );
}
