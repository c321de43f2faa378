/**
 * A plan's price before anything is spent: its figures (min, likely, max, requests, the pacer's
 * time, held pages, free calls), the curves the analyst can move (depth; top K of a set — a point
 * clicked, or the field beside it, sets it), the networks' parts (untick one to leave it out), and
 * every duplicate and unusable line with its reason.
 */
import { CartesianGrid, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { CollectCurvePoint, CollectPlan } from '../../../../shared/contract';
import { abbreviate, creditRange, duration, fmtExact } from '../../lib/format';
import { ChartBox, PALETTE } from '../../components/Charts';

const SHOWN = 200;
const tick = { fontSize: 11, fill: 'currentColor' };

function Curve({
  title,
  data,
  at,
  xLabel,
  onPick,
  testid,
}: {
  title: string;
  data: CollectCurvePoint[];
  at: number;
  xLabel: string;
  onPick: (x: number) => void;
  testid: string;
}) {
  return (
    <ChartBox title={title} testid={testid} empty={data.length < 2}>
      <ResponsiveContainer width="100%" height={170}>
        <LineChart
          data={data}
          margin={{ top: 6, right: 12, bottom: 2, left: 0 }}
          onClick={(s) => {
            const x = Number((s as { activeLabel?: unknown } | null)?.activeLabel);
            if (Number.isFinite(x) && x > 0) onPick(x);
          }}
        >
          <CartesianGrid strokeDasharray="3 3" opacity={0.3} />
          <XAxis
            dataKey="x"
            type="number"
            domain={['dataMin', 'dataMax']}
            allowDecimals={false}
            tick={tick}
            label={{ value: xLabel, position: 'insideBottomRight', offset: -2, fontSize: 11 }}
          />
          <YAxis tick={tick} tickFormatter={(v: number) => abbreviate(v)} width={44} />
          <Tooltip formatter={(v) => `${fmtExact(Number(v))} credits`} labelFormatter={(x) => `${xLabel}: ${x}`} />
          <ReferenceLine x={at} stroke="currentColor" strokeDasharray="4 2" />
          <Line type="monotone" dataKey="creditsMax" name="most" stroke={PALETTE[3]} dot={false} isAnimationActive={false} />
          <Line type="monotone" dataKey="creditsLikely" name="likely" stroke={PALETTE[0]} dot isAnimationActive={false} />
          <Line type="monotone" dataKey="creditsMin" name="least" stroke={PALETTE[2]} dot={false} isAnimationActive={false} />
        </LineChart>
      </ResponsiveContainer>
    </ChartBox>
  );
}

export function PlanFigures({
  plan,
  onDepth,
  onTopK,
  onNetworks,
  busy,
}: {
  plan: CollectPlan;
  onDepth: (n: number) => void;
  onTopK: (k: number) => void;
  onNetworks: (n: string[]) => void;
  busy: boolean;
}) {
  const f = plan.figures;
  const nets = [...new Set(plan.byNetwork.map((n) => n.platform))];
  return (
    <div className="panel" role="status" aria-live="polite" aria-busy={busy} data-testid="collect-plan">
      <div data-testid="collect-counts">
        <strong>{fmtExact(plan.inputs)}</strong> input{plan.inputs === 1 ? '' : 's'} to collect ·{' '}
        <strong>{fmtExact(plan.duplicates.length)}</strong> duplicate
        {plan.duplicates.length === 1 ? '' : 's'} · <strong>{fmtExact(plan.problems.length)}</strong> not usable · {fmtExact(plan.read)}{' '}
        read
        {plan.column ? ` (CSV column “${plan.column}”)` : ''}
        {plan.belowTopK ? ` · ${fmtExact(plan.belowTopK)} below the top ${plan.design.topK?.n} left out` : ''}
      </div>
      <div data-testid="collect-price">
        Before anything is spent: <strong>{creditRange(f.creditsMin, f.creditsMax)}</strong>, likely{' '}
        <strong>{fmtExact(f.creditsLikely)}</strong> · {fmtExact(f.requests)} request
        {f.requests === 1 ? '' : 's'}
        {f.etaMs > 0 ? `, at least ${duration(f.etaMs)} at the pacer’s pace` : ''}
        {f.heldPages ? ` · ${fmtExact(f.heldPages)} page${f.heldPages === 1 ? '' : 's'} already held (free)` : ''}
        {f.freeCalls ? ` · ${fmtExact(f.freeCalls)} free call${f.freeCalls === 1 ? '' : 's'}` : ''}
        {plan.approval.balance !== null ? ` · balance ${fmtExact(plan.approval.balance)}` : ''}
      </div>
      {plan.approval.needed ? (
        <div className="errtext">{plan.approval.reason} You will be asked before it runs — or give it a budget.</div>
      ) : null}
      {plan.warnings.map((w) => (
        <div key={w} className="muted small">
          {w}
        </div>
      ))}
      <div className="charts">
        <Curve
          title="Cost by pages per input (click to choose)"
          data={plan.curves.depth}
          at={plan.design.pages}
          xLabel="pages"
          onPick={onDepth}
          testid="collect-depth-curve"
        />
        {plan.curves.topK && plan.curves.topK.length > 1 ? (
          <Curve
            title="Cost by the top K of the set (click to choose)"
            data={plan.curves.topK}
            at={plan.design.topK?.n ?? plan.curves.topK[plan.curves.topK.length - 1].x}
            xLabel="K"
            onPick={onTopK}
            testid="collect-topk-curve"
          />
        ) : null}
      </div>
      {plan.byNetwork.length ? (
        <table className="mini" data-testid="collect-networks-table">
          <caption className="sr-only">The plan by network</caption>
          <thead>
            <tr>
              <th scope="col">Network</th>
              <th scope="col">Endpoint</th>
              <th scope="col">Inputs</th>
              <th scope="col">Credits</th>
              <th scope="col">Likely</th>
              <th scope="col">Requests</th>
            </tr>
          </thead>
          <tbody>
            {plan.byNetwork.map((n) => (
              <tr key={`${n.platform}/${n.endpoint}`}>
                <td>
                  {nets.length > 1 && plan.design.networks.length > 1 ? (
                    <label className="inline">
                      <input
                        type="checkbox"
                        checked
                        onChange={() => onNetworks(plan.design.networks.filter((x) => x !== n.platform))}
                        aria-label={`Leave ${n.platform} out`}
                      />{' '}
                      {n.platform}
                    </label>
                  ) : (
                    n.platform
                  )}
                </td>
                <td className="mono">{n.endpoint}</td>
                <td>{fmtExact(n.inputs)}</td>
                <td>{creditRange(n.creditsMin, n.creditsMax)}</td>
                <td>{fmtExact(n.creditsLikely)}</td>
                <td>{fmtExact(n.requests)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <details>
        <summary>How these figures are made</summary>
        <ul className="plain small">
          {plan.basis.map((b) => (
            <li key={b}>{b}</li>
          ))}
        </ul>
      </details>
      {plan.duplicates.length ? (
        <details open={plan.duplicates.length <= 10}>
          <summary>Duplicates (collected once)</summary>
          <ul className="plain small" data-testid="collect-duplicates" tabIndex={0} aria-label="Duplicates">
            {plan.duplicates.slice(0, SHOWN).map((d, i) => (
              <li key={i}>
                {d.line !== null ? `line ${d.line}` : d.text}: <bdi>{d.label}</bdi> —{' '}
                {d.sameAs === null ? 'already in the plan' : `same as line ${d.sameAs}`}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      {plan.problems.length ? (
        <details open={plan.problems.length <= 10}>
          <summary>Not usable, and why</summary>
          <ul className="plain small" data-testid="collect-problems" tabIndex={0} aria-label="Lines not usable">
            {plan.problems.slice(0, SHOWN).map((p, i) => (
              <li key={i}>
                {p.line !== null ? `line ${p.line}: ` : ''}
                <bdi className="mono">{p.text.length > 80 ? p.text.slice(0, 80) + '…' : p.text}</bdi> — {p.reason}
              </li>
            ))}
            {plan.problems.length > SHOWN ? <li>… and {fmtExact(plan.problems.length - SHOWN)} more</li> : null}
          </ul>
        </details>
      ) : null}
    </div>
  );
}
