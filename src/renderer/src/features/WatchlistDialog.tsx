/**
 * A watchlist's money and depth, asked before anything exists or runs (issue 14 #8): the budget per
 * run and per month (blank = none, said so), the schedule, and how deep the first run reads
 * (the newest page, N pages, everything, or everything since a date on date-ordered feeds), with
 * that first run's estimate shown first. Used by "Watch this" (create) and "Edit" (update).
 */
import { useEffect, useState } from 'react';
import type { MethodInput, Target, WalkEstimate } from '../../../shared/contract';
import { api } from '../lib/api';
import { creditRange, fmtExact } from '../lib/format';
import { Modal } from '../components/Dialog';
import { useCatalogue } from '../queries/hooks';
import { accepts } from '../lib/catalogue';
import { everyWords } from '../../../shared/durations';

/** A budget per run that covers a run's estimate: its ceiling, rounded up to a round number. */
export function suggestedBudget(creditsMax: number): number {
  if (creditsMax <= 0) return 0;
  const step = creditsMax <= 100 ? 10 : creditsMax <= 1_000 ? 50 : creditsMax <= 10_000 ? 500 : 5_000;
  return Math.ceil(creditsMax / step) * step;
}

export interface WatchlistForm {
  name: string;
  everyHours: number | null;
  budgetPerRun: number | null;
  budgetPerMonth: number | null;
  firstRunPages: number;
  /** date-ordered feeds: everything since this day (sent as `since` on every page) */
  since: string | null;
}

type Depth = 'newest' | 'pages' | 'all' | 'since';

/**
 * What an edit sends: only the fields the user changed (a change names only what it changes;
 * docs/watchlists.md "Changing a watchlist"). A list scheduled by a cron expression keeps it: the
 * dialog edits hours only. Nothing changed → an empty patch.
 */
export function editPatch(
  initial: WatchlistForm,
  f: WatchlistForm,
  keepCron: boolean,
): NonNullable<MethodInput<'watchlists.update'>['patch']> {
  return {
    ...(f.name !== initial.name ? { name: f.name } : {}),
    ...(f.budgetPerRun !== initial.budgetPerRun ? { budgetPerRun: f.budgetPerRun } : {}),
    ...(f.budgetPerMonth !== initial.budgetPerMonth ? { budgetPerMonth: f.budgetPerMonth } : {}),
    ...(f.firstRunPages !== initial.firstRunPages ? { firstRunPages: f.firstRunPages } : {}),
    ...(!keepCron && f.everyHours !== initial.everyHours ? { schedule: f.everyHours ? { everyHours: f.everyHours } : null } : {}),
  };
}

const num = (s: string): number | null => (s.trim() === '' ? null : Math.max(0, Math.floor(Number(s))));

/** Without a budget per run: a schedule's runs are skipped when they would need asking (issue 27 #20); offer one. */
function BudgetNote({
  everyHours,
  perMonth,
  creditsMax,
  use,
}: {
  everyHours: number | null;
  perMonth: number | null;
  creditsMax: number;
  use: (credits: number) => void;
}) {
  if (everyHours === null)
    return perMonth === null ? <p className="muted small">No budget: each run asks above your confirmation threshold.</p> : null;
  return (
    <p className="notice small" role="note" data-testid="wl-schedule-note">
      <span>
        Runs {everyWords(everyHours)} go ahead by themselves only within a budget per run: without one, a scheduled run estimated above your
        confirmation threshold is skipped as needing approval.
      </span>
      {creditsMax > 0 ? (
        <button type="button" className="btn small" onClick={() => use(suggestedBudget(creditsMax))} data-testid="wl-use-budget">
          Use {fmtExact(suggestedBudget(creditsMax))} credits a run
        </button>
      ) : null}
    </p>
  );
}

export function WatchlistDialog({
  title,
  okLabel,
  initial,
  target,
  editing = false,
  onCancel,
  onSubmit,
}: {
  title: string;
  okLabel: string;
  initial: WatchlistForm;
  /** the watch being added (its first-run estimate is shown) */
  target: Target | null;
  editing?: boolean;
  onCancel: () => void;
  onSubmit: (f: WatchlistForm) => void;
}) {
  const cat = useCatalogue();
  const ep = target
    ? cat.data?.endpoints.find(
        (e) => e.platform === target.platform && (e.path === target.endpoint || e.path.endsWith(`/${target.endpoint}`)),
      )
    : undefined;
  const dated = !!ep && accepts(ep, 'since') && accepts(ep, 'stop_at_id');
  const [name, setName] = useState(initial.name);
  const [every, setEvery] = useState(initial.everyHours === null ? '' : String(initial.everyHours));
  const [perRun, setPerRun] = useState(initial.budgetPerRun === null ? '' : String(initial.budgetPerRun));
  const [perMonth, setPerMonth] = useState(initial.budgetPerMonth === null ? '' : String(initial.budgetPerMonth));
  const [depth, setDepth] = useState<Depth>(
    initial.since ? 'since' : initial.firstRunPages >= 100 ? 'all' : initial.firstRunPages > 1 ? 'pages' : 'newest',
  );
  const [pages, setPages] = useState(String(Math.min(99, Math.max(2, initial.firstRunPages))));
  const [since, setSince] = useState(initial.since ?? '');
  const firstRunPages = depth === 'newest' ? 1 : depth === 'pages' ? Math.min(100, Math.max(1, Number(pages) || 1)) : 100;
  const [est, setEst] = useState<WalkEstimate | null>(null);
  useEffect(() => {
    if (!target) return;
    let live = true;
    const t = depth === 'since' && since ? { ...target, params: { ...target.params, since } } : target;
    void api
      .call('api.estimateWalk', { target: t, pages: firstRunPages })
      .then((e) => live && setEst(e))
      .catch(() => live && setEst(null));
    return () => {
      live = false;
    };
  }, [target, firstRunPages, depth, since]);
  const runBudget = num(perRun);
  const problem = !name.trim()
    ? 'A watchlist needs a name.'
    : depth === 'since' && !/^\d{4}-\d{2}-\d{2}$/.test(since)
      ? 'Choose the day to read back to.'
      : null;
  return (
    <Modal title={title} onCancel={onCancel} testid="watchlist-dialog">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (problem) return;
          onSubmit({
            name: name.trim(),
            everyHours: num(every),
            budgetPerRun: runBudget,
            budgetPerMonth: num(perMonth),
            firstRunPages,
            since: depth === 'since' ? since : null,
          });
        }}
      >
        <label className="field">
          <span className="field-label">Name</span>
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={120} data-testid="wl-name" />
        </label>
        <div className="row gap wrap">
          <label className="field" title="Runs by itself every N hours while Loupe is open; blank = only when you press Run">
            <span className="field-label">Refresh every (hours)</span>
            <input
              type="number"
              min={1}
              max={744}
              value={every}
              onChange={(e) => setEvery(e.target.value)}
              placeholder="manual"
              style={{ width: 90 }}
              data-testid="wl-every"
            />
          </label>
          <label className="field" title="A run never spends past it; a run estimated above it waits for your approval">
            <span className="field-label">Budget per run (credits)</span>
            <input
              type="number"
              min={0}
              value={perRun}
              onChange={(e) => setPerRun(e.target.value)}
              placeholder="no limit"
              style={{ width: 110 }}
              data-testid="wl-budget-run"
            />
          </label>
          <label className="field" title="Counted from the ledger for this watchlist, per UTC calendar month">
            <span className="field-label">Budget per month (credits)</span>
            <input
              type="number"
              min={0}
              value={perMonth}
              onChange={(e) => setPerMonth(e.target.value)}
              placeholder="no limit"
              style={{ width: 110 }}
              data-testid="wl-budget-month"
            />
          </label>
        </div>
        {runBudget === null ? (
          <BudgetNote
            everyHours={num(every)}
            perMonth={num(perMonth)}
            creditsMax={est?.creditsMax ?? 0}
            use={(n) => setPerRun(String(n))}
          />
        ) : null}
        <fieldset className="field">
          <legend className="field-label">First run reads</legend>
          <label className="check">
            <input
              type="radio"
              name="depth"
              checked={depth === 'newest'}
              onChange={() => setDepth('newest')}
              data-testid="wl-depth-newest"
            />{' '}
            the newest page (a baseline)
          </label>
          <label className="check">
            <input type="radio" name="depth" checked={depth === 'pages'} onChange={() => setDepth('pages')} data-testid="wl-depth-pages" />{' '}
            <input
              type="number"
              min={2}
              max={99}
              value={pages}
              onChange={(e) => (setPages(e.target.value), setDepth('pages'))}
              style={{ width: 60 }}
              aria-label="pages"
            />{' '}
            pages
          </label>
          <label className="check">
            <input type="radio" name="depth" checked={depth === 'all'} onChange={() => setDepth('all')} data-testid="wl-depth-all" />{' '}
            everything (up to 100 pages; the rest with a walk)
          </label>
          {dated ? (
            <label className="check">
              <input
                type="radio"
                name="depth"
                checked={depth === 'since'}
                onChange={() => setDepth('since')}
                data-testid="wl-depth-since"
              />{' '}
              everything since{' '}
              <input
                type="date"
                value={since}
                onChange={(e) => (setSince(e.target.value), setDepth('since'))}
                aria-label="since day"
                data-testid="wl-since"
              />
            </label>
          ) : null}
          {editing ? <span className="muted small">Applies to watches that have not run yet.</span> : null}
        </fieldset>
        {target ? (
          <p data-testid="wl-estimate">
            First run: {est ? <strong>{creditRange(est.creditsMin, est.creditsMax)}</strong> : '…'}
            {est ? ` over up to ${fmtExact(est.requests)} request${est.requests === 1 ? '' : 's'}` : ''}
            {depth === 'since' || depth === 'all' ? ' (at most; a date-bounded or shorter feed stops earlier)' : ''}
            {est && runBudget !== null && est.creditsMax > runBudget
              ? ` — above the per-run budget: the run stops at ${fmtExact(runBudget)} and resumes next time.`
              : ''}
            . Nothing is spent until it runs.
          </p>
        ) : null}
        {problem ? <p className="muted small">{problem}</p> : null}
        <div className="row gap end">
          <button type="button" className="btn" onClick={onCancel} data-testid="wl-cancel">
            Cancel
          </button>
          <button type="submit" className="btn primary" disabled={!!problem} data-testid="wl-ok">
            {okLabel}
          </button>
        </div>
      </form>
    </Modal>
  );
}
