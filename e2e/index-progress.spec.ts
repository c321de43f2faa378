/**
 * The analysis index's progress in the UI (issue 30: "say in the UI how far the build is and what
 * is exact meanwhile"): an archive of 30,000 posts whose analysis index was never built (ingested
 * by another connection, as a walk or the CLI would), opened on Analysis in Chromium through the
 * web host. The view's read starts the build in the background; meanwhile the view says how far
 * it is and that every table is still exact, and the frequency table it shows then is the
 * contract's answer; once the build is done the note goes away and the table is the same. Waits
 * on states (the note, the contract's indexStatus), never on time.
 */
import { openArchive } from '../src/core/archive';
import { archivePath } from '../src/core/paths';
import { post } from '../src/core/archive/test-fixtures';
import { test, expect } from './fixtures';
import { api } from './page-helpers';

/** more than a read takes in before answering (SYNC_BUDGET, 5,000): the rest is built in the background */
const ITEMS = 30_000;
const TAGS = ['coffee', 'tea', 'kettle', 'cocoa', 'matcha', 'espresso', 'chai'];

interface Status {
  items: number;
  waiting: number;
  current: boolean;
  building: boolean;
}
interface Freq {
  items: number;
  rows: Array<{ term: string; count: number }>;
}

test.describe.configure({ timeout: 300_000 });

test('Analysis on an archive without its index: how far the build is and that every table is exact, then nothing once built', async ({
  page,
  host,
}) => {
  await api(page, 'library.count', {}); // the archive exists
  const a = openArchive(archivePath(host.dataDir));
  try {
    for (let from = 0; from < ITEMS; from += 5_000)
      a.ingestItems(
        Array.from({ length: 5_000 }, (_, k) => {
          const i = from + k;
          const text = `morning ${i % 11 === 0 ? 'brew' : 'cup'} #${TAGS[i % TAGS.length]} #${TAGS[(i * 3) % 5]} @user${i % 13}`;
          return {
            platform: 'photo_net',
            kind: 'post',
            record: post({
              id: String(7_100_000_000 + i),
              text,
              published_at: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
              author: { id: String(500 + (i % 40)), username: `user${i % 40}`, display_name: null },
            }),
          };
        }),
        { callId: `index-progress-seed-${from}`, source: 'e2e' },
      );
  } finally {
    a.close();
  }
  const before = await api<Status>(page, 'analysis.indexStatus');
  expect(before).toMatchObject({ items: ITEMS, current: false, building: false });
  expect(before.waiting).toBeGreaterThan(5_000);

  await page.getByTestId('nav-analysis').click();
  await expect(page.getByTestId('view-analysis')).toBeVisible();
  // shown until a poll finds the index complete (at least one poll interval, whatever the build's speed)
  const note = page.getByTestId('analysis-index-progress');
  await expect(note).toBeVisible({ timeout: 30_000 });
  await expect(note).toHaveAttribute('role', 'status');
  await expect(note).toContainText(/The analysis index is not ready|Preparing the analysis index: \d+ %/);
  await expect(note).toContainText(`of ${ITEMS.toLocaleString('en-US')} items`);
  await expect(note).toContainText('every table and chart here is still exact');

  // what the view shows meanwhile is exact: the contract's answer counted from the items
  const table = page.getByTestId('frequency-table');
  await expect(table).toBeVisible({ timeout: 60_000 });
  const want = await api<Freq>(page, 'analysis.frequency', { query: {}, field: 'hashtags', limit: 50 });
  expect(want.items).toBe(ITEMS);
  // each tag's items, counted here from what was ingested
  const expected = Object.fromEntries(
    TAGS.map((t) => [
      `#${t}`,
      Array.from({ length: ITEMS }, (_, i) => i).filter((i) => TAGS[i % TAGS.length] === t || TAGS[(i * 3) % 5] === t).length,
    ]),
  );
  // the table's rows and the note, read at one moment: the table was shown while the index was not complete
  const seen = await page.evaluate(() => ({
    note: document.querySelector('[data-testid="analysis-index-progress"]') !== null,
    rows: [...document.querySelectorAll('[data-testid="frequency-table"] [data-testid="frequency-row"]')].map((e) => [
      e.getAttribute('data-term'),
      Number(e.getAttribute('data-count')),
    ]),
  }));
  expect(seen.note, 'the progress line is shown beside the table').toBe(true);
  const meanwhile = seen.rows;
  expect(meanwhile).toEqual(want.rows.map((r) => [r.term, r.count]));
  expect(Object.fromEntries(meanwhile)).toEqual(expected);

  // the build ends: the contract says complete, and the note goes away at the view's next poll
  await expect
    .poll(async () => api<Status>(page, 'analysis.indexStatus'), { timeout: 240_000, intervals: [1_000] })
    .toEqual({ items: ITEMS, waiting: 0, current: true, building: false });
  await expect(note).toHaveCount(0, { timeout: 30_000 });
  // the same table from the built index
  const after = await api<Freq>(page, 'analysis.frequency', { query: {}, field: 'hashtags', limit: 50 });
  expect(after.rows.map((r) => [r.term, r.count])).toEqual(meanwhile);
});
