import { describe, expect, it } from 'vitest';
import { expectedByWatch, pagesFromRate, runOrder, type HeldSpan } from './order';

const H = 3_600_000;
const span = (watchId: string, over: Partial<HeldSpan> = {}): HeldSpan => ({
  watchId,
  dated: 20,
  pinned: 0,
  oldestAt: 0,
  newestAt: 19 * H, // one post an hour
  perPage: 20,
  ...over,
});

describe('pagesFromRate', () => {
  it('expects the posts of the time since the newest held one, at the rate the held ones were posted', () => {
    // one an hour: 30 h later about 30 new posts + the page holding the newest → 2 pages of 20
    expect(pagesFromRate(span('a'), 49 * H)).toBe(2);
    // 5 h later: 5 new, 1 page
    expect(pagesFromRate(span('a'), 24 * H)).toBe(1);
    // a fast account: 20 posts in 2 h, 30 h later → 285 new → 15 pages
    expect(pagesFromRate(span('b', { newestAt: 2 * H }), 32 * H)).toBe(15);
  });

  it('counts pinned posts, which take room at the head of the first page', () => {
    expect(pagesFromRate(span('a', { pinned: 3 }), 35 * H)).toBe(1); // 16 + 3 + 1 = 20
    expect(pagesFromRate(span('a', { pinned: 4 }), 35 * H)).toBe(2);
  });

  it('says nothing without two dated items or a page read', () => {
    expect(pagesFromRate(span('a', { dated: 1 }), 49 * H)).toBeNull();
    expect(pagesFromRate(span('a', { oldestAt: null }), 49 * H)).toBeNull();
    expect(pagesFromRate(span('a', { perPage: null }), 49 * H)).toBeNull();
    expect(pagesFromRate(span('a', { oldestAt: 5 * H, newestAt: 5 * H }), 49 * H)).toBeNull();
  });

  it('never expects less than one page, even with a clock behind the items', () => {
    expect(pagesFromRate(span('a'), 0)).toBe(1);
  });
});

describe('runOrder', () => {
  const ws = ['a', 'b', 'c', 'd'].map((watchId) => ({ watchId }));
  it('drives the longest expected chains first and keeps list order among equals', () => {
    const order = runOrder(
      ws,
      new Map([
        ['c', 3],
        ['b', 2],
        ['d', 2],
      ]),
    );
    expect(order.map((w) => w.watchId)).toEqual(['c', 'b', 'd', 'a']);
  });
  it('keeps every watch, once', () => {
    expect(runOrder(ws, new Map()).map((w) => w.watchId)).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('expectedByWatch', () => {
  it('takes the larger of the history and the posting rate', () => {
    const m = expectedByWatch(
      new Map([
        ['a', 3],
        ['b', 1],
      ]),
      [span('a'), span('b', { newestAt: 2 * H })],
      32 * H,
    );
    expect(m.get('a')).toBe(3); // history 3, rate 2
    expect(m.get('b')).toBe(15); // history 1, rate 15 (9.5 an hour)
  });
});
