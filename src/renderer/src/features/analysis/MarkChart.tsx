/**
 * A chart whose every mark opens the Library on exactly the items it counts (each mark carries
 * its library query: shared/analysis.ts ChartMark). Bars drawn by recharts; each bar is a
 * `<rect>` with its bucket, key and value as data attributes and a click handler. For the
 * keyboard (and screen readers), "Values" lists the same marks as a table of buttons.
 */
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { ChartMark, ChartSeries } from '../../../../shared/analysis';
import { ChartBox, PALETTE } from '../../components/Charts';
import { abbreviate, fmtExact } from '../../lib/format';
import { openInLibrary, pct } from './analysis-state';
import { present } from '../../../../shared/maps';

const tick = { fontSize: 11, fill: 'currentColor' };

export interface MarkChartProps {
  title: string;
  data: ChartSeries | undefined;
  /** words for a key (label values, platforms, count ranges) */
  keyWords?: (key: string) => string;
  /** 'share': bars are each key's share of the bucket (stacked to 100 %) */
  measure?: 'items' | 'share';
  stacked?: boolean;
  testid: string;
  height?: number;
  /** what a bucket is (x axis), for the values table */
  bucketTitle?: string;
}

interface ShapeProps {
  x?: number;
  y?: number;
  width?: number;
  height?: number;
  fill?: string;
  payload?: Record<string, unknown>;
}

export function MarkChart({
  title,
  data,
  keyWords = (k) => k,
  measure = 'items',
  stacked = true,
  testid,
  height = 200,
  bucketTitle = 'Period',
}: MarkChartProps) {
  const marks = data?.marks ?? [];
  const keys = data?.keys ?? [];
  const byId = new Map<string, ChartMark>();
  const buckets: string[] = [];
  const rows = new Map<string, Record<string, string | number>>();
  for (const m of marks) {
    byId.set(`${m.bucket}\u0000${m.key}`, m);
    let r = rows.get(m.bucket);
    if (!r) {
      rows.set(m.bucket, (r = { bucket: m.bucket }));
      buckets.push(m.bucket);
    }
    r[m.key] = measure === 'share' ? (m.share ?? 0) : m.value;
  }
  const rowList = buckets.map((b) => present(rows, b, 'bucket'));
  const fmt = (v: number) => (measure === 'share' ? pct(v, 0) : abbreviate(v));
  const open = (m: ChartMark | undefined) => m && openInLibrary(m.query);
  const describe = (m: ChartMark) =>
    `${keyWords(m.key)} · ${m.bucket}: ${fmtExact(m.value)} items${m.share !== undefined ? ` (${pct(m.share)})` : ''} — open them in the Library`;
  return (
    <ChartBox title={title} testid={testid} empty={marks.length === 0} note={<SetAside count={data?.setAside} testid={testid} />}>
      <ResponsiveContainer width="100%" height={height}>
        <BarChart data={rowList} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="2 4" stroke="#8884" />
          <XAxis dataKey="bucket" tick={tick} minTickGap={8} />
          <YAxis
            tick={tick}
            width={44}
            tickFormatter={(v: number) => fmt(v)}
            domain={measure === 'share' && stacked ? [0, 1] : undefined}
          />
          <Tooltip formatter={(v, name) => [fmt(Number(v)), String(name)]} contentStyle={{ fontSize: 12 }} />
          {keys.length > 1 ? <Legend wrapperStyle={{ fontSize: 11 }} /> : null}
          {keys.map((k, i) => (
            <Bar
              key={k}
              dataKey={k}
              name={keyWords(k)}
              stackId={stacked ? 'a' : undefined}
              fill={PALETTE[i % PALETTE.length]}
              isAnimationActive={false}
              shape={(p: ShapeProps) => {
                const bucket = String(p.payload?.bucket ?? '');
                const m = byId.get(`${bucket}\u0000${k}`);
                if (!m || !p.width || !p.height) return <g />;
                return (
                  <rect
                    x={p.x}
                    y={p.y}
                    width={p.width}
                    height={p.height}
                    fill={p.fill}
                    className="mark-rect"
                    data-testid="chart-mark"
                    data-bucket={bucket}
                    data-key={k}
                    data-value={m.value}
                    onClick={() => open(m)}
                  >
                    <title>{describe(m)}</title>
                  </rect>
                );
              }}
            />
          ))}
        </BarChart>
      </ResponsiveContainer>
      <details className="mark-values">
        <summary>Values (open any in the Library)</summary>
        <div className="freq-scroll">
          <table className="mini" data-testid={`${testid}-values`}>
            <thead>
              <tr>
                <th scope="col">{bucketTitle}</th>
                {keys.map((k) => (
                  <th key={k} scope="col" className="right" title={k}>
                    {keyWords(k)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {buckets.map((b) => (
                <tr key={b}>
                  <th scope="row">{b}</th>
                  {keys.map((k) => {
                    const m = byId.get(`${b}\u0000${k}`);
                    return (
                      <td key={k} className="right">
                        {m ? (
                          <button
                            type="button"
                            className="linklike num"
                            onClick={() => open(m)}
                            title={describe(m)}
                            data-testid="chart-value"
                          >
                            {fmtExact(m.value)}
                            {m.share !== undefined ? ` · ${pct(m.share, 0)}` : ''}
                          </button>
                        ) : (
                          <span className="muted">0</span>
                        )}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </ChartBox>
  );
}

/** Items whose date no chart can draw (before the year 1000, after November 9999): said, never dropped silently. */
export function SetAside({ count, testid }: { count: number | undefined; testid?: string }) {
  if (!count) return null;
  return (
    <p className="muted small" role="note" data-testid={testid ? `${testid}-set-aside` : 'dates-set-aside'}>
      {fmtExact(count)} {count === 1 ? 'item is' : 'items are'} not drawn: {count === 1 ? 'its' : 'their'} publication date is outside the
      years 1000–9999 (check the record in the Library).
    </p>
  );
}
