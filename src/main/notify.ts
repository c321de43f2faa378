/**
 * OS notifications for watchlist alerts (the core's watch service calls `notify` when a scheduled
 * run finds new items matching a watchlist's alert filter). Clicking one brings the window back and
 * opens the Watchlists view. Notifications are held until closed: Electron drops the click handler
 * of a notification that was garbage-collected.
 *
 * Title and body name watchlists and items that strangers' posts may fill: Linux notification
 * daemons render a subset of markup in the body (`<b>`, `<a href>`, `<img>`: a post could make a
 * link or fetch a picture), so on Linux `&`, `<` and `>` are written as entities; everywhere,
 * control and bidi characters are made visible (issue 27 #19).
 */
import { Notification } from 'electron';
import { visible } from '../shared/visible';

/** Text as a notification shows it on `platform`: no markup on Linux, no control or bidi character anywhere. */
export function notificationText(s: string, platform: NodeJS.Platform = process.platform): string {
  const shown = visible(s, { newlines: true });
  return platform === 'linux' ? shown.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;') : shown;
}

export function alertNotifier(opts: {
  icon?: string;
  onClick(): void;
  platform?: NodeJS.Platform;
}): (title: string, body: string) => boolean {
  const live = new Set<Notification>();
  return (title, body) => {
    if (!Notification.isSupported()) return false;
    // the title is plain text on every desktop; the body is markup on Linux
    const n = new Notification({
      title: visible(title),
      body: notificationText(body, opts.platform),
      silent: false,
      ...(opts.icon ? { icon: opts.icon } : {}),
    });
    live.add(n);
    n.on('click', () => opts.onClick());
    n.on('close', () => live.delete(n));
    n.show();
    return true;
  };
}
