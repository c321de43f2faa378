/**
 * "Import accounts" (issue 16, bulk watches): paste a list of handles or profile addresses, or pick
 * a file (a list, or a CSV with a handle / username / url column), choose the feed each account is
 * watched on, and check: every line is shown as added, a duplicate, or not importable and why —
 * with one estimate for the first run of all of them — before anything is created. Importing
 * spends nothing; running the watchlist does, within its budgets.
 */
import { useEffect, useMemo, useState } from 'react';
import type { WatchlistInfo } from '../../../shared/contract';
import type { WatchImportPlan } from '../../../shared/contract-watch-import';
import { errorText } from '../lib/api';
import { creditRange, duration, fmtExact } from '../lib/format';
import { endpointPath, feedEndpoints, platformsOf, usable } from '../lib/catalogue';
import { useCatalogue } from '../queries/hooks';
import { useWatchMutations } from '../queries/watchlists';
import { Modal } from '../components/Dialog';
import { Field } from '../components/cells';
import { NetworkEndpointPicker } from '../components/NetworkPicker';

const SHOWN = 200;

export function ImportAccountsDialog({
  list,
  onCancel,
  onDone,
}: {
  list: WatchlistInfo | null;
  onCancel: () => void;
  onDone: (r: { listId: string; added: number; name: string }) => void;
}) {
  const watchlists = useWatchMutations();
  const cat = useCatalogue();
  const first = list?.watches[0];
  const platforms = useMemo(() => platformsOf(usable(cat.data)), [cat.data]);
  const [platform, setPlatform] = useState(first?.platform ?? 'photo_net');
  const feeds = useMemo(() => feedEndpoints(cat.data, platform), [cat.data, platform]);
  const [endpoint, setEndpoint] = useState(first?.endpoint ?? '');
  const [name, setName] = useState('');
  const [text, setText] = useState('');
  const [pages, setPages] = useState('1');
  const [plan, setPlan] = useState<WatchImportPlan | null>(null);
  const [planKey, setPlanKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState<string | null>(null);
  useEffect(() => {
    if (feeds.length && !feeds.some((f) => endpointPath(f) === endpoint)) setEndpoint(endpointPath(feeds[0]));
  }, [feeds, endpoint]);

  const input = {
    text,
    platform,
    endpoint,
    list: list ? { id: list.id } : { name: name.trim() },
    params: {},
    ...(list ? {} : { firstRunPages: Math.min(100, Math.max(1, Math.floor(Number(pages)) || 1)) }),
  };
  const key = JSON.stringify(input);
  const current = plan && planKey === key ? plan : null;

  const check = async () => {
    setErr(null);
    if (!list && !name.trim()) return setErr('Name the new watchlist.');
    if (!text.trim()) return setErr('Paste accounts, one a line, or choose a file.');
    setBusy(true);
    try {
      setPlan(await watchlists.planImport(input));
      setPlanKey(key);
    } catch (e) {
      setErr(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const run = async () => {
    setErr(null);
    setBusy(true);
    try {
      const r = await watchlists.importAccounts(input);
      onDone({ listId: r.watchlist.id, added: r.added, name: r.watchlist.name });
    } catch (e) {
      setErr(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const pick = async (f: File | undefined) => {
    if (!f) return;
    if (f.size > 5_000_000) return setErr('That file is over 5 MB; split it.');
    setText(await f.text());
  };

  return (
    <Modal
      title={list ? `Import accounts into “${list.name}”` : 'Import accounts into a new watchlist'}
      detail="One watch per account. Nothing is spent by importing: runs spend, within the list's budgets."
      onCancel={onCancel}
      testid="import-dialog"
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void (current && current.accounts.length ? run() : check());
        }}
      >
        <div className="row gap wrap">
          <NetworkEndpointPicker
            prefix="import"
            platforms={platforms}
            platform={platform}
            onPlatform={setPlatform}
            platformDisabled={!!list && !!first}
            endpointLabel="Watch each account's"
            endpoints={feeds}
            endpoint={endpoint}
            onEndpoint={setEndpoint}
            text={(f) => f.label}
            title={(f) => `${f.platform}/${endpointPath(f)}`}
          />
          {list ? null : (
            <>
              <Field label="New watchlist name" required>
                <input value={name} onChange={(e) => setName(e.target.value)} maxLength={120} data-testid="import-list-name" />
              </Field>
              <Field
                label="Pages on the first run"
                hint="how deep each account's first run reads (the baseline): 1 = the newest page, up to 100"
              >
                <input
                  type="number"
                  min={1}
                  max={100}
                  value={pages}
                  onChange={(e) => setPages(e.target.value)}
                  style={{ width: 70 }}
                  data-testid="import-pages"
                />
              </Field>
            </>
          )}
        </div>
        <Field label="Accounts: one handle or profile address a line, or a CSV with a handle, username or url column">
          <textarea
            rows={8}
            value={text}
            onChange={(e) => setText(e.target.value)}
            spellCheck={false}
            className="mono"
            placeholder={'nasa\n@esa\nhttps://…/jaxa'}
            data-testid="import-text"
          />
        </Field>
        <label className="field">
          <span className="field-label">…or a file (.csv, .txt)</span>
          <input
            type="file"
            accept=".csv,.txt,.tsv,text/csv,text/plain"
            onChange={(e) => void pick(e.target.files?.[0])}
            data-testid="import-file"
          />
        </label>
        {err ? (
          <p className="errtext" role="alert" data-testid="import-error">
            {err}
          </p>
        ) : null}
        {current ? <PlanView plan={current} /> : null}
        <div className="row gap end">
          <button type="button" className="btn" onClick={onCancel} data-testid="import-cancel">
            Cancel
          </button>
          <button
            type={current && current.accounts.length ? 'button' : 'submit'}
            className="btn"
            onClick={current && current.accounts.length ? () => void check() : undefined}
            disabled={busy}
            data-testid="import-check"
          >
            {current ? 'Check again' : 'Check the list'}
          </button>
          <button
            type={current && current.accounts.length ? 'submit' : 'button'}
            className="btn primary"
            disabled={busy || !current || current.accounts.length === 0}
            data-testid="import-ok"
          >
            {current ? `Import ${fmtExact(current.accounts.length)} account${current.accounts.length === 1 ? '' : 's'}` : 'Import'}
          </button>
        </div>
      </form>
    </Modal>
  );
}

function PlanView({ plan }: { plan: WatchImportPlan }) {
  const e = plan.estimate;
  return (
    <div className="panel" data-testid="import-summary" role="status">
      <div>
        <strong>{fmtExact(plan.accounts.length)}</strong> account{plan.accounts.length === 1 ? '' : 's'} to add
        {plan.column ? ` (from the CSV column “${plan.column}”)` : ''} · <strong>{fmtExact(plan.duplicates.length)}</strong> duplicate
        {plan.duplicates.length === 1 ? '' : 's'} · <strong>{fmtExact(plan.problems.length)}</strong> line
        {plan.problems.length === 1 ? '' : 's'} not imported · {fmtExact(plan.lines)} read
      </div>
      <div data-testid="import-estimate" title={e.basis}>
        First run of these watches: <strong>{creditRange(e.creditsMin, e.creditsMax)}</strong> over {fmtExact(e.requests)} request
        {e.requests === 1 ? '' : 's'}
        {e.etaMs > 0 ? `, about ${duration(e.etaMs)}` : ''}
        {e.balance !== null ? ` · balance ${fmtExact(e.balance)}` : ''}. Nothing is spent until the watchlist runs.
      </div>
      {e.reason ? <div className="errtext">{e.reason}</div> : null}
      {plan.duplicates.length ? (
        <details open={plan.duplicates.length <= 10}>
          <summary>Duplicates (not added again)</summary>
          <ul className="plain small" data-testid="import-duplicates" tabIndex={0} aria-label="Duplicates">
            {plan.duplicates.slice(0, SHOWN).map((d) => (
              <li key={d.line}>
                line {d.line}: <bdi>{d.account}</bdi> —{' '}
                {d.sameAs === null ? 'already in this watchlist' : `same account as line ${d.sameAs}`}
              </li>
            ))}
            {plan.duplicates.length > SHOWN ? <li>… and {fmtExact(plan.duplicates.length - SHOWN)} more</li> : null}
          </ul>
        </details>
      ) : null}
      {plan.problems.length ? (
        <details open={plan.problems.length <= 10}>
          <summary>Lines not imported, and why</summary>
          <ul className="plain small" data-testid="import-problems" tabIndex={0} aria-label="Lines not imported">
            {plan.problems.slice(0, SHOWN).map((p) => (
              <li key={p.line}>
                line {p.line}: <bdi className="mono">{p.text.length > 80 ? p.text.slice(0, 80) + '…' : p.text}</bdi> — {p.reason}
              </li>
            ))}
            {plan.problems.length > SHOWN ? <li>… and {fmtExact(plan.problems.length - SHOWN)} more</li> : null}
          </ul>
        </details>
      ) : null}
    </div>
  );
}
