/** Small charts (recharts): series over time, distributions. Colours work on both themes; titles carry the meaning. */
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { SeriesPoint } from '../../../shared/contract';
import { abbreviate, fmtExact } from '../lib/format';
import { bucketWords } from '../lib/words';

export const PALETTE = ['#4f8cc9', '#d9822b', '#3fa66a', '#c9514f', '#8a6fc9', '#3aa6a6', '#b3a03a', '#888888'];

const tick = { fontSize: 11, fill: 'currentColor' };

export function ChartBox({
  title,
  children,
  testid,
  empty,
  note,
}: {
  title: string;
  children: React.ReactNode;
  testid?: string;
  empty?: boolean;
  note?: React.ReactNode;
}) {
  return (
    <figure className="chart" data-testid={testid}>
      <figcaption>{title}</figcaption>
      {note}
      {empty ? <div className="chart-empty muted small">No data yet.</div> : <div className="chart-body">{children}</div>}
    </figure>
  );
}

export function SeriesChart({
  title,
  data,
  kind = 'line',
  testid,
  unit,
  height = 170,
  label,
}: {
  title: string;
  data: SeriesPoint[] | undefined;
  kind?: 'line' | 'bar';
  testid?: string;
  unit?: string;
  height?: number;
  /** the buckets are values of this label field: shown in words, "not judged" instead of null */
  label?: { family: string; field: string };
}) {
  const d = (data ?? []).map((p) => ({
    bucket: p.bucket && p.bucket.length > 10 && /^\d{4}-/.test(p.bucket) ? p.bucket.slice(0, 10) : bucketWords(p.bucket, label),
    value: p.value,
  }));
  return (
    <ChartBox title={title} testid={testid} empty={d.length === 0}>
      <ResponsiveContainer width="100%" height={height}>
        {kind === 'line' ? (
          <LineChart data={d} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="2 4" stroke="#8884" />
            <XAxis dataKey="bucket" tick={tick} minTickGap={24} />
            <YAxis tick={tick} tickFormatter={(v: number) => abbreviate(v)} width={44} />
            <Tooltip formatter={(v) => [fmtExact(Number(v)) + (unit ? ` ${unit}` : ''), title]} contentStyle={{ fontSize: 12 }} />
            <Line type="monotone" dataKey="value" stroke={PALETTE[0]} dot={false} strokeWidth={2} isAnimationActive={false} />
          </LineChart>
        ) : (
          <BarChart data={d} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="2 4" stroke="#8884" />
            <XAxis dataKey="bucket" tick={tick} minTickGap={4} interval="preserveStartEnd" />
            <YAxis tick={tick} tickFormatter={(v: number) => abbreviate(v)} width={44} />
            <Tooltip formatter={(v) => [fmtExact(Number(v)) + (unit ? ` ${unit}` : ''), title]} contentStyle={{ fontSize: 12 }} />
            <Bar dataKey="value" fill={PALETTE[0]} isAnimationActive={false} />
          </BarChart>
        )}
      </ResponsiveContainer>
    </ChartBox>
  );
}

/** Stacked bars: rows of { bucket, [series]: count } */
export function StackedChart({
  title,
  data,
  series,
  testid,
  height = 170,
}: {
  title: string;
  data: Array<Record<string, string | number>>;
  series: string[];
  testid?: string;
  height?: number;
}) {
  series = series.map((s) => (s === 'null' || s === '' ? 'not judged' : s));
  data = data.map((row) =>
    'null' in row ? Object.fromEntries(Object.entries(row).map(([k, v]) => [k === 'null' ? 'not judged' : k, v])) : row,
  );
  return (
    <ChartBox title={title} testid={testid} empty={data.length === 0}>
      <ResponsiveContainer width="100%" height={height}>
        <BarChart data={data} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="2 4" stroke="#8884" />
          <XAxis dataKey="bucket" tick={tick} minTickGap={8} />
          <YAxis tick={tick} width={36} allowDecimals={false} />
          <Tooltip contentStyle={{ fontSize: 12 }} />
          <Legend wrapperStyle={{ fontSize: 11 }} />
          {series.map((s, i) => (
            <Bar key={s} dataKey={s} stackId="a" fill={SERIES_COLOURS[s] ?? PALETTE[i % PALETTE.length]} isAnimationActive={false} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </ChartBox>
  );
}

const SERIES_COLOURS: Record<string, string> = { positive: '#3fa66a', negative: '#c9514f', neutral: '#888888', mixed: '#d9822b' };
