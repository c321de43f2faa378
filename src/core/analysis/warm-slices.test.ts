/**
 * The analysis index's background build (AnalysisIndex.warm) gives the thread back between slices
 * sized to about SLICE_MS (a fixed chunk of 20,000 posts held the app's main thread ~10 s at a time
 * on a big backlog), and builds the same index as one catch-up.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openArchive, type Archive } from '../archive';
import { post } from '../archive/test-fixtures';
import { testDb } from '../archive/testing';
import { mulberry32 } from '../../shared/random';
import { AnalysisIndex, nextSlice, SLICE_MS } from './analysis-index';

const WORDS = ['kettle', 'coffee', 'morning', 'review', 'price', 'launch', 'bank', 'america', 'travel', 'paris', 'the', 'of'];

function fill(a: Archive, n: number): void {
  const r = mulberry32(11);
  const batch = Array.from({ length: n }, (_, i) => {
    const words = Array.from({ length: 8 }, () => WORDS[Math.floor(r() * WORDS.length)]);
    const text = `${words.join(' ')} #${WORDS[i % 7]} @user${i % 13}`;
    return {
      platform: i % 2 ? 'photo_net' : 'micro_net',
      kind: 'post',
      record: post({
        id: String(9_000_000_000_000_000_000n + BigInt(i)),
        text,
        published_at: new Date(Date.UTC(2024, 0, 1) + (i % 90) * 86_400_000).toISOString(),
      }),
    };
  });
  a.ingestItems(batch, { callId: 'warm-test', source: 'test' });
}

const dump = (a: Archive): unknown => [
  testDb(a)
    .prepare(
      'SELECT field, term, docs, occ, first, last, views, likes, comments, shares, saves, engagement FROM an_terms ORDER BY field, term',
    )
    .all(),
  testDb(a).prepare('SELECT ff, day, platform, kind, value, n FROM an_daily ORDER BY ff, day, platform, kind, value').all(),
  testDb(a).prepare('SELECT count(*) AS n FROM an_item_terms').get(),
];

const open: Archive[] = [];
afterEach(() => {
  for (const a of open.splice(0)) a.close();
});

describe('analysis index background build', () => {
  it('sizes the next slice toward SLICE_MS: halves at most, doubles at most, within 100..20,000 posts', () => {
    expect(nextSlice(1_000, SLICE_MS)).toBe(1_000);
    expect(nextSlice(1_000, SLICE_MS * 10)).toBe(500);
    expect(nextSlice(1_000, SLICE_MS / 10)).toBe(2_000);
    expect(nextSlice(1_000, SLICE_MS * 1.25)).toBe(800);
    expect(nextSlice(150, SLICE_MS * 10)).toBe(100);
    expect(nextSlice(15_000, 1)).toBe(20_000);
    expect(nextSlice(1_000, 0)).toBe(2_000);
  });

  it('yields between slices while it builds, and builds the same index as one catch-up', async () => {
    const sliced = openArchive(':memory:');
    const whole = openArchive(':memory:');
    open.push(sliced, whole);
    fill(sliced, 3_500);
    fill(whole, 3_500);
    const index = new AnalysisIndex(sliced);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    try {
      await index.warm(); // a first slice of 1,000 posts, then at most twice as many: three slices at least
    } finally {
      clearInterval(timer);
    }
    expect(index.current()).toBe(true);
    expect(ticks).toBeGreaterThanOrEqual(2); // one fixed chunk of 20,000 took all 3,500 at once: one tick, after it
    const one = new AnalysisIndex(whole);
    one.catchUp(Infinity);
    expect(one.current()).toBe(true);
    expect(dump(sliced)).toEqual(dump(whole));
  }, 60_000);
});
