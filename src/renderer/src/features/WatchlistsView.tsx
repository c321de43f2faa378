/** Watchlists: list, create, watches, pause, run now (estimate first; approve over budget), history, items, charts, export. */
import { useState } from 'react';
import type { WatchlistInfo } from '../../../shared/contract';
import type { LabelCondition } from '../../../shared/query';
import { aboveAsk } from '../../../shared/spend-policy';
import { scheduleWords } from '../../../shared/durations';
import { errorText } from '../lib/api';
import { spendBalanceLines } from '../lib/balance';
import { forecastLine } from '../lib/words';
import { creditRange, fmtExact } from '../lib/format';
import { useLoupe } from '../queries/hooks';
import { readSettings, refreshBalance } from '../queries/account';
import { useWatchMutations } from '../queries/watchlists';
import { useUi } from '../stores/ui';
import { Empty, ErrorBox, Field, Skeleton, When } from '../components/cells';
import { runWithToast } from '../components/WayOut';
import { SeriesChart } from '../components/Charts';
import { editPatch, suggestedBudget, WatchlistDialog } from './WatchlistDialog';
import { ExportPanel } from '../components/ExportPanel';
import { RunHistory, WatchItems, type RunView } from './WatchRuns';
import { AlertInbox, useUnreadAlerts } from './AlertInbox';
import { AlertEditor } from './AlertEditor';
import { LabelConditions } from './LabelConditions';
import { ImportAccountsDialog } from './ImportAccounts';

export function WatchlistsView() {
  const lists = useLoupe('watchlists.list', {}, { refetchInterval: 30_000 });
  const [sel, setSel] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const cur = lists.data?.find((w) => w.id === sel) ?? null;
  const [importing, setImporting] = useState(false);
  const [inbox, setInbox] = useState(false);
  const [openRun, setOpenRun] = useState<RunView | null>(null);
  const pick = (id: string) => (setSel(id), setCreating(false), setInbox(false), setOpenRun(null));
  const toast = useUi((s) => s.toast);
  return (
    <div className="view">
      {importing ? (
        <ImportAccountsDialog
          list={null}
          onCancel={() => setImporting(false)}
          onDone={(r) => {
            setImporting(false);
            setSel(r.listId);
            setCreating(false);
            toast('info', `Created “${r.name}” with ${r.added} watch${r.added === 1 ? '' : 'es'}. Nothing spent yet.`);
          }}
        />
      ) : null}
      <div className="split">
        <div className="sidelist" data-testid="watchlists">
          <div style={{ padding: 8 }}>
            <button className="btn small primary" onClick={() => setCreating(true)} data-testid="watchlist-new">
              + New watchlist
            </button>{' '}
            <button
              className="btn small"
              onClick={() => setImporting(true)}
              data-testid="import-accounts-new"
              title="Many accounts at once, from a pasted list or a CSV file"
            >
              Import accounts…
            </button>{' '}
            <AlertsButton active={inbox} open={() => (setInbox(true), setCreating(false))} />
          </div>
          {lists.isLoading ? <Skeleton rows={4} /> : null}
          <ErrorBox error={lists.error} onRetry={() => void lists.refetch()} />
          {(lists.data ?? []).map((w) => (
            <button
              key={w.id}
              className={`item ${w.id === sel && !inbox ? 'active' : ''}`}
              onClick={() => pick(w.id)}
              data-testid="watchlist-item"
            >
              {w.name} {w.paused ? <span className="chip tone-warn">paused</span> : null}
              {w.newSinceSeen ? (
                <span className="chip tone-info" title="new items since you last looked">
                  {w.newSinceSeen} new
                </span>
              ) : null}
              <div className="muted small">
                {w.watches.length} watch{w.watches.length === 1 ? '' : 'es'} · next <When v={w.nextRunAt} why="not scheduled" />
              </div>
            </button>
          ))}
        </div>
        <div className="page">
          {creating ? (
            <CreateForm onDone={pick} />
          ) : inbox ? (
            <AlertInbox showItems={(a) => (pick(a.watchlistId), setOpenRun({ runId: a.runId, alertsOnly: a.kind === 'labels' }))} />
          ) : cur ? (
            <Detail w={cur} key={`${cur.id}:${openRun?.runId ?? ''}:${openRun?.alertsOnly ?? ''}`} initialRun={openRun} />
          ) : (
            <Empty title={lists.data?.length ? 'Pick a watchlist' : 'No watchlists yet'}>
              A watchlist re-reads profiles, searches or comment threads on a schedule, within a budget, and flags new items that match an
              alert. Add one from Profiles (“Watch this”) — try the sandbox profile <b>nasa</b> — or create one here.
            </Empty>
          )}
        </div>
      </div>
    </div>
  );
}

function AlertsButton({ active, open }: { active: boolean; open: () => void }) {
  const unread = useUnreadAlerts();
  return (
    <button
      className={`btn small ${active ? 'primary' : ''}`}
      aria-pressed={active}
      onClick={open}
      data-testid="alerts-open"
      title="Every alert your watchlists raised, newest first"
    >
      Alerts{unread ? ` · ${fmtExact(unread)} unread` : ''}
    </button>
  );
}

function CreateForm({ onDone }: { onDone: (id: string) => void }) {
  const watchlists = useWatchMutations();
  const [name, setName] = useState('');
  const [mode, setMode] = useState<'every' | 'cron' | 'manual'>('every');
  const [every, setEvery] = useState('24');
  const [cron, setCron] = useState('0 8 * * *');
  const [perRun, setPerRun] = useState('');
  const [perMonth, setPerMonth] = useState('');
  const [alert, setAlert] = useState<LabelCondition[]>([]);
  const [err, setErr] = useState<string | null>(null);
  const submit = async () => {
    setErr(null);
    try {
      const w = await watchlists.create({
        name: name.trim(),
        schedule: mode === 'every' ? { everyHours: Number(every) } : mode === 'cron' ? { cron } : null,
        budgetPerRun: perRun ? Number(perRun) : null,
        budgetPerMonth: perMonth ? Number(perMonth) : null,
        alert: alert.length ? alert : null,
      });
      onDone(w.id);
    } catch (e) {
      setErr(errorText(e));
    }
  };
  return (
    <form
      className="panel"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
      data-testid="watchlist-form"
    >
      <h3>New watchlist</h3>
      <Field label="Name" required>
        <input value={name} onChange={(e) => setName(e.target.value)} maxLength={120} data-testid="watchlist-name" autoFocus />
      </Field>
      <div className="row gap wrap">
        <Field label="Schedule">
          <select value={mode} onChange={(e) => setMode(e.target.value as typeof mode)}>
            <option value="every">every N hours</option>
            <option value="cron">cron expression</option>
            <option value="manual">manual only</option>
          </select>
        </Field>
        {mode === 'every' ? (
          <Field label="Hours">
            <input type="number" min={1} max={744} value={every} onChange={(e) => setEvery(e.target.value)} style={{ width: 80 }} />
          </Field>
        ) : null}
        {mode === 'cron' ? (
          <Field label="Cron" hint="minute hour day month weekday, e.g. 0 8 * * * = daily at 08:00">
            <input value={cron} onChange={(e) => setCron(e.target.value)} className="mono" />
          </Field>
        ) : null}
        <Field label="Budget per run" hint="credits; a run estimated above it waits for your approval">
          <input
            type="number"
            min={0}
            value={perRun}
            onChange={(e) => setPerRun(e.target.value)}
            placeholder="none"
            style={{ width: 100 }}
          />
        </Field>
        <Field label="Budget per month">
          <input
            type="number"
            min={0}
            value={perMonth}
            onChange={(e) => setPerMonth(e.target.value)}
            placeholder="none"
            style={{ width: 100 }}
          />
        </Field>
      </div>
      <div className="field">
        <span className="field-label">Alert when a new item matches (optional)</span>
        <LabelConditions value={alert} onChange={setAlert} />
      </div>
      {err ? <div className="errorbox">{err}</div> : null}
      <div className="row gap">
        <button className="btn primary" type="submit" disabled={!name.trim()} data-testid="watchlist-create">
          Create (free)
        </button>
        <span className="muted small">Add watches from Profiles or Explorer with “Watch this”.</span>
      </div>
    </form>
  );
}

/** One value per run, oldest first, for a chart. */
function runSeries<R extends { startedAt: number }>(runs: R[], value: (r: R) => number): Array<{ bucket: string; value: number }> {
  return runs
    .slice()
    .reverse()
    .map((r) => ({ bucket: new Date(r.startedAt).toISOString().slice(0, 16).replace('T', ' '), value: value(r) }));
}

/** A schedule without a budget per run says so, and offers one that covers the estimate (issue 27 #20). */
function ScheduleNote({
  note,
  creditsMax,
  setBudget,
  edit,
}: {
  note: string;
  creditsMax: number;
  setBudget: (credits: number) => void;
  edit: () => void;
}) {
  return (
    <div className="notice" role="note" data-testid="watchlist-schedule-note">
      <span>{note}</span>{' '}
      {creditsMax > 0 ? (
        <button
          type="button"
          className="btn small"
          data-testid="watchlist-set-budget"
          onClick={() => setBudget(suggestedBudget(creditsMax))}
        >
          Set a budget of {fmtExact(suggestedBudget(creditsMax))} credits a run
        </button>
      ) : (
        <button type="button" className="btn small" data-testid="watchlist-set-budget" onClick={edit}>
          Set a budget…
        </button>
      )}
    </div>
  );
}

function Detail({ w, initialRun }: { w: WatchlistInfo; initialRun: RunView | null }) {
  const watchlists = useWatchMutations();
  const toast = useUi((s) => s.toast);
  const ask = useUi((s) => s.ask);
  const history = useLoupe('watchlists.history', { id: w.id });
  const est = useLoupe('watchlists.estimate', { id: w.id }, { enabled: w.watches.length > 0, staleTime: 60_000 });
  const [runView, setRunView] = useState<RunView | null>(initialRun);
  const [showExport, setShowExport] = useState(false);
  const [editing, setEditing] = useState(false);
  const [importing, setImporting] = useState(false);
  const editForm = {
    name: w.name,
    everyHours: w.schedule?.everyHours ?? null,
    budgetPerRun: w.budgetPerRun,
    budgetPerMonth: w.budgetPerMonth,
    firstRunPages: w.firstRunPages ?? 1,
    since: null,
  };
  const act = runWithToast;
  const runNow = async () => {
    try {
      const e = await watchlists.estimate(w.id);
      const over = aboveAsk(e.creditsMax, w.budgetPerRun);
      const settings = await readSettings();
      // the balance read again (free): a top-up or another process's spending since the estimate
      const balance =
        (await refreshBalance().then(
          (b) => b.creditsRemaining,
          () => null,
        )) ??
        e.balance ??
        null;
      let approved = false;
      if (over || e.needsConfirmation || aboveAsk(e.creditsMax, settings.askAboveCredits) || (balance !== null && e.creditsMax > balance)) {
        const lines = [`Estimate: ${creditRange(e.creditsMin, e.creditsMax)} over ${e.requests} request${e.requests === 1 ? '' : 's'}.`];
        if (over && w.budgetPerRun !== null) lines.push(`This is over the per-run budget of ${fmtExact(w.budgetPerRun)} credits.`);
        lines.push(...spendBalanceLines(balance, e.creditsMin, e.creditsMax));
        lines.push('Free: pages already held inside the cache window, replays, empty pages and errors.');
        if (
          !(await ask({
            title: `Run “${w.name}” now`,
            lines,
            okLabel: over ? 'Approve and run' : `Spend up to ${creditRange(e.creditsMax, e.creditsMax)}`,
          }))
        )
          return;
        approved = true; // the user saw the estimate and said yes: the service may spend up to it
      }
      const r = await watchlists.run(w.id, approved);
      toast(
        'info',
        r.status === 'over_budget'
          ? 'Run held: over budget.'
          : `Run ${r.status} · ${r.newItems} new · cost ${fmtExact(r.creditsSpent)} credits`,
      );
    } catch (e) {
      toast('error', errorText(e));
    }
  };
  const runs = history.data ?? [];
  const perRun = runSeries(runs, (r) => r.creditsSpent);
  const newPerRun = runSeries(runs, (r) => r.newItems);
  return (
    <>
      <div className="row gap wrap">
        <h3 style={{ margin: 0 }}>{w.name}</h3>
        {w.paused ? <span className="chip tone-warn">paused</span> : null}
        <span className="muted small">
          <span data-testid="watchlist-schedule">{scheduleWords(w.schedule)}</span> · budget{' '}
          <span data-testid="watchlist-budget">
            {w.budgetPerRun === null ? 'no limit' : `${fmtExact(w.budgetPerRun)} credits`} a run,{' '}
            {w.budgetPerMonth === null ? 'no limit' : `${fmtExact(w.budgetPerMonth)} credits`} a month
          </span>
        </span>
        <button className="btn small" onClick={() => setEditing(true)} data-testid="watchlist-edit">
          Edit budgets…
        </button>
        <button
          className="btn small"
          onClick={() => setImporting(true)}
          data-testid="import-accounts"
          title="Add many accounts at once, from a pasted list or a CSV file"
        >
          Import accounts…
        </button>
        <AlertEditor w={w} />
        <div className="spacer" />
        <button className="btn primary" onClick={() => void runNow()} disabled={w.watches.length === 0} data-testid="watchlist-run">
          Run now{est.data ? <span className="price"> · {creditRange(est.data.creditsMin, est.data.creditsMax)}</span> : null}
        </button>
        <button
          className="btn"
          onClick={() => void act(() => watchlists.update({ id: w.id, patch: { paused: !w.paused } }), w.paused ? 'Resumed' : 'Paused')}
          data-testid="watchlist-pause"
        >
          {w.paused ? 'Resume schedule' : 'Pause'}
        </button>
        {w.newSinceSeen ? (
          <button className="btn" onClick={() => void act(() => watchlists.markSeen(w.id))}>
            Mark seen
          </button>
        ) : null}
        <button className="btn" onClick={() => setShowExport(!showExport)}>
          Export…
        </button>
        <button
          className="btn ghost"
          onClick={async () => {
            if (
              await ask({
                title: `Delete “${w.name}”?`,
                lines: ['Its schedule and history go; the items it fetched stay in the library.'],
                okLabel: 'Delete',
                danger: true,
              })
            )
              await act(() => watchlists.remove(w.id), 'Deleted');
          }}
        >
          Delete
        </button>
      </div>
      {w.scheduleNote ? (
        <ScheduleNote
          note={w.scheduleNote}
          creditsMax={est.data?.creditsMax ?? 0}
          setBudget={(n) => void act(() => watchlists.update({ id: w.id, patch: { budgetPerRun: n } }), 'Budget per run set')}
          edit={() => setEditing(true)}
        />
      ) : null}
      <div className="muted small" data-testid="watchlist-forecast">
        {w.forecast ? (
          <span title={w.forecast.basis}>
            Forecast: about <strong>{fmtExact(w.forecast.perRunCredits)}</strong> credits a run,{' '}
            <strong>{fmtExact(w.forecast.perMonthCredits)}</strong> a month — {w.forecast.basis}
          </span>
        ) : (
          <span>{forecastLine(w.forecastNote)}</span>
        )}
      </div>
      {editing ? (
        <WatchlistDialog
          title={`Edit “${w.name}”`}
          okLabel="Save"
          editing
          target={null}
          initial={editForm}
          onCancel={() => setEditing(false)}
          onSubmit={(f) => {
            setEditing(false);
            // only what the user changed: the watches, the alert and anything else stay as they are
            const patch = editPatch(editForm, f, !!w.schedule?.cron);
            if (Object.keys(patch).length === 0) toast('info', 'Nothing changed.');
            else void act(() => watchlists.update({ id: w.id, patch }), 'Saved');
          }}
        />
      ) : null}
      {showExport ? <ExportPanel watchlistId={w.id} onClose={() => setShowExport(false)} /> : null}
      {importing ? (
        <ImportAccountsDialog
          list={w}
          onCancel={() => setImporting(false)}
          onDone={(r) => {
            setImporting(false);
            toast('info', `Added ${r.added} watch${r.added === 1 ? '' : 'es'} to “${r.name}”. Nothing spent yet.`);
          }}
        />
      ) : null}
      <div className="panel">
        <strong>Watches</strong>
        {w.watches.length === 0 ? <div className="muted small">No watches yet: use “Watch this” in Profiles or Explorer.</div> : null}
        <table className="mini">
          <tbody>
            {w.watches.map((x) => (
              <tr key={x.watchId}>
                <td>{x.label}</td>
                <td className="mono">
                  {x.platform}/{x.endpoint}
                </td>
                <td className="mono muted">
                  {Object.entries(x.params)
                    .map(([k, v]) => `${k}=${v}`)
                    .join(' ')}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="charts">
        <SeriesChart title="New items per run" data={newPerRun} kind="bar" unit="items" />
        <SeriesChart title="Credits per run" data={perRun} kind="bar" unit="credits" />
      </div>
      <RunHistory w={w} runs={runs} open={setRunView} />
      <WatchItems w={w} runs={runs} view={runView} setView={setRunView} />
    </>
  );
}
