/** Usage: balance, free calls, charged vs not charged and why, spend per day / source / endpoint, the ledger. */
import { useState } from 'react';
import { fmtExact } from '../lib/format';
import { useLoupe } from '../queries/hooks';
import { useLedgerPages } from '../queries/calls';
import { useUi } from '../stores/ui';
import { Empty, ErrorBox, Skeleton } from '../components/cells';
import { SeriesChart } from '../components/Charts';
import { CallsTable, ledgerLine } from '../components/CallsTable';

const RANGES = [
  { label: 'all time', ms: 0 },
  { label: 'last 30 days', ms: 30 * 86400_000 },
  { label: 'last 7 days', ms: 7 * 86400_000 },
  { label: 'last 24 hours', ms: 86400_000 },
];

export function UsageView() {
  const [range, setRange] = useState(0);
  const [since] = useState(() => Date.now());
  const input = RANGES[range].ms ? { since: since - RANGES[range].ms } : {};
  const sum = useLoupe('usage.summary', input, { keepPrevious: true, refetchInterval: 15_000 });
  const live = useUi((s) => s.balance);
  const ledger = useLedgerPages();
  const rows = ledger.data?.pages.flat() ?? [];
  const s = sum.data;
  const bal = live ?? s?.balance;
  const nc = s?.notCharged;
  return (
    <div className="view">
      <div className="page">
        <div className="row gap">
          <h3 style={{ margin: 0 }}>Usage</h3>
          <select value={range} onChange={(e) => setRange(Number(e.target.value))} aria-label="Period">
            {RANGES.map((r, i) => (
              <option key={r.label} value={i}>
                {r.label}
              </option>
            ))}
          </select>
        </div>
        <ErrorBox error={sum.error} onRetry={() => void sum.refetch()} />
        {sum.isLoading ? <Skeleton rows={4} /> : null}
        {s ? (
          <>
            <div className="stats" data-testid="usage-stats">
              <Stat label="balance" v={bal?.creditsRemaining ?? null} testid="usage-balance" />
              <Stat label="free calls left" v={bal?.freeCallsRemaining ?? null} />
              <Stat label="credits spent" v={s.charged.credits} testid="usage-spent" />
              <Stat label="charged requests" v={s.charged.requests} />
            </div>
            <div className="panel" data-testid="not-charged">
              <strong>Not charged, and why</strong>
              <div className="stats">
                <Stat label="held in Loupe (archive)" v={nc?.fromArchive ?? null} />
                <Stat label="shared cache (free window)" v={nc?.cached ?? null} />
                <Stat label="idempotent replays" v={nc?.replay ?? null} />
                <Stat label="free calls" v={nc?.freeCall ?? null} />
                <Stat label="price quotes (dry run)" v={nc?.dryRun ?? null} />
                <Stat label="empty results" v={nc?.empty ?? null} />
                <Stat label="errors (never charged)" v={nc?.error ?? null} />
              </div>
            </div>
            <div className="charts">
              <SeriesChart title="Credits per day" data={s.perDay} kind="bar" testid="chart-per-day" unit="credits" />
              <SeriesChart
                title="Credits per source (view, watchlist)"
                data={s.perSource}
                kind="bar"
                testid="chart-per-source"
                unit="credits"
              />
              <SeriesChart title="Credits per endpoint" data={s.perEndpoint} kind="bar" testid="chart-per-endpoint" unit="credits" />
            </div>
          </>
        ) : null}
        <h4>Ledger</h4>
        {ledger.isLoading ? (
          <Skeleton rows={5} />
        ) : rows.length === 0 ? (
          <Empty title="No calls yet">
            Every call Loupe makes is recorded here with its request id and cost. Run a search (try “running shoes”) to see one.
          </Empty>
        ) : (
          <CallsTable lines={rows.map(ledgerLine)} testid="ledger" ledger />
        )}
        {ledger.hasNextPage ? (
          <button className="btn small" onClick={() => void ledger.fetchNextPage()} disabled={ledger.isFetchingNextPage}>
            Older entries
          </button>
        ) : null}
      </div>
    </div>
  );
}

function Stat({ label, v, testid }: { label: string; v: number | null; testid?: string }) {
  return (
    <div className="stat">
      <div className="v" title={v != null ? fmtExact(v) : 'not known yet'} data-testid={testid}>
        {v != null ? fmtExact(v) : '—'}
      </div>
      <div className="l">{label}</div>
    </div>
  );
}
