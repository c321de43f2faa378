/**
 * Issue 30 "Opening": the Library's reads its first rows do not need — the exact count (a scan at
 * 1M: ~0.5 s of the host's CPU), the tag and saved-set lists — wait until the first view is drawn
 * with its first answers (`settleFirstView`, started beside the view by views.tsx PreloadViews),
 * or 5 s. Asked at once, the host answered them while the page drew the first rows, and on 2
 * shared cores the two took turns. Once settled, it stays settled for the page's life: later
 * reads are not held.
 */
import { useSyncExternalStore } from 'react';

let settled = false;
let watching = false;
const listeners = new Set<() => void>();

export function firstViewSettled(): boolean {
  return settled;
}

function markSettled(): void {
  if (settled) return;
  settled = true;
  for (const l of [...listeners]) l();
}

/** `fn` after the next frame is painted (a timer also, for a page in the background: no frames there). */
function afterFrame(fn: () => void): void {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    fn();
  };
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(() => setTimeout(once, 0));
  setTimeout(once, 250);
}

/**
 * Settles the first view once a frame has been painted with nothing fetching (`busy()` false
 * before and after it), or after `capMs`. Called once the first view is drawn; later calls do nothing.
 */
export function settleFirstView(busy: () => boolean, capMs = 5000): void {
  if (watching || settled) return;
  watching = true;
  const t0 = Date.now();
  const late = () => Date.now() - t0 >= capMs;
  const check = (): void => {
    if (late()) return markSettled();
    if (busy()) return void setTimeout(check, 50);
    afterFrame(() => (busy() && !late() ? void setTimeout(check, 50) : markSettled()));
  };
  afterFrame(check);
}

function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** Whether the first view has settled (a read that can wait is `enabled` by it). */
export function useFirstViewSettled(): boolean {
  return useSyncExternalStore(subscribe, firstViewSettled, firstViewSettled);
}
