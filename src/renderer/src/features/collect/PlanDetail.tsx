/**
 * A saved plan: how far its run got (inputs done of total, credits spent against the plan's
 * figures, the pacer's minimum for what is left), run / continue / cancel, its results one click
 * from the Library and Analysis, and its inputs with their states and reasons.
 */
import { useState } from 'react';
import type { CollectInputState, CollectStatus, CollectStatusWord } from '../../../../shared/contract';
import { COLLECT_DO_WORDS, COLLECT_INPUT_STATES } from '../../../../shared/collect-words';
import { aboveAsk } from '../../../../shared/spend-policy';
import { errorText } from '../../lib/api';
import { creditRange, duration, fmtExact } from '../../lib/format';
import { useLoupe, useSettings } from '../../queries/hooks';
import { useCollectMutations } from '../../queries/collect';
import { useLibrary } from '../../stores/library';
import { useAnalysis } from '../analysis/analysis-state';
import { useUi } from '../../stores/ui';
import { ErrorBox } from '../../components/cells';

const WORDS: Record<CollectStatusWord, string> = {
  planned: 'planned — nothing spent yet',
  running: 'running',
  interrupted: 'interrupted — run it to continue',
  done: 'done',
  partial: 'not finished — run it to continue',
  cancelled: 'cancelled — run it to continue',
  failed: 'stopped',
};
export const statusWords = (s: CollectStatusWord): string => WORDS[s].split(' — ')[0];

const STATE_WORDS: Record<CollectInputState, string> = {
  waiting: 'waiting',
  running: 'running',
  done: 'done',
  held: 'from the archive',
  failed: 'failed',
  skipped: 'skipped',
};

export function PlanDetail({ plan, onRemoved }: { plan: CollectStatus; onRemoved: () => void }) {
  const m = useCollectMutations();
  const settings = useSettings();
  const [states, setStates] = useState<CollectInputState[]>([]);
  const inputs = useLoupe(
    'collect.inputs',
    { id: plan.id, ...(states.length ? { state: states } : {}), limit: 200 },
    { refetchInterval: plan.status === 'running' ? 2_000 : false, keepPrevious: true },
  );
  const done = plan.counts.done + plan.counts.held;
  const settled = done + plan.counts.failed + plan.counts.skipped;
  const running = plan.status === 'running';
  const toast = useUi((s) => s.toast);

  const run = async () => {
    const max = plan.remaining.creditsMax;
    let approved = false;
    if (plan.budget === null && aboveAsk(max, settings.data?.askAboveCredits ?? null)) {
      approved = await useUi.getState().ask({
        title: `Run “${plan.name}”?`,
        lines: [
          `What is left could cost ${creditRange(plan.remaining.creditsMin, max)} over ${fmtExact(plan.remaining.requests)} request(s).`,
          'Nothing is paid twice: cancel any time and run again to continue.',
        ],
        okLabel: `Run — up to ${fmtExact(max)} credits`,
      });
      if (!approved) return;
    }
    void m.run(plan.id, approved).catch((e) => toast('error', errorText(e)));
  };
  const openLibrary = () => {
    if (!plan.setId) return;
    useLibrary.getState().set({ source: { type: 'source', id: plan.source }, sort: { field: 'first_seen_at', dir: 'desc' } });
    useUi.getState().setView('library');
  };
  const analyse = () => {
    if (!plan.setId) return;
    useAnalysis.getState().setScope({ kind: 'set', id: plan.setId });
    useUi.getState().setView('analysis');
  };
  const remove = async () => {
    const ok = await useUi.getState().ask({
      title: `Forget the plan “${plan.name}”?`,
      lines: ['Its archived items and its saved set stay.'],
      okLabel: 'Forget the plan',
      danger: true,
    });
    if (!ok) return;
    try {
      await m.remove(plan.id);
      onRemoved();
    } catch (e) {
      toast('error', errorText(e));
    }
  };

  return (
    <section className="col gap" aria-labelledby="collect-plan-title" data-testid="collect-detail">
      <h2 id="collect-plan-title" className="h2">
        {plan.name} <span className="muted small">{plan.do ? COLLECT_DO_WORDS[plan.do].label.toLowerCase() : 'calls'}</span>
      </h2>
      <div className="panel" role="status" aria-live="polite" data-testid="collect-progress">
        <div>
          <strong data-testid="collect-status">{WORDS[plan.status]}</strong> · {fmtExact(done)} of {fmtExact(plan.total)} input
          {plan.total === 1 ? '' : 's'} collected
          {plan.counts.held ? ` (${fmtExact(plan.counts.held)} from the archive, free)` : ''}
          {plan.counts.failed ? ` · ${fmtExact(plan.counts.failed)} failed` : ''}
          {plan.counts.skipped ? ` · ${fmtExact(plan.counts.skipped)} skipped` : ''}
        </div>
        <progress max={Math.max(1, plan.total)} value={settled} aria-label="Inputs settled" />
        <div data-testid="collect-spent">
          Spent <strong>{fmtExact(plan.spent)}</strong> credits this run
          {plan.spentTotal !== plan.spent ? ` (${fmtExact(plan.spentTotal)} in all)` : ''} · planned{' '}
          {creditRange(plan.figures.creditsMin, plan.figures.creditsMax)}, likely {fmtExact(plan.figures.creditsLikely)}
          {plan.budget !== null ? ` · budget ${fmtExact(plan.budget)}` : ''}
          {running && plan.etaMs ? ` · at least ${duration(plan.etaMs)} left` : ''}
        </div>
        {plan.message ? <div className="muted small">{plan.message}</div> : null}
        <div className="row gap wrap">
          {running ? (
            <button
              className="btn"
              onClick={() => void m.cancel(plan.id).catch((e) => toast('error', errorText(e)))}
              data-testid="collect-cancel"
            >
              Cancel
            </button>
          ) : plan.status !== 'done' || plan.total > done ? (
            <button className="btn primary" onClick={() => void run()} data-testid="collect-run-plan">
              {plan.status === 'planned' ? 'Run' : 'Continue'} — up to {fmtExact(plan.remaining.creditsMax)} credits
            </button>
          ) : (
            <button
              className="btn"
              onClick={() => void run()}
              data-testid="collect-run-plan"
              title="inputs added since, and for feeds their new items only"
            >
              {plan.do === 'feed' ? 'Run again — new posts only' : 'Run again — new inputs only'}
            </button>
          )}
          <button className="btn" onClick={openLibrary} disabled={!plan.setId} data-testid="collect-open-library">
            Open in the Library
          </button>
          <button className="btn" onClick={analyse} disabled={!plan.setId} data-testid="collect-analyse">
            Analyse
          </button>
          <button className="btn" onClick={() => void remove()} disabled={running}>
            Forget the plan
          </button>
        </div>
      </div>
      <div className="row gap wrap" role="group" aria-label="Show inputs">
        {COLLECT_INPUT_STATES.map((s) => (
          <label key={s} className="inline small">
            <input
              type="checkbox"
              checked={states.includes(s)}
              onChange={() => setStates((x) => (x.includes(s) ? x.filter((y) => y !== s) : [...x, s]))}
            />{' '}
            {STATE_WORDS[s]} ({fmtExact(plan.counts[s])})
          </label>
        ))}
      </div>
      <ErrorBox error={inputs.error} onRetry={() => void inputs.refetch()} />
      <table className="mini" data-testid="collect-inputs">
        <caption className="sr-only">Inputs of the plan</caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Input</th>
            <th scope="col">Network</th>
            <th scope="col">State</th>
            <th scope="col">Pages</th>
            <th scope="col">Items</th>
            <th scope="col">Credits</th>
            <th scope="col">Why</th>
          </tr>
        </thead>
        <tbody>
          {(inputs.data?.rows ?? []).map((r) => (
            <tr key={r.seq}>
              <td>{r.line ?? r.seq}</td>
              <td>
                <bdi>{r.label}</bdi>
              </td>
              <td className="mono">
                {r.platform}/{r.endpoint}
              </td>
              <td>{STATE_WORDS[r.state]}</td>
              <td>
                {r.pagesDone}/{r.pages}
              </td>
              <td>{fmtExact(r.items)}</td>
              <td>{fmtExact(r.credits)}</td>
              <td className="muted">{r.reason ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {inputs.data && inputs.data.total > inputs.data.rows.length ? (
        <div className="muted small">
          The first {inputs.data.rows.length} of {fmtExact(inputs.data.total)}; `loupe collect inputs` lists all.
        </div>
      ) : null}
    </section>
  );
}
