/** An error with its cause in the spec's terms and its way out (issue 14 #7). */
import { useEffect, useState } from 'react';
import { ApiError, errorText } from '../lib/api';
import { waitText, wayOut, type ErrorFacts, type WayId } from '../lib/errors';
import { useInfo } from '../queries/hooks';
import { useUi } from '../stores/ui';

export function factsOf(e: unknown): ErrorFacts {
  if (e instanceof ApiError)
    return {
      kind: e.kind,
      type: e.type ?? null,
      message: errorText(e),
      retryAt: typeof e.details?.retryAt === 'number' ? e.details.retryAt : null,
    };
  if (typeof e === 'string') return { kind: null, message: e };
  return { kind: 'internal', message: errorText(e) };
}

/** Re-render every second while `on` (countdowns). */
export function useNow(on: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!on) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [on]);
  return now;
}

export function WayOutBox({
  facts,
  onResume,
  onRetry,
  resumeLabel = 'Resume',
  testid = 'error',
}: {
  facts: ErrorFacts;
  onResume?: () => void;
  onRetry?: () => void;
  resumeLabel?: string;
  testid?: string;
}) {
  const info = useInfo();
  const w = wayOut(facts, { canResume: !!onResume, sandbox: !!info.data?.sandbox });
  const now = useNow(w.waitUntil !== null);
  const wait = waitText(w.waitUntil, now);
  const go = (id: WayId) => {
    const ui = useUi.getState();
    if (id === 'resume') onResume?.();
    else if (id === 'retry') (onRetry ?? onResume)?.();
    else if (id === 'usage') ui.setView('usage');
    else if (id === 'settings') ui.setView('settings');
    else if (id === 'topup') {
      if (info.data?.sandbox) ui.setView('settings');
      else
        ui.toast(
          'info',
          'Credits come from your plan (free 500 a month, paid 10,000 a month) or packs, in the service’s web dashboard. Top up there, then press Resume.',
        );
    }
  };
  return (
    <div className="errorbox wayout" role="alert" data-testid={testid} data-kind={facts.kind ?? ''} data-type={facts.type ?? ''}>
      <div>
        <strong className="cause">{w.cause}.</strong> <span className="muted">{facts.message}</span>
      </div>
      <div className="row gap wrap">
        {w.ways.map((x) => (
          <button
            key={x.id}
            type="button"
            className={`btn small ${x.id === 'resume' ? 'primary' : ''}`}
            title={x.hint}
            onClick={() => go(x.id)}
            disabled={x.id === 'resume' && !!wait}
            data-testid={`way-${x.id}`}
          >
            {x.id === 'resume' ? resumeLabel : x.label}
            {x.id === 'resume' && wait ? ` ${wait}` : ''}
          </button>
        ))}
        {onRetry && !w.ways.some((x) => x.id === 'retry') ? (
          <button type="button" className="btn small" onClick={onRetry} data-testid="way-retry">
            Retry
          </button>
        ) : null}
      </div>
    </div>
  );
}

/** A failure as a toast: the cause in the spec's terms, the message, and the navigable ways out. */
export function toastError(e: unknown, sandbox = false): void {
  const f = factsOf(e);
  const w = wayOut(f, { sandbox });
  const actions = w.ways
    .filter((x) => x.id === 'usage' || x.id === 'settings' || (x.id === 'topup' && sandbox))
    .map((x) => ({ label: x.label, view: x.id === 'usage' ? ('usage' as const) : ('settings' as const), hint: x.hint }));
  useUi.getState().toast('error', `${w.cause}. ${f.message}`, actions);
}

/** Runs a write: a toast saying `ok` when it succeeds (none without), the error's words when it fails. */
export async function runWithToast(f: () => Promise<unknown>, ok?: string): Promise<void> {
  try {
    await f();
    if (ok) useUi.getState().toast('info', ok);
  } catch (e) {
    useUi.getState().toast('error', errorText(e));
  }
}
