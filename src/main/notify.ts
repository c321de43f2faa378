/**
 * OS notifications for watchlist alerts (the core's watch service calls `notify` when a scheduled
 * run finds new items matching a watchlist's alert filter). Clicking one brings the window back and
 * opens the Watchlists view. Notifications are held until closed: Electron drops the click handler
 * of a notification that was garbage-collected.
 */
import { Notification } from 'electron';

export function alertNotifier(opts: { icon?: string; onClick(): void }): (title: string, body: string) => boolean {
  const live = new Set<Notification>();
  return (title, body) => {
    if (!Notification.isSupported()) return false;
    const n = new Notification({ title, body, silent: false, ...(opts.icon ? { icon: opts.icon } : {}) });
    live.add(n);
    n.on('click', () => opts.onClick());
    n.on('close', () => live.delete(n));
    n.show();
    return true;
  };
}
