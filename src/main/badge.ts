/**
 * The new-item count on the dock (macOS), the launcher (Linux desktops that show Unity counts) or
 * the taskbar button (Windows: an overlay icon, which is what Windows offers for a count). The
 * count is the sum of the watchlists' `newSinceSeen`, read through the contract, refreshed after
 * every finished watch run and after the user marks a watchlist seen.
 */
import { app, nativeImage, type BrowserWindow } from 'electron';

export interface Badge {
  set(count: number): void;
  readonly count: number;
}

export function createBadge(opts: { platform: NodeJS.Platform; window(): BrowserWindow | null; overlayIcon: string }): Badge {
  let count = 0;
  return {
    get count() {
      return count;
    },
    set(n: number) {
      const next = Math.max(0, Math.floor(Number.isFinite(n) ? n : 0));
      if (next === count) return;
      count = next;
      if (opts.platform === 'win32') {
        const win = opts.window();
        if (win && !win.isDestroyed())
          win.setOverlayIcon(count > 0 ? nativeImage.createFromPath(opts.overlayIcon) : null, count > 0 ? `${count} new items` : '');
      } else {
        app.setBadgeCount(count);
      }
    },
  };
}

/** The number the badge shows: new items across all watchlists since the user last looked. */
export function newItemCount(lists: Array<{ newSinceSeen: number }>): number {
  return lists.reduce((n, l) => n + (Number.isFinite(l.newSinceSeen) ? Math.max(0, l.newSinceSeen) : 0), 0);
}
