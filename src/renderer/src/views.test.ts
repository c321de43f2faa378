/**
 * Issue 30 "Opening": the other views' code is fetched only once the first view is drawn and its
 * queries are answered (preloadViews): fetched before, ~20 chunks competed with the first rows for
 * the host (one thread) and the page's main thread.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { preloadViews } from './views';

describe('the other views’ code', () => {
  afterEach(() => vi.useRealTimers());

  it('is fetched once nothing is fetching any more, not before', async () => {
    vi.useFakeTimers();
    let busy = true;
    const load = vi.fn(() => Promise.resolve({}));
    preloadViews(() => busy, [load, load]);
    await vi.advanceTimersByTimeAsync(3000);
    expect(load).not.toHaveBeenCalled();
    busy = false;
    await vi.advanceTimersByTimeAsync(2500);
    expect(load).toHaveBeenCalledTimes(2);
    preloadViews(() => false, [load]); // another list: its own once
    await vi.advanceTimersByTimeAsync(2500);
    expect(load).toHaveBeenCalledTimes(3);
  });

  it('is fetched after 5 s when the page stays busy', async () => {
    vi.useFakeTimers();
    const load = vi.fn(() => Promise.resolve({}));
    const loads = [load];
    preloadViews(() => true, loads);
    preloadViews(() => true, loads); // once per list
    await vi.advanceTimersByTimeAsync(4500);
    expect(load).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(3000);
    expect(load).toHaveBeenCalledTimes(1);
  });
});
