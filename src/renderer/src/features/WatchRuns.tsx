/**
 * A watchlist's runs and items (issue 27 #1, #2): the run history with its alerts column, each
 * run's new items and alert matches one click away, and the items pane with a "new in this run"
 * filter. A run's items are the library's `source: { type: 'watchlist', id, run }`.
 */
import type { WatchlistInfo, WatchRunInfo } from '../../../shared/contract';
import type { LibraryQuery } from '../../../shared/query';
import { fmtExact, utc } from '../lib/format';
import { useLibraryRows } from '../queries/hooks';
import { Empty, When } from '../components/cells';
import { ResultsPane } from './ResultsPane';

/** What the items pane shows: every item, or one run's new items (optionally only its alert matches). */
export interface RunView {
  runId: string;
  alertsOnly: boolean;
}

/** The library query of a list's items, or of one run's. */
export function runItemsQuery(w: Pick<WatchlistInfo, 'id' | 'alert'>, view: RunView | null): LibraryQuery {
  const source = { type: 'watchlist' as const, id: w.id, ...(view ? { run: view.runId } : {}) };
  return view?.alertsOnly && w.alert?.length ? { source, labels: w.alert } : { source };
}

function Count({ n, label, onOpen, testid }: { n: number; label: string; onOpen: () => void; testid: string }) {
  if (n === 0) return <>0</>;
  return (
    <button type="button" className="linklike num" onClick={onOpen} aria-label={label} data-testid={testid}>
      {fmtExact(n)}
    </button>
  );
}

export function RunHistory({ w, runs, open }: { w: WatchlistInfo; runs: WatchRunInfo[]; open: (v: RunView) => void }) {
  return (
    <div className="panel">
      <strong>Run history</strong>
      {runs.length === 0 ? <div className="muted small">Not run yet.</div> : null}
      <table className="mini" data-testid="watchlist-history">
        <thead>
          <tr>
            <th>Started</th>
            <th>Status</th>
            <th className="right">Credits</th>
            <th className="right">New</th>
            <th className="right">Alerts</th>
            <th>Completeness</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.runId} data-testid="run-row">
              <td>
                <When v={r.startedAt} />
              </td>
              <td>
                <span className={`status s-${r.status}`}>{r.status}</span>
              </td>
              <td className="right num">{fmtExact(r.creditsSpent)}</td>
              <td className="right num">
                <Count
                  n={r.newItems}
                  label={`Show the ${fmtExact(r.newItems)} items new in the run of ${utc(r.startedAt)}`}
                  onOpen={() => open({ runId: r.runId, alertsOnly: false })}
                  testid="run-new"
                />
              </td>
              <td className="right num">
                {w.alert?.length ? (
                  <Count
                    n={r.alerts ?? 0}
                    label={`Show the ${fmtExact(r.alerts ?? 0)} new items of the run of ${utc(r.startedAt)} that match the alert`}
                    onOpen={() => open({ runId: r.runId, alertsOnly: true })}
                    testid="run-alerts"
                  />
                ) : (
                  <span className="muted" title="This list has no alert">
                    —
                  </span>
                )}
              </td>
              <td>
                {r.watches.every((x) => x.complete) ? (
                  'complete'
                ) : (
                  <span className="errtext">
                    {r.watches
                      .filter((x) => !x.complete)
                      .map((x) => x.gap ?? `${x.watchId}: incomplete`)
                      .join('; ')}
                  </span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The list's items, or one run's: "All items" / "New in the last run", and which run is shown. */
export function WatchItems({
  w,
  runs,
  view,
  setView,
}: {
  w: WatchlistInfo;
  runs: WatchRunInfo[];
  view: RunView | null;
  setView: (v: RunView | null) => void;
}) {
  const rows = useLibraryRows(runItemsQuery(w, view));
  const loaded = rows.data?.pages.flatMap((p) => p.rows) ?? [];
  const last = runs.find((r) => r.status !== 'running' && r.status !== 'over_budget') ?? null;
  const run = view ? (runs.find((r) => r.runId === view.runId) ?? null) : null;
  return (
    <>
      <div className="row gap wrap" role="group" aria-label="Which items" data-testid="watch-items-filter">
        <button
          type="button"
          className={`btn small ${view ? '' : 'primary'}`}
          aria-pressed={!view}
          onClick={() => setView(null)}
          data-testid="watch-items-all"
        >
          All items
        </button>
        <button
          type="button"
          className={`btn small ${view && view.runId === last?.runId && !view.alertsOnly ? 'primary' : ''}`}
          aria-pressed={!!view && view.runId === last?.runId && !view.alertsOnly}
          disabled={!last}
          onClick={() => last && setView({ runId: last.runId, alertsOnly: false })}
          data-testid="watch-items-last-run"
        >
          New in the last run
        </button>
        <span className="muted small" data-testid="watch-items-caption">
          {view && run ? (
            <>
              {view.alertsOnly ? 'Alert matches among the items new in the run started ' : 'Items new in the run started '}
              <When v={run.startedAt} /> ({fmtExact(view.alertsOnly ? (run.alerts ?? 0) : run.newItems)})
            </>
          ) : view ? (
            'Items new in a run no longer in the history'
          ) : (
            'Every item the list holds'
          )}
        </span>
      </div>
      <div
        style={{
          height: 420,
          display: 'flex',
          flexDirection: 'column',
          border: '1px solid var(--line)',
          borderRadius: 8,
          overflow: 'hidden',
        }}
      >
        {loaded.length ? (
          <ResultsPane
            rows={loaded}
            variant="post"
            hasMore={rows.hasNextPage}
            fetchingMore={rows.isFetchingNextPage}
            onLoadMore={() => void rows.fetchNextPage()}
          />
        ) : view ? (
          <Empty title="Nothing new in this run">{rows.isLoading ? 'Loading…' : 'This run found no new items for the list.'}</Empty>
        ) : (
          <Empty title="No items yet">Run the watchlist to fetch its items.</Empty>
        )}
      </div>
    </>
  );
}
