/**
 * Attrition in the app (issue 29, docs/datasets.md "Re-check and attrition"): for the Library's
 * current query or a saved set, how many items are available, unavailable (the service answered
 * "not found": deleted or made private) or not re-checked, by publication month and network — a
 * stacked chart, the same counts as a table, and the CSV `loupe dataset attrition` writes. "Re-check"
 * reads the items again through each network's single-item endpoint: priced first (free), asked in
 * the app's confirm dialog, and run with that price as its ceiling; nothing is spent unless approved.
 */
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { AttritionRow, DatasetTarget, RecheckResult } from '../../../../shared/contract-datasets';
import type { LibraryQuery } from '../../../../shared/query';
import { csvTable } from '../../../../shared/analysis-csv';
import { api, errorText } from '../../lib/api';
import { creditRange, fmtExact } from '../../lib/format';
import { useLoupe } from '../../queries/hooks';
import { invalidate } from '../../queries/keys';
import { useUi } from '../../stores/ui';
import { ChartBox } from '../../components/Charts';
import { ErrorBox, ErrorText } from '../../components/cells';
import { PanelHead } from '../../components/Controls';
import { downloadText } from '../analysis/analysis-state';

const SERIES = [
  { key: 'available', words: 'available', colour: '#3fa66a' },
  { key: 'unavailable', words: 'unavailable', colour: '#c9514f' },
  { key: 'notRechecked', words: 'not re-checked', colour: '#888888' },
] as const;
const tick = { fontSize: 11, fill: 'currentColor' };

/** The CSV of `loupe dataset attrition` (platform, month, available, unavailable, not_rechecked). */
export function attritionCsv(rows: AttritionRow[]): string {
  return csvTable(
    ['platform', 'month', 'available', 'unavailable', 'not_rechecked'],
    rows.map((r) => [r.platform, r.month, r.available, r.unavailable, r.notRechecked]),
  );
}

/** Rows of one network (or all) summed by month, oldest first; an unknown month last. */
export function byMonth(
  rows: AttritionRow[],
  platform: string | null,
): Array<{ month: string; available: number; unavailable: number; notRechecked: number }> {
  const m = new Map<string, { month: string; available: number; unavailable: number; notRechecked: number }>();
  for (const r of rows) {
    if (platform !== null && r.platform !== platform) continue;
    const k = r.month ?? 'no date';
    const e = m.get(k) ?? { month: k, available: 0, unavailable: 0, notRechecked: 0 };
    e.available += r.available;
    e.unavailable += r.unavailable;
    e.notRechecked += r.notRechecked;
    m.set(k, e);
  }
  return [...m.values()].sort((a, b) => (a.month === 'no date' ? 1 : b.month === 'no date' ? -1 : a.month.localeCompare(b.month)));
}

export function attritionWords(rows: AttritionRow[]): string {
  const t = rows.reduce((s, r) => ({ a: s.a + r.available, u: s.u + r.unavailable, n: s.n + r.notRechecked }), { a: 0, u: 0, n: 0 });
  const all = t.a + t.u + t.n;
  const pct = (x: number) => (all === 0 ? '0' : ((100 * x) / all).toFixed(1));
  return `${fmtExact(all)} item${all === 1 ? '' : 's'}: ${fmtExact(t.a)} available (${pct(t.a)} %), ${fmtExact(t.u)} unavailable (${pct(t.u)} %), ${fmtExact(t.n)} not re-checked (${pct(t.n)} %).`;
}

export function AttritionPanel({ query, onClose }: { query: LibraryQuery; onClose: () => void }) {
  const sets = useLoupe('library.resultSets', {});
  const [set, setSet] = useState('');
  const [platform, setPlatform] = useState<string | null>(null);
  const target: DatasetTarget = set ? { set } : { query };
  const q = useLoupe('datasets.attrition', { target }, { keepPrevious: true });
  const rows = q.data ?? [];
  const networks = [...new Set(rows.map((r) => r.platform))].sort();
  const data = byMonth(rows, platform);
  const name = set ? `“${sets.data?.find((s) => s.id === set)?.name ?? set}”` : 'the rows matching the current filters';
  return (
    <div className="panel" data-testid="attrition-panel">
      <PanelHead
        title="Attrition"
        note={`${name} · which items the service still has · free (local)`}
        onClose={onClose}
        closeLabel="Close attrition"
      />
      <div className="row gap wrap">
        <label className="field inline">
          <span className="field-label">Of</span>
          <select value={set} onChange={(e) => setSet(e.target.value)} data-testid="attrition-target">
            <option value="">the current filters</option>
            {(sets.data ?? []).map((s) => (
              <option key={s.id} value={s.id}>
                saved set “{s.name}”
              </option>
            ))}
          </select>
        </label>
        <label className="field inline">
          <span className="field-label">Network</span>
          <select value={platform ?? ''} onChange={(e) => setPlatform(e.target.value || null)} data-testid="attrition-network">
            <option value="">all</option>
            {networks.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </select>
        </label>
        <button
          className="btn small"
          disabled={rows.length === 0}
          onClick={() => downloadText(`attrition-${new Date().toISOString().slice(0, 10)}.csv`, attritionCsv(rows))}
          data-testid="attrition-export"
          title="By network and month, as `loupe dataset attrition` writes it"
        >
          Export CSV
        </button>
        <RecheckButton target={target} name={name} />
      </div>
      <ErrorBox error={q.error} onRetry={() => void q.refetch()} />
      <div className="small" role="status" data-testid="attrition-words">
        {q.data ? attritionWords(platform === null ? rows : rows.filter((r) => r.platform === platform)) : '…'}
      </div>
      <ChartBox title="Items by publication month" testid="attrition-chart" empty={data.length === 0}>
        <div aria-hidden="true">
          <ResponsiveContainer width="100%" height={170}>
            <BarChart accessibilityLayer={false} data={data} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
              <CartesianGrid strokeDasharray="2 4" stroke="#8884" />
              <XAxis dataKey="month" tick={tick} minTickGap={8} />
              <YAxis tick={tick} width={40} allowDecimals={false} />
              <Tooltip contentStyle={{ fontSize: 12, background: '#fff', color: '#222' }} itemStyle={{ color: '#222' }} />
              <Legend wrapperStyle={{ fontSize: 11 }} />
              {SERIES.map((s) => (
                <Bar key={s.key} dataKey={s.key} name={s.words} stackId="a" fill={s.colour} isAnimationActive={false} />
              ))}
            </BarChart>
          </ResponsiveContainer>
        </div>
      </ChartBox>
      <AttritionTable rows={platform === null ? rows : rows.filter((r) => r.platform === platform)} />
    </div>
  );
}

function AttritionTable({ rows }: { rows: AttritionRow[] }) {
  return (
    <details>
      <summary className="small">By network and month ({rows.length} rows)</summary>
      <table className="mini" data-testid="attrition-table">
        <thead>
          <tr>
            <th scope="col">network</th>
            <th scope="col">month</th>
            {SERIES.map((s) => (
              <th key={s.key} scope="col" className="right">
                {s.words}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={`${r.platform} ${r.month}`}>
              <td>{r.platform}</td>
              <td>{r.month ?? 'no date'}</td>
              {SERIES.map((s) => (
                <td key={s.key} className="right num">
                  {fmtExact(r[s.key])}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}

/** Re-check: the plan priced (free), the confirm dialog with that price, then the run with it as the ceiling. */
function RecheckButton({ target, name }: { target: DatasetTarget; name: string }) {
  const qc = useQueryClient();
  const [busy, setBusy] = useState<'pricing' | 'running' | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const [done, setDone] = useState<RecheckResult | null>(null);
  const go = async () => {
    setErr(null);
    setDone(null);
    setBusy('pricing');
    try {
      const p = await api.call('datasets.recheckPlan', { target });
      const f = p.plan.figures;
      const ok = await useUi.getState().ask({
        title: `Re-check ${name}?`,
        lines: [
          `${fmtExact(p.plan.inputs)} of ${fmtExact(p.items)} item${p.items === 1 ? '' : 's'} read again through each network’s single-item endpoint, ${fmtExact(f.requests)} request${f.requests === 1 ? '' : 's'}.`,
          `Could cost ${creditRange(f.creditsMin, f.creditsMax)}; likely ${fmtExact(f.creditsLikely)}.${f.heldPages ? ` ${fmtExact(f.heldPages)} answer${f.heldPages === 1 ? '' : 's'} already held: free.` : ''}`,
          p.notRecheckableCount
            ? `${fmtExact(p.notRecheckableCount)} cannot be re-checked (${p.notRecheckable[0]?.reason ?? 'no single-item endpoint'}) and stay “not re-checked”.`
            : '',
          'Not found marks an item unavailable; nothing is deleted.',
        ].filter(Boolean),
        okLabel: `Re-check — up to ${fmtExact(f.creditsMax)} credits`,
      });
      if (!ok) return;
      setBusy('running');
      const r = await api.call('datasets.recheck', { target, approved: true, budget: f.creditsMax });
      setDone(r);
      invalidate(qc, 'datasets', 'library', 'usage', 'collect');
    } catch (e) {
      setErr(errorText(e));
    } finally {
      setBusy(null);
    }
  };
  return (
    <>
      <button
        className="btn small"
        disabled={busy !== null}
        onClick={() => void go()}
        data-testid="recheck"
        title="Read the items again (priced first; you are asked before anything is spent)"
      >
        {busy === 'pricing' ? 'Pricing…' : busy === 'running' ? 'Re-checking…' : 'Re-check…'}
      </button>
      {done ? (
        <span className="small" role="status" data-testid="recheck-result">
          Re-checked: {fmtExact(done.found)} found, {fmtExact(done.missing)} not found (unavailable), {fmtExact(done.notRead)} not read
          {done.status.status === 'partial' || done.status.status === 'cancelled'
            ? ` — ${done.status.status}; continue it in Collect (“${done.status.name}”)`
            : ''}
          .
        </span>
      ) : null}
      <ErrorText text={err} testid="recheck-error" />
    </>
  );
}
