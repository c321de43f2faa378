/**
 * Collect (issue 28, docs/collect.md): paste or drop a list — or pick a saved set, or the Library's
 * current query — say what to collect for each input, see the whole plan priced before anything is
 * spent (its curves: depth, top K, networks), save and run it, watch its progress; every plan's
 * results are a saved set, one click from the Library and Analysis.
 */
import { useState } from 'react';
import { useLoupe } from '../../queries/hooks';
import { useUi } from '../../stores/ui';
import { Empty, ErrorBox, Skeleton } from '../../components/cells';
import { PlanForm } from './PlanForm';
import { PlanDetail, statusWords } from './PlanDetail';

export function CollectView() {
  const plans = useLoupe('collect.list', {}, { refetchInterval: 5_000 });
  const live = useUi((s) => s.plans);
  const [sel, setSel] = useState<string | null>(null);
  const [creating, setCreating] = useState(true);
  const list = (plans.data ?? []).map((p) => (live[p.id] && live[p.id].updatedAt >= p.updatedAt ? live[p.id] : p));
  const cur = list.find((p) => p.id === sel) ?? null;
  return (
    <div className="view">
      <div className="split">
        <nav className="sidelist" data-testid="collect-plans" aria-label="Collection plans">
          <div style={{ padding: 8 }}>
            <button className="btn small primary" onClick={() => (setCreating(true), setSel(null))} data-testid="collect-new">
              + New plan
            </button>
          </div>
          {plans.isLoading ? <Skeleton rows={3} /> : null}
          <ErrorBox error={plans.error} onRetry={() => void plans.refetch()} />
          {list.map((p) => {
            const done = p.counts.done + p.counts.held;
            return (
              <button
                key={p.id}
                className={`item ${p.id === sel ? 'active' : ''}`}
                onClick={() => (setSel(p.id), setCreating(false))}
                data-testid="collect-plan-item"
                aria-current={p.id === sel}
              >
                {p.name} <span className="chip">{statusWords(p.status)}</span>
                <div className="muted small">
                  {done} of {p.total} done · {p.spentTotal.toLocaleString('en-US')} credits
                </div>
              </button>
            );
          })}
        </nav>
        <div className="page">
          {creating ? (
            <PlanForm onSaved={(id) => (setSel(id), setCreating(false))} />
          ) : cur ? (
            <PlanDetail plan={cur} key={cur.id} onRemoved={() => (setSel(null), setCreating(true))} />
          ) : (
            <Empty title="Pick a plan">A plan collects from a list, or from a saved set, priced as one before anything is spent.</Empty>
          )}
        </div>
      </div>
    </div>
  );
}
