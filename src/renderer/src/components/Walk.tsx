/** Walks: start with a price and a confirmation, live status, cancel, "Fetch N more pages · price". */
import { useRef, useState } from 'react';
import type { Target, WalkInfo } from '../../../shared/contract';
import { errorText } from '../lib/api';
import { fmtExact } from '../lib/format';
import { etaText } from '../lib/errors';
import { toastError, useNow, WayOutBox } from './WayOut';
import { useApproveSpend, useLoupe, useWalkPrice } from '../queries/hooks';
import { useWalkWrites } from '../queries/walks';
import { useUi } from '../stores/ui';
import { SpendButton } from './cells';
import { singleFlight } from '../lib/single-flight';
import { resumePage } from './walk-position';

export function useWalk(walkId: string | null): WalkInfo | null {
  const live = useUi((s) => (walkId ? s.walks[walkId] : undefined));
  const running = !live || live.status === 'running';
  const polled = useLoupe(
    'walks.get',
    { walkId: walkId ?? '' },
    { enabled: !!walkId, refetchInterval: running ? 1500 : false, staleTime: 0 },
  );
  const p = polled.data ?? undefined;
  if (!live) return p ?? null;
  if (!p) return live;
  return p.updatedAt > live.updatedAt ? p : live;
}

/** Price → confirm above the threshold → walks.start. Returns the walk or null (declined / failed: toast). */
export function useStartWalk() {
  const approve = useApproveSpend();
  const toast = useUi((s) => s.toast);
  const walks = useWalkWrites();
  // one press = one walk, even when a click and a form submit (or two clicks) both arrive; the guard
  // outlives re-renders (a ref), the step functions are the latest ones
  const deps = useRef({ approve, toast, walks });
  deps.current = { approve, toast, walks };
  const start = useRef<ReturnType<typeof singleFlight<[Target, string, number, string], WalkInfo | null>>>(null);
  start.current ??= singleFlight(async (target: Target, source: string, pages: number, what: string): Promise<WalkInfo | null> => {
    const { approve, walks } = deps.current;
    try {
      const est = await walks.estimate(target, pages);
      const ok = await approve({
        what,
        creditsMin: est.creditsMin,
        creditsMax: est.creditsMax,
        balance: est.balance,
        needsConfirmation: est.needsConfirmation,
      });
      if (!ok) return null;
      return await walks.start(target, source, pages);
    } catch (e) {
      toastError(e);
      return null;
    }
  }, null);
  return start.current;
}

const STOP_TEXT: Record<string, string> = {
  end: 'reached the end of the list',
  max_pages: 'page limit reached — more pages are available',
  known_id: 'reached a post already held',
  since: 'reached the date limit',
  max_credits: 'credit limit reached',
  cancelled: 'cancelled',
  page_limit: 'page limit reached — more pages are available',
  restart_costs: 'the service no longer accepts the saved position — starting over costs the pages already held',
};

export function WalkBar({ walk, target, moreOptions = [1, 2, 5, 10] }: { walk: WalkInfo; target: Target; moreOptions?: number[] }) {
  const [more, setMore] = useState(moreOptions[Math.min(2, moreOptions.length - 1)]);
  // after the service rejected the saved position: the held pages still to re-read come first
  const reread = walk.rewalkAt !== undefined && walk.rewalkAt !== null ? Math.max(0, walk.pagesDone - walk.rewalkAt) : 0;
  const restart = walk.stopReason === 'restart_costs' && walk.status !== 'running';
  const price = useWalkPrice(walk.status === 'running' ? null : target, more + (restart ? reread : 0));
  const approve = useApproveSpend();
  const toast = useUi((s) => s.toast);
  const walks = useWalkWrites();
  const ended = walk.stopReason === 'end' || walk.stopReason === 'known_id' || walk.stopReason === 'since';
  // stopped by a failure (gave up, out of credits, a long wait…): the way out is to resume the
  // same walk from its saved cursor, not "fetch more" (issue 14 #7)
  const failed = walk.status !== 'running' && walk.status !== 'cancelled' && !!walk.error;
  const rateUntil = useUi((s) => s.rateUntil);
  const now = useNow(walk.status === 'running');
  const eta = walk.status === 'running' ? etaText(walk.updatedAt, walk.etaMs, now, rateUntil) : null;
  const cancel = async () => {
    try {
      await walks.cancel(walk.walkId);
    } catch (e) {
      toast('error', errorText(e));
    }
  };
  const resume = async () => {
    try {
      const est = price.data ?? (await walks.estimate(target, more + (restart ? reread : 0)));
      const what = restart
        ? `Start over: re-read ${reread} page${reread === 1 ? '' : 's'} already held, then fetch ${more} more`
        : `Fetch ${more} more page${more === 1 ? '' : 's'}`;
      // a restart's re-read pages cost again: always asked, whatever the threshold
      if (
        !(await approve({
          what,
          creditsMin: est.creditsMin,
          creditsMax: est.creditsMax,
          balance: est.balance,
          needsConfirmation: restart || est.needsConfirmation,
        }))
      )
        return;
      await walks.resume(walk.walkId, more, restart ? { payRestart: true } : {});
    } catch (e) {
      toastError(e);
    }
  };
  return (
    <div className="walkbar" data-testid="walk-status" data-status={walk.status} data-walk-id={walk.walkId}>
      <span className={`status s-${walk.status}`}>{walk.status}</span>
      <span>
        {walk.pagesDone} page{walk.pagesDone === 1 ? '' : 's'} · <span className="num">{fmtExact(walk.itemsSeen)}</span> items (
        <span className="num">{fmtExact(walk.newItems)}</span> new)
      </span>
      {walk.unreadable ? (
        <span
          className="muted"
          title="Rows without an id of their own are kept raw in the stored answers, never merged into another item"
          data-testid="walk-unreadable"
        >
          {fmtExact(walk.unreadable)} row{walk.unreadable === 1 ? '' : 's'} without an id kept raw
        </span>
      ) : null}
      <span title="What this walk actually cost so far" data-testid="walk-cost">
        cost <span className="num strong">{fmtExact(walk.creditsSpent)}</span> credits
      </span>
      {walk.status === 'running' && reread > 0 ? (
        <span className="muted" data-testid="walk-reread">
          started over: re-reading the pages already held ({walk.rewalkAt} of {walk.pagesDone})
        </span>
      ) : null}
      {eta ? (
        <span className="muted" data-testid="walk-eta">
          {eta}
        </span>
      ) : null}
      {walk.stopReason && walk.status !== 'running' && !failed ? (
        <span className="muted">{STOP_TEXT[walk.stopReason] ?? walk.stopReason}</span>
      ) : null}
      <div className="spacer" />
      {walk.status === 'running' ? (
        <button className="btn" onClick={() => void cancel()} data-testid="walk-cancel">
          Cancel
        </button>
      ) : !ended ? (
        <>
          <select value={more} onChange={(e) => setMore(Number(e.target.value))} aria-label="Pages to fetch" data-testid="more-pages">
            {moreOptions.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
          <SpendButton
            label={
              restart
                ? `Start over · re-read ${reread} + ${more} more`
                : failed
                  ? `Resume · ${more} page${more === 1 ? '' : 's'}`
                  : `Fetch ${more} more page${more === 1 ? '' : 's'}`
            }
            price={price.text}
            onClick={() => void resume()}
            testid="walk-more"
            primary={failed || restart}
            title={
              restart
                ? 'The service no longer accepts the saved position. Starting over reads the pages already held again — outside their free window they cost again — then the pages you ask for.'
                : undefined
            }
          />
        </>
      ) : null}
      {walk.notes && walk.notes.length > 0 && walk.status !== 'running' ? (
        <div className="walk-notes muted small" data-testid="walk-notes">
          {[...new Set(walk.notes)].map((n) => (
            <div key={n}>{n}</div>
          ))}
        </div>
      ) : null}
      {failed ? (
        <div className="walk-error">
          <WayOutBox
            facts={{ kind: walk.errorKind ?? null, type: walk.errorType ?? null, message: walk.error ?? '', retryAt: walk.retryAt ?? null }}
            onResume={() => void resume()}
            resumeLabel={`Resume from page ${resumePage(walk)}`}
            testid="walk-error"
          />
        </div>
      ) : null}
    </div>
  );
}
