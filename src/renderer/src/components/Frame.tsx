/** Left rail, top bar (key name, live balance, free calls, background work, sandbox badge). */
import { balanceStale, balanceText } from '../lib/balance';
import { useEffect } from 'react';
import type { WalkInfo } from '../../../shared/contract';
import { errorText } from '../lib/api';
import { duration, fmtExact, setServiceClock } from '../lib/format';
import { useInfo, useLoupe } from '../queries/hooks';
import { refreshBalance } from '../queries/account';
import { useWalkWrites } from '../queries/walks';
import { useUi, VIEWS } from '../stores/ui';
import { viewNumberKey } from '../../../shared/view-keys';

export function Rail() {
  const view = useUi((s) => s.view);
  const setView = useUi((s) => s.setView);
  return (
    <nav className="rail" aria-label="Views">
      <div className="brand" title="Loupe">
        ◎ <span>Loupe</span>
      </div>
      {VIEWS.map((v, i) => (
        <button
          key={v.id}
          className={`rail-item ${view === v.id ? 'active' : ''}`}
          aria-current={view === v.id ? 'page' : undefined}
          onClick={() => setView(v.id)}
          title={`${v.label} — g ${v.key} or Alt+${viewNumberKey(i)}`}
          data-testid={`nav-${v.id}`}
        >
          <span className="rail-icon" aria-hidden="true">
            {v.icon}
          </span>
          <span className="rail-label">{v.label}</span>
          <kbd className="rail-kbd">g {v.key}</kbd>
        </button>
      ))}
      <div className="spacer" />
      <button
        className="rail-item"
        onClick={() => useUi.getState().setPalette(true)}
        title="Command palette — Ctrl/Cmd+K"
        data-testid="open-palette"
      >
        <span className="rail-icon">⌕</span>
        <span className="rail-label">Commands</span>
        <kbd className="rail-kbd">⌘K</kbd>
      </button>
    </nav>
  );
}

export function useAllWalks(): WalkInfo[] {
  const live = useUi((s) => s.walks);
  const anyRunning = Object.values(live).some((w) => w.status === 'running');
  const list = useLoupe('walks.list', {}, { refetchInterval: anyRunning ? 4000 : 30000 });
  const byId = new Map<string, WalkInfo>();
  for (const w of list.data ?? []) byId.set(w.walkId, w);
  for (const w of Object.values(live)) {
    const cur = byId.get(w.walkId);
    if (!cur || w.updatedAt >= cur.updatedAt) byId.set(w.walkId, w);
  }
  return [...byId.values()].sort((a, b) => b.updatedAt - a.updatedAt);
}

export function TopBar() {
  const info = useInfo();
  const balance = useUi((s) => s.balance);
  const setBalance = useUi((s) => s.setBalance);
  const bgOpen = useUi((s) => s.bgOpen);
  const setBgOpen = useUi((s) => s.setBgOpen);
  const credits = useLoupe('credits.get', {}, { staleTime: 60_000 });
  useEffect(() => {
    if (!credits.data) return;
    setBalance(credits.data);
    // unknown, or last read before a restart / a service switch: ask the service again
    // (GET /v1/credits is free and not rate-counted)
    if (balanceStale(credits.data, Date.now()) && info.data?.keySet !== false) void refreshBalance().catch(() => {});
  }, [credits.data, setBalance, info.data?.keySet, info.data?.baseUrl]);
  // times are shown on the service's clock (issue 27 #3): the one Loupe records them on; on the
  // sandbox, its own (it can be advanced and may run faster)
  const sbState = useLoupe('sandbox.state', {}, { enabled: !!info.data?.sandbox, staleTime: 60_000 });
  useEffect(() => {
    const c = sbState.data;
    if (c) setServiceClock({ now: c.now, at: c.at, timeScale: c.timeScale });
    else if (info.data?.serviceClock && !info.data.sandbox) setServiceClock({ ...info.data.serviceClock, timeScale: 1 });
  }, [sbState.data, info.data]);
  const walks = useAllWalks();
  const runs = Object.values(useUi((s) => s.runs)).filter((r) => r.status === 'running');
  const running = walks.filter((w) => w.status === 'running');
  const b = balance ?? credits.data ?? null;
  const i = info.data;
  return (
    <header className="topbar">
      {i?.sandbox ? (
        <button
          type="button"
          className="badge sandbox"
          data-testid="sandbox-badge"
          title={`Talking to the built-in emulator at ${i.baseUrl} — open the Sandbox panel (clock, balance, faults)`}
          onClick={() => useUi.getState().setView('settings')}
        >
          SANDBOX — synthetic data
        </button>
      ) : null}
      <span className="top-item" title="Active API key (its name only; the key itself is never shown)" data-testid="active-key">
        <span className="muted">key</span> {i ? (i.activeKeyName ?? (i.sandbox ? 'sandbox' : 'none set')) : '…'}
      </span>
      <span
        className="top-item"
        title={
          b?.creditsRemaining != null
            ? `${fmtExact(b.creditsRemaining)} credits (last reported by the service)`
            : 'Balance not known yet: it updates after the next call'
        }
      >
        <span className="muted">balance</span>{' '}
        <span className="num strong" data-testid="balance">
          {balanceText(b)}
        </span>
      </span>
      <span className="top-item" title="Introductory free calls left (cover calls priced 100 credits or less)">
        <span className="muted">free calls</span>{' '}
        <span className="num" data-testid="free-calls">
          {b?.freeCallsRemaining != null ? b.freeCallsRemaining : '—'}
        </span>
      </span>
      <button
        className="btn small ghost"
        title="Refresh balance (free)"
        aria-label="Refresh balance"
        onClick={() => void refreshBalance().catch(() => {})}
      >
        ↻
      </button>
      <div className="spacer" />
      <div className="menu-anchor">
        <button
          className={`btn small ${running.length || runs.length ? 'busy' : 'ghost'}`}
          onClick={() => setBgOpen(!bgOpen)}
          aria-expanded={bgOpen}
          data-testid="bg-work"
        >
          {running.length || runs.length ? (
            <>
              <span className="pulse" aria-hidden="true" /> {running.length + runs.length} running
              {running[0]?.etaMs ? ` · ~${duration(running[0].etaMs)}` : ''}
            </>
          ) : (
            'No background work'
          )}
        </button>
        {bgOpen ? <BackgroundWork walks={walks} /> : null}
      </div>
    </header>
  );
}

function BackgroundWork({ walks }: { walks: WalkInfo[] }) {
  const walkWrites = useWalkWrites();
  const toast = useUi((s) => s.toast);
  const runs = Object.values(useUi((s) => s.runs)).sort((a, b) => b.startedAt - a.startedAt);
  const act = async (f: () => Promise<WalkInfo>) => {
    try {
      await f();
    } catch (e) {
      toast('error', errorText(e));
    }
  };
  const shown = walks.slice(0, 12);
  return (
    <div className="popover wide right" data-testid="bg-panel">
      <div className="popover-title">Walks</div>
      {shown.length === 0 ? <div className="muted small">Nothing has run yet.</div> : null}
      {shown.map((w) => (
        <div key={w.walkId} className="bg-row" data-testid="bg-walk">
          <div className="bg-main">
            <span className={`status s-${w.status}`}>{w.status}</span>{' '}
            <span className="mono">
              {w.platform}/{w.endpoint}
            </span>{' '}
            <span className="muted">{w.source}</span>
            <div className="muted small">
              {w.pagesDone} page{w.pagesDone === 1 ? '' : 's'} · {fmtExact(w.itemsSeen)} items ({fmtExact(w.newItems)} new) ·{' '}
              {fmtExact(w.creditsSpent)} credits
              {w.status === 'running' && w.etaMs ? ` · ~${duration(w.etaMs)} left` : ''}
              {w.stopReason ? ` · stopped: ${w.stopReason}` : ''}
              {w.error ? ` · ${w.error}` : ''}
            </div>
          </div>
          {w.status === 'running' ? (
            <button className="btn small" onClick={() => act(() => walkWrites.cancel(w.walkId))}>
              Cancel
            </button>
          ) : w.status === 'paused' || w.status === 'cancelled' || w.status === 'failed' ? (
            <button
              className="btn small"
              onClick={() => act(() => walkWrites.resume(w.walkId, 1))}
              title="Continue from the last cursor, one page (priced as one page of this endpoint)"
            >
              Resume 1 page
            </button>
          ) : null}
        </div>
      ))}
      {runs.length ? <div className="popover-title">Watchlist runs</div> : null}
      {runs.slice(0, 6).map((r) => (
        <div key={r.runId} className="bg-row">
          <span className={`status s-${r.status}`}>{r.status}</span>{' '}
          <span className="muted small">
            {fmtExact(r.creditsSpent)} credits · {r.newItems} new
          </span>
        </div>
      ))}
    </div>
  );
}
