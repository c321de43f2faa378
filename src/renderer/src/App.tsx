/** The frame: rail, top bar, the current view, the drawer; global keys; the event stream. */
import { Suspense, useEffect, useMemo, useRef } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useLoupeEvent } from './lib/api';
import { useInfo, useSettings } from './queries/hooks';
import { invalidate } from './queries/keys';
import { refreshBalance } from './queries/account';
import { pageRuns, paletteCommands } from './commands';
import { useUi, VIEWS } from './stores/ui';
import { PreloadViews, VIEW_COMPONENTS } from './views';
import { Rail, TopBar } from './components/Frame';
import { Drawer } from './components/Drawer';
import { ConfirmDialog, Palette, Toasts } from './components/Overlays';
import { AskDialog, KeysHelp } from './components/Dialog';
import { duration } from './lib/format';

export function App() {
  const qc = useQueryClient();
  const view = useUi((s) => s.view);
  const settings = useSettings();
  const lastInvalidate = useRef(0);
  const lastCollect = useRef(0);
  const pending = useRef<ReturnType<typeof setTimeout> | null>(null);

  // theme: follow the OS unless Settings overrides it
  useEffect(() => {
    const t = settings.data?.theme ?? 'system';
    if (t === 'system') delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = t;
  }, [settings.data?.theme]);

  // back to the window: the balance may have moved meanwhile (a top-up, another tool spending on
  // the account) — read it again (GET /v1/credits: free, not rate counted), at most every 2 s
  const info = useInfo();
  const keySet = info.data?.keySet;
  useEffect(() => {
    let last = 0;
    const onBack = (): void => {
      if (document.visibilityState === 'hidden' || keySet === false) return;
      const now = Date.now();
      if (now - last < 2_000) return;
      last = now;
      void refreshBalance().catch(() => {});
    };
    window.addEventListener('focus', onBack);
    document.addEventListener('visibilitychange', onBack);
    return () => {
      window.removeEventListener('focus', onBack);
      document.removeEventListener('visibilitychange', onBack);
    };
  }, [keySet]);

  // the event stream: walks, balance, exports, watch runs, notices
  useLoupeEvent((e) => {
    const ui = useUi.getState();
    switch (e.type) {
      case 'walk-progress': {
        ui.putWalk(e.walk);
        // refresh the rows a walk produced, at most ~2× a second
        const now = Date.now();
        const fire = () => {
          lastInvalidate.current = Date.now();
          pending.current = null;
          invalidate(qc, 'library', 'walks');
        };
        if (e.walk.status !== 'running' || now - lastInvalidate.current > 500) fire();
        else if (!pending.current) pending.current = setTimeout(fire, 500);
        if (e.walk.status === 'failed' && e.walk.error) ui.toast('error', e.walk.error);
        if (e.walk.status !== 'running') invalidate(qc, 'usage');
        break;
      }
      case 'balance':
        ui.setBalance(e.balance);
        break;
      case 'ledger-changed':
        // another process (the CLI, a cron watch run) spent on this data folder: Usage and the
        // walks are stale; the balance itself follows as a 'balance' event
        invalidate(qc, 'usage', 'walks', 'credits');
        break;
      case 'export-progress':
        ui.putExport(e.job);
        break;
      case 'collect-progress': {
        ui.putPlan(e.plan);
        const now = Date.now();
        if (e.plan.status !== 'running') invalidate(qc, 'collect', 'library', 'usage');
        else if (now - lastCollect.current > 1000) {
          lastCollect.current = now;
          invalidate(qc, 'collect');
        }
        break;
      }
      case 'watch-run':
        ui.putRun(e.run);
        invalidate(qc, 'watchlists', 'library', 'usage', ...(e.run.status !== 'running' ? (['sandbox'] as const) : [])); // a run read the service clock (#27.3)
        if (e.raised?.length || e.alerts > 0)
          ui.toast(
            'warning',
            e.raised?.length
              ? `${e.raised.join(' ')} See Watchlists → Alerts.`
              : `“${e.list ?? 'A watchlist'}”: ${e.alerts} new item${e.alerts === 1 ? '' : 's'} match the alert.`,
          );
        break;
      case 'rate-limited':
        useUi.setState({ rateUntil: Date.now() + e.retryInMs });
        ui.toast('warning', e.message || `Rate limited by the service — retrying in ${duration(e.retryInMs)}`);
        break;
      case 'notice':
        ui.toast(e.level, e.message);
        break;
    }
  });

  // the palette, from the one list of commands (src/shared/commands.ts); the keys: ./keys.ts, installed before the first frame
  const commands = useMemo(() => paletteCommands(pageRuns(qc)), [qc]);

  const View = VIEW_COMPONENTS[view];
  return (
    <div className="app">
      <Rail />
      <div className="main">
        <TopBar />
        <div className="content">
          <main className="view-host" data-testid={`view-${view}`} aria-labelledby="view-title">
            <h1 id="view-title" className="sr-only">
              Loupe — {VIEWS.find((v) => v.id === view)?.label}
            </h1>
            {/* each view is its own chunk (./views.tsx): a moment's placeholder the first time it opens */}
            <Suspense fallback={<div className="view-loading" aria-busy="true" data-testid="view-loading" />}>
              <View />
              {/* the other views' code, once this one is drawn and its queries are answered */}
              <PreloadViews />
            </Suspense>
          </main>
          <Drawer />
        </div>
      </div>
      <Palette commands={commands} />
      <ConfirmDialog />
      <AskDialog />
      <KeysHelp />
      <Toasts />
    </div>
  );
}
