/**
 * Issue 30 "Opening": the reads the first rows do not need wait until the first view is drawn
 * with nothing fetching (first-view.ts), or 5 s; then they are never held again.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

/** a fresh copy of the module (its state is the page's) */
const fresh = async () => {
  vi.resetModules();
  return import('./first-view');
};

describe('the first view settles', () => {
  afterEach(() => vi.useRealTimers());

  it('once nothing is fetching, after a frame, not before; then once for all', async () => {
    vi.useFakeTimers();
    const fv = await fresh();
    let busy = true;
    fv.settleFirstView(() => busy);
    await vi.advanceTimersByTimeAsync(3000);
    expect(fv.firstViewSettled()).toBe(false);
    busy = false;
    await vi.advanceTimersByTimeAsync(40);
    expect(fv.firstViewSettled()).toBe(false); // the frame after the answers comes first
    await vi.advanceTimersByTimeAsync(400);
    expect(fv.firstViewSettled()).toBe(true);
    busy = true;
    fv.settleFirstView(() => busy);
    expect(fv.firstViewSettled()).toBe(true);
  });

  it('waits again when a read starts during the frame', async () => {
    vi.useFakeTimers();
    const fv = await fresh();
    const answers = [false, true, true, false, false]; // free, then busy at the frame's end, then free
    fv.settleFirstView(() => answers.shift() ?? false);
    await vi.advanceTimersByTimeAsync(300);
    expect(fv.firstViewSettled()).toBe(false);
    await vi.advanceTimersByTimeAsync(1000);
    expect(fv.firstViewSettled()).toBe(true);
  });

  it('after 5 s when the page stays busy', async () => {
    vi.useFakeTimers();
    const fv = await fresh();
    fv.settleFirstView(() => true);
    await vi.advanceTimersByTimeAsync(4500);
    expect(fv.firstViewSettled()).toBe(false);
    await vi.advanceTimersByTimeAsync(1000);
    expect(fv.firstViewSettled()).toBe(true);
  });
});
