/**
 * The alert inbox (issue 27 #1): every alert a watchlist run raised — what matched, in which run
 * of which list — newest first, unread in bold; "Show items" opens that run's items (its alert
 * matches, or all its new items for a spike) in the list; read / unread, one or all.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { AlertInfo } from '../../../shared/contract';
import { api } from '../lib/api';
import { fmtExact } from '../lib/format';
import { useLoupe } from '../queries/hooks';
import { invalidate } from '../queries/keys';
import { Empty, ErrorBox, Skeleton, When } from '../components/cells';
import { runWithToast } from '../components/WayOut';

/** The unread count, for the Watchlists view's "Alerts" button. */
export function useUnreadAlerts(): number {
  return useLoupe('watchlists.alerts', { unreadOnly: true, limit: 1 }, { refetchInterval: 60_000 }).data?.unread ?? 0;
}

export function AlertInbox({ showItems }: { showItems: (a: AlertInfo) => void }) {
  const qc = useQueryClient();
  const [unreadOnly, setUnreadOnly] = useState(false);
  const q = useLoupe('watchlists.alerts', { unreadOnly, limit: 200 });
  const setRead = (input: { ids?: string[]; all?: boolean; read: boolean }, ok: string) =>
    runWithToast(async () => {
      await api.call('watchlists.alertsRead', input);
      invalidate(qc, 'watchlists');
    }, ok);
  const alerts = q.data?.alerts ?? [];
  return (
    <section className="panel" aria-labelledby="alert-inbox-title" data-testid="alert-inbox">
      <div className="row gap wrap">
        <h3 id="alert-inbox-title" style={{ margin: 0 }}>
          Alerts
        </h3>
        <span className="muted small" data-testid="alert-unread">
          {q.data ? `${fmtExact(q.data.unread)} unread` : '…'}
        </span>
        <div className="spacer" />
        <label className="check small">
          <input type="checkbox" checked={unreadOnly} onChange={(e) => setUnreadOnly(e.target.checked)} data-testid="alert-unread-only" />{' '}
          Unread only
        </label>
        <button
          type="button"
          className="btn small"
          disabled={!q.data?.unread}
          onClick={() => void setRead({ all: true, read: true }, 'Every alert marked read')}
          data-testid="alert-read-all"
        >
          Mark all read
        </button>
      </div>
      {q.isLoading ? <Skeleton rows={3} /> : null}
      {q.error ? <ErrorBox error={q.error} /> : null}
      {q.data && alerts.length === 0 ? (
        <Empty title={unreadOnly ? 'No unread alerts' : 'No alerts yet'}>
          A watchlist with an alert (Edit alert…) adds one here when a run finds new items that match it, and any list does when a run finds
          far more new items than its history expects.
        </Empty>
      ) : null}
      <ul className="alert-list" aria-label="Alerts, newest first">
        {alerts.map((a) => (
          <li
            key={a.alertId}
            className={`alert-row ${a.read ? 'read' : 'unread'}`}
            data-testid="alert-row"
            data-alert-id={a.alertId}
            data-read={a.read}
          >
            <div className="alert-what">
              <span className={`chip ${a.kind === 'spike' ? 'tone-warn' : 'tone-neg'}`}>{a.kind === 'spike' ? 'spike' : 'match'}</span>{' '}
              <span className="alert-summary">{a.summary}</span>
            </div>
            {a.email?.state === 'failed' ? (
              <p className="small errtext" data-testid="alert-email-failed">
                Not e-mailed yet ({a.email.tries} {a.email.tries === 1 ? 'try' : 'tries'}): {a.email.error}. It is sent on the next run.
              </p>
            ) : a.email?.state === 'sent' ? (
              <p className="small muted" data-testid="alert-email-sent">
                E-mailed.
              </p>
            ) : null}
            <div className="row gap wrap small muted">
              <span>
                {a.watchlistName ? `“${a.watchlistName}”` : 'a deleted list'} · run of <When v={a.at} />
              </span>
              <div className="spacer" />
              {a.watchlistName ? (
                <button
                  type="button"
                  className="btn small"
                  onClick={() => {
                    if (!a.read) void setRead({ ids: [a.alertId], read: true }, 'Marked read');
                    showItems(a);
                  }}
                  data-testid="alert-show-items"
                >
                  Show the {fmtExact(a.items)} item{a.items === 1 ? '' : 's'}
                </button>
              ) : null}
              <button
                type="button"
                className="btn small ghost"
                onClick={() => void setRead({ ids: [a.alertId], read: !a.read }, a.read ? 'Marked unread' : 'Marked read')}
                data-testid="alert-toggle-read"
              >
                {a.read ? 'Mark unread' : 'Mark read'}
              </button>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
