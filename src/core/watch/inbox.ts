/**
 * The alert inbox's contract methods (issue 27 #1): `watchlists.alerts` (newest first, with the
 * items each is about as a library query: the run's matches, or its new items) and
 * `watchlists.alertsRead` (read / unread, these or all).
 */
import type { AlertInfo, LoupeImpl } from '../../shared/contract';
import type { AlertRow } from '../archive';
import type { WatchStore } from '../archive';
import type { Clock } from '../ports';

export type InboxMethods = Pick<LoupeImpl, 'watchlists.alerts' | 'watchlists.alertsRead'>;

function info(store: WatchStore, names: Map<string, string>, a: AlertRow): AlertInfo {
  const alert = store.list(a.watchlistId)?.alert ?? null;
  const source = { type: 'watchlist' as const, id: a.watchlistId, run: a.runId };
  return {
    alertId: a.alertId,
    watchlistId: a.watchlistId,
    watchlistName: names.get(a.watchlistId) ?? '',
    runId: a.runId,
    kind: a.kind,
    at: a.at,
    items: a.items,
    expected: a.expected,
    summary: a.summary,
    read: a.readAt !== null,
    query: a.kind === 'labels' && alert?.length ? { source, labels: alert } : { source },
    email: a.email ? { state: a.email.state, error: a.email.error, tries: a.email.tries } : null,
  };
}

export function inboxMethods(store: WatchStore, clock: Clock): InboxMethods {
  return {
    'watchlists.alerts': async (i) => {
      const names = new Map(store.lists().map((l) => [l.id, l.name]));
      return {
        alerts: store.alerts.list({ unreadOnly: i.unreadOnly, limit: i.limit }).map((a) => info(store, names, a)),
        unread: store.alerts.unread(),
      };
    },
    'watchlists.alertsRead': async (i) => {
      const read = i.read ?? true;
      const changed = i.all ? (read ? store.alerts.readAll(clock.now()) : 0) : store.alerts.setRead(i.ids ?? [], read ? clock.now() : null);
      return { changed, unread: store.alerts.unread() };
    },
  };
}
