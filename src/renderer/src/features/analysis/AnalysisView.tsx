/**
 * Analysis (issue 16): frequency tables, comparisons, overperformance and library charts over
 * what the Library offers — its current filters, a saved result set, a watchlist's items, or
 * everything. Every row and mark opens the Library on exactly the items it counts.
 */
import { useMemo } from 'react';
import type { LibraryQuery } from '../../../../shared/query';
import { fmtExact } from '../../lib/format';
import { useLoupe } from '../../queries/hooks';
import { useLibrary, withoutPaging } from '../../stores/library';
import { useUi } from '../../stores/ui';
import { describeQuery, TABS, useAnalysis, type Scope } from './analysis-state';
import { FrequencyPanel } from './FrequencyPanel';
import { ComparePanel } from './ComparePanel';
import { OverperformancePanel } from './OverperformancePanel';
import { ChartsPanel } from './ChartsPanel';
import { SourceOptions } from './SourceOptions';
import { IndexProgress } from './IndexProgress';
import './analysis.css';

const scopeValue = (s: Scope): string => (s.kind === 'set' || s.kind === 'watchlist' ? `${s.kind}:${s.id}` : s.kind);

function parseScope(v: string): Scope {
  const i = v.indexOf(':');
  if (i < 0) return v === 'all' ? { kind: 'all' } : { kind: 'library' };
  const kind = v.slice(0, i);
  return kind === 'set' ? { kind: 'set', id: v.slice(i + 1) } : { kind: 'watchlist', id: v.slice(i + 1) };
}

/** The scope's query and its name in words. */
export function useScope(): { query: LibraryQuery; name: string; missing: boolean } {
  const scope = useAnalysis((s) => s.scope);
  const libQ = useLibrary((s) => s.q);
  const sets = useLoupe('library.resultSets', {}, { staleTime: 30_000 });
  const lists = useLoupe('watchlists.list', {}, { staleTime: 30_000 });
  return useMemo(() => {
    switch (scope.kind) {
      case 'all':
        return { query: {}, name: 'everything in the library', missing: false };
      case 'library': {
        const q = withoutPaging(libQ);
        return {
          query: q,
          name: Object.keys(q).length ? `the Library’s filters: ${describeQuery(q)}` : 'everything in the library (no Library filter)',
          missing: false,
        };
      }
      case 'set': {
        const rs = sets.data?.find((x) => x.id === scope.id);
        return rs
          ? { query: withoutPaging(rs.query), name: `saved set “${rs.name}”`, missing: false }
          : { query: {}, name: 'a saved set', missing: true };
      }
      case 'watchlist': {
        const wl = lists.data?.find((x) => x.id === scope.id);
        return {
          query: { source: { type: 'watchlist', id: scope.id } },
          name: `watchlist “${wl?.name ?? scope.id}”`,
          missing: !wl && !!lists.data,
        };
      }
    }
  }, [scope, libQ, sets.data, lists.data]);
}

export function AnalysisView() {
  const { scope, setScope, tab, setTab } = useAnalysis();
  const sets = useLoupe('library.resultSets', {}, { staleTime: 30_000 });
  const lists = useLoupe('watchlists.list', {}, { staleTime: 30_000 });
  const { query, name, missing } = useScope();
  const count = useLoupe('library.count', query, { keepPrevious: true, enabled: !missing });
  const onTabKey = (e: React.KeyboardEvent) => {
    if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
    e.preventDefault();
    const i = TABS.findIndex((t) => t.id === tab);
    const next = TABS[(i + (e.key === 'ArrowRight' ? 1 : TABS.length - 1)) % TABS.length];
    setTab(next.id);
    document.getElementById(`analysis-tab-${next.id}`)?.focus();
  };
  return (
    <div className="view">
      <div className="controls">
        <div className="row gap wrap">
          <label className="field inline">
            <span className="field-label">Analyse</span>
            <select
              value={scopeValue(scope)}
              onChange={(e) => setScope(parseScope(e.target.value))}
              data-testid="analysis-scope"
              data-main-query
            >
              <option value="library">the Library’s current filters</option>
              <option value="all">everything in the library</option>
              <SourceOptions sets={sets.data} lists={lists.data} listsLabel="Watchlists (the items they fetched)" />
            </select>
          </label>
          <span className="muted small" data-testid="analysis-scope-count" title={JSON.stringify(query)}>
            {missing
              ? 'This saved set or watchlist no longer exists — pick another.'
              : `${count.data !== undefined ? fmtExact(count.data) : '…'} items · ${name}`}
          </span>
          <div className="spacer" />
          {scope.kind === 'library' ? (
            <button
              type="button"
              className="btn small ghost"
              onClick={() => useUi.getState().setView('library')}
              title="Change the filters in the Library; Analysis follows them"
            >
              Edit filters in the Library
            </button>
          ) : null}
        </div>
        <div className="tabs" role="tablist" aria-label="Analyses" onKeyDown={onTabKey}>
          {TABS.map((t) => (
            <button
              key={t.id}
              id={`analysis-tab-${t.id}`}
              type="button"
              role="tab"
              aria-selected={tab === t.id}
              aria-controls="analysis-tabpanel"
              tabIndex={tab === t.id ? 0 : -1}
              className={`tab ${tab === t.id ? 'on' : ''}`}
              onClick={() => setTab(t.id)}
              data-testid={`analysis-tab-${t.id}`}
            >
              {t.label}
            </button>
          ))}
        </div>
        <IndexProgress />
      </div>
      <div className="page" id="analysis-tabpanel" role="tabpanel" aria-labelledby={`analysis-tab-${tab}`}>
        {missing ? null : tab === 'frequency' ? (
          <FrequencyPanel query={query} scopeName={name} />
        ) : tab === 'compare' ? (
          <ComparePanel scopeQuery={query} />
        ) : tab === 'overperformance' ? (
          <OverperformancePanel query={query} scopeName={name} />
        ) : (
          <ChartsPanel query={query} />
        )}
      </div>
    </div>
  );
}
