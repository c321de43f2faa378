/**
 * The drawer's metric history (issue 29, docs/datasets.md "Metric history"): the item's five counts
 * each time they changed, as a small line chart over read time, and the same readings as a table
 * that screen readers read (the chart itself is a picture of that table). A count the network does
 * not give has no line and "—" in the table, never 0.
 */
import { useState } from 'react';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { ItemReading } from '../../../../shared/query';
import { ENGAGEMENT_FIELDS, type EngagementField } from '../../../../shared/contract-constants';
import { PALETTE } from '../../components/Charts';
import { abbreviate, fmtExact, utc } from '../../lib/format';

const tick = { fontSize: 11, fill: 'currentColor' };
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const cell = (v: number | null) => (v === null ? '—' : fmtExact(v));

/** The counts that have at least one known value in the readings. */
export function knownCounts(history: ItemReading[]): EngagementField[] {
  return ENGAGEMENT_FIELDS.filter((f) => history.some((r) => r[f] !== null));
}

/** One sentence of what changed from the first reading to the last (the chart's text alternative). */
export function historySummary(history: ItemReading[]): string {
  if (history.length === 0) return 'No readings.';
  const first = history[0];
  const last = history[history.length - 1];
  if (history.length === 1) return `One reading, ${utc(first.readAt)}.`;
  const moves = knownCounts(history)
    .map((f) => (first[f] !== null && last[f] !== null ? `${f} ${fmtExact(first[f])} → ${fmtExact(last[f])}` : null))
    .filter((s): s is string => s !== null);
  return `${history.length} readings from ${utc(first.readAt)} to ${utc(last.readAt)}${moves.length ? `: ${moves.join(', ')}` : ''}.`;
}

export function MetricHistory({
  history,
  checkedAt,
  missingSince,
}: {
  history: ItemReading[];
  checkedAt: number | null;
  missingSince: number | null;
}) {
  const counts = knownCounts(history);
  const [only, setOnly] = useState<EngagementField | 'all'>('all');
  const shown = only === 'all' ? counts : counts.filter((f) => f === only);
  const summary = historySummary(history);
  return (
    <section data-testid="metric-history">
      <h4>
        Metric history <span className="muted small">· {history.length === 1 ? 'one reading' : `${history.length} readings`}</span>
      </h4>
      <Availability checkedAt={checkedAt} missingSince={missingSince} />
      {history.length > 1 && counts.length > 0 ? (
        <>
          <div className="row gap small">
            <label className="muted" htmlFor="history-count">
              Count
            </label>
            <select
              id="history-count"
              value={only}
              onChange={(e) => setOnly(e.target.value as EngagementField | 'all')}
              data-testid="history-count"
            >
              <option value="all">all</option>
              {counts.map((f) => (
                <option key={f}>{f}</option>
              ))}
            </select>
          </div>
          <figure className="chart" role="img" aria-label={`Metric history: ${summary}`} data-testid="history-chart">
            <div className="chart-body" aria-hidden="true">
              <ResponsiveContainer width="100%" height={150}>
                <LineChart accessibilityLayer={false} data={history} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
                  <CartesianGrid strokeDasharray="2 4" stroke="#8884" />
                  <XAxis
                    dataKey="readAt"
                    type="number"
                    scale="time"
                    domain={['dataMin', 'dataMax']}
                    tick={tick}
                    tickFormatter={(v: number) => day(v)}
                    minTickGap={28}
                  />
                  <YAxis tick={tick} tickFormatter={(v: number) => abbreviate(v)} width={44} />
                  <Tooltip
                    labelFormatter={(v) => utc(Number(v))}
                    formatter={(v, name) => [fmtExact(Number(v)), String(name)]}
                    contentStyle={{ fontSize: 12 }}
                  />
                  <Legend wrapperStyle={{ fontSize: 11 }} />
                  {shown.map((f) => (
                    <Line
                      key={f}
                      type="stepAfter"
                      dataKey={f}
                      stroke={PALETTE[ENGAGEMENT_FIELDS.indexOf(f)]}
                      dot={{ r: 2 }}
                      strokeWidth={2}
                      connectNulls={false}
                      isAnimationActive={false}
                    />
                  ))}
                </LineChart>
              </ResponsiveContainer>
            </div>
          </figure>
        </>
      ) : (
        <div className="muted small">
          {history.length === 0 ? 'No readings kept for this item.' : `${summary} A new reading is kept each time the counts change.`}
        </div>
      )}
      <ReadingsTable history={history} summary={summary} />
    </section>
  );
}

/** Whether a re-check found the item: unavailable since when, or available when last re-checked. */
function Availability({ checkedAt, missingSince }: { checkedAt: number | null; missingSince: number | null }) {
  return (
    <>
      {missingSince !== null ? (
        <div className="small" data-testid="availability">
          <span className="chip tone-warn">unavailable</span> The service answered “not found” since {utc(missingSince)}
          {checkedAt !== null ? ` (last re-checked ${utc(checkedAt)})` : ''}: deleted or made private. Kept here, never deleted.
        </div>
      ) : checkedAt !== null ? (
        <div className="small muted" data-testid="availability">
          Available when last re-checked, {utc(checkedAt)}.
        </div>
      ) : null}
    </>
  );
}

/** One table of the readings: read by screen readers always, shown on the screen on demand. */
function ReadingsTable({ history, summary }: { history: ItemReading[]; summary: string }) {
  const [table, setTable] = useState(false);
  return (
    <>
      <button className="btn tiny ghost" aria-expanded={table} onClick={() => setTable(!table)} data-testid="history-table-toggle">
        {table ? 'Hide the readings' : `Show the readings (${history.length})`}
      </button>
      <table className={table ? 'mini' : 'mini sr-only'} data-testid="history-table">
        <caption className="sr-only">Each reading of the counts, oldest first: {summary}</caption>
        <thead>
          <tr>
            <th scope="col">read at (UTC)</th>
            {ENGAGEMENT_FIELDS.map((f) => (
              <th key={f} scope="col" className="right">
                {f}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {history.map((r) => (
            <tr key={r.readAt}>
              <th scope="row" className="mono small">
                {utc(r.readAt)}
              </th>
              {ENGAGEMENT_FIELDS.map((f) => (
                <td key={f} className="right">
                  {cell(r[f])}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
