/**
 * The Sandbox panel (issue 14 #9): whenever Loupe runs on the built-in sandbox, its address, its
 * clock (advance it to see watchlists find new posts), its balance (set it to see budgets and
 * "out of credits"), faults on and off (to see retries and errors), and reset. Times in the app
 * are shown on the sandbox's clock.
 */
import { useEffect, useState } from 'react';
import type { SandboxState } from '../../../shared/contract';
import { fmtExact, setServiceClock, utc } from '../lib/format';
import { useInfo, useLoupe } from '../queries/hooks';
import { useSandboxWrites } from '../queries/account';
import { useUi } from '../stores/ui';
import { toastError } from '../components/WayOut';

const STEPS: Array<[string, number]> = [
  ['1 hour', 3600],
  ['6 hours', 6 * 3600],
  ['1 day', 86_400],
  ['1 week', 7 * 86_400],
];

/** The buttons that move the sandbox service's clock, and which clock that is. */
function AdvanceClock({ busy, advance }: { busy: boolean; advance: (secs: number, label: string) => void }) {
  return (
    <div className="row gap wrap">
      <span className="muted small" id="sandbox-clock-words" data-testid="sandbox-clock-words">
        Advance the sandbox service’s clock — the one Loupe’s run times, cache windows, schedules and forecasts follow (your computer’s
        clock is untouched):
      </span>
      {STEPS.map(([label, secs]) => (
        <button
          key={label}
          type="button"
          className="btn small"
          disabled={busy}
          aria-describedby="sandbox-clock-words"
          onClick={() => advance(secs, label)}
          data-testid={`sandbox-advance-${secs}`}
        >
          +{label}
        </button>
      ))}
    </div>
  );
}

export function SandboxPanel() {
  const info = useInfo();
  const writes = useSandboxWrites();
  const st = useLoupe('sandbox.state', {}, { enabled: !!info.data?.sandbox, staleTime: 5_000 });
  const [balance, setBalance] = useState('');
  const [busy, setBusy] = useState(false);
  const s = st.data ?? null;
  useEffect(() => {
    if (s) setServiceClock({ now: s.now, at: s.at, timeScale: s.timeScale });
  }, [s]);
  if (!info.data?.sandbox) return null;
  const act = async (f: () => Promise<SandboxState>, ok: string) => {
    setBusy(true);
    try {
      await f();
      useUi.getState().toast('info', ok);
    } catch (e) {
      toastError(e, true);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="panel" data-testid="sandbox-panel" aria-labelledby="sandbox-panel-title">
      <h2 id="sandbox-panel-title" className="h3">
        Sandbox — synthetic data
      </h2>
      <p className="muted small">
        Loupe is talking to its built-in emulator of the service at{' '}
        <span className="mono" data-testid="sandbox-url">
          {s?.url ?? info.data.baseUrl}
        </span>{' '}
        (this computer only). Nothing here costs real credits.
      </p>
      <dl className="help-keys">
        <dt>Service clock (the sandbox’s)</dt>
        <dd data-testid="sandbox-clock">
          {s ? `${utc(s.now)}${s.timeScale !== 1 ? ` · runs ${s.timeScale}× faster than real time` : ''}` : '…'}
        </dd>
        <dt>Balance</dt>
        <dd data-testid="sandbox-balance">{s?.balance != null ? `${fmtExact(s.balance)} credits` : '…'}</dd>
        <dt>Faults</dt>
        <dd>
          {s
            ? s.faultRate > 0
              ? `${Math.round(s.faultRate * 100)} % of requests fail (rate limits, 500, 503, dropped answers)`
              : 'off'
            : '…'}
        </dd>
        <dt>Requests so far</dt>
        <dd>{s ? `${fmtExact(s.requests)} · ${fmtExact(s.creditsCharged)} credits charged` : '…'}</dd>
      </dl>
      <AdvanceClock busy={busy} advance={(secs, label) => void act(() => writes.advance(secs), `Sandbox service clock +${label}`)} />
      <form
        className="row gap wrap"
        onSubmit={(e) => {
          e.preventDefault();
          const n = Math.floor(Number(balance));
          if (balance.trim() !== '' && Number.isFinite(n) && n >= 0)
            void act(() => writes.setBalance(n), `Sandbox balance set to ${fmtExact(n)}`);
        }}
      >
        <label className="field">
          <span className="field-label">Set balance (credits)</span>
          <input
            type="number"
            min={0}
            value={balance}
            onChange={(e) => setBalance(e.target.value)}
            placeholder="e.g. 120"
            style={{ width: 120 }}
            data-testid="sandbox-balance-input"
          />
        </label>
        <button type="submit" className="btn small" disabled={busy} data-testid="sandbox-balance-set">
          Set
        </button>
      </form>
      <div className="row gap wrap">
        <span className="muted small">Faults:</span>
        {[0, 0.1, 0.3].map((r) => (
          <button
            key={r}
            type="button"
            className={`btn small ${s?.faultRate === r ? 'primary' : ''}`}
            aria-pressed={s?.faultRate === r}
            disabled={busy}
            onClick={() => void act(() => writes.faults(r), r ? `Sandbox faults on: ${r * 100} %` : 'Sandbox faults off')}
            data-testid={`sandbox-faults-${r * 100}`}
          >
            {r ? `${r * 100} %` : 'off'}
          </button>
        ))}
        <div className="spacer" />
        <button
          type="button"
          className="btn small"
          disabled={busy}
          onClick={() => void act(() => writes.reset(), 'Sandbox reset: faults off, balance restored')}
          data-testid="sandbox-reset"
        >
          Reset
        </button>
      </div>
    </section>
  );
}
