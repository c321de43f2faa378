/**
 * The Analysis view (issue 16) in Chromium through the web host and the sandbox: posts fetched,
 * Analysis opened from the rail, a frequency table's counts equal the contract's answer, sorting
 * and "Download CSV", a row's click shows exactly that many items in the Library, a chart mark's
 * click does the same, two profiles compared side by side, overperformance, keyboard tabs, and
 * axe-core (no critical or serious violation) in light and dark.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { test, expect, shot } from './fixtures';
import { api, axeClean } from './page-helpers';

async function fetchFeed(page: Page, handle: string, pages: number): Promise<void> {
  const walk = await api<{ walkId: string }>(page, 'walks.start', {
    target: { platform: 'photo_net', endpoint: 'profile/posts', params: { handle } },
    source: 'e2e',
    maxPages: pages,
  });
  await expect
    .poll(async () => (await api<{ status: string }>(page, 'walks.get', { walkId: walk.walkId })).status, { timeout: 90_000 })
    .not.toBe('running');
}

async function addProfiles(page: Page): Promise<void> {
  for (const h of ['nasa', 'esa']) {
    await page.getByTestId('compare-profile-platform').selectOption('photo_net');
    await page.getByTestId('compare-profile-handle').fill(h);
    await page.getByTestId('compare-profile-add').click();
  }
}

const n = (x: number) => x.toLocaleString('en-US');

interface Row {
  term: string;
  count: number;
  occurrences: number;
  query: Record<string, unknown>;
}

test.describe.configure({ timeout: 240_000 });

test('analysis: frequency table = the contract, row and mark click-through to the Library, CSV, comparison, overperformance, accessible', async ({
  page,
}) => {
  await fetchFeed(page, 'nasa', 6);
  await fetchFeed(page, 'esa', 3);

  // empty Library filters: Analysis counts everything
  await page.getByTestId('nav-analysis').click();
  await expect(page.getByTestId('view-analysis')).toBeVisible();
  const table = page.getByTestId('frequency-table');
  await expect(table).toBeVisible({ timeout: 30_000 });
  const want = await api<{ items: number; rows: Row[] }>(page, 'analysis.frequency', { query: {}, field: 'hashtags', limit: 50 });
  expect(want.rows.length, 'the sandbox captions carry hashtags').toBeGreaterThan(1);
  await expect(page.getByTestId('frequency-items')).toHaveText(n(want.items));
  const rows = table.getByTestId('frequency-row');
  await expect(rows).toHaveCount(want.rows.length);
  const shown = await rows.evaluateAll((els) => els.map((e) => [e.getAttribute('data-term'), Number(e.getAttribute('data-count'))]));
  expect(shown).toEqual(want.rows.map((r) => [r.term, r.count]));

  // sorting by "Times used" is the core's order by occurrences
  await page.getByTestId('sort-occurrences').click();
  const byOcc = await api<{ rows: Row[] }>(page, 'analysis.frequency', {
    query: {},
    field: 'hashtags',
    limit: 50,
    sort: 'occurrences',
    dir: 'desc',
  });
  await expect(table.locator('th[aria-sort="descending"]')).toContainText('Times used');
  await expect
    .poll(async () => rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-term'))))
    .toEqual(byOcc.rows.map((r) => r.term));
  await page.getByTestId('sort-count').click();
  await expect.poll(async () => rows.first().getAttribute('data-term')).toBe(want.rows[0].term);

  // Download CSV: the table's rows, Excel-safe header
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('frequency-csv').click()]);
  // the exports' cell rules (byte-order mark, quoted cells): read with a CSV reader
  const text = readFileSync((await download.path())!, 'utf8');
  expect(text.startsWith('\uFEFF')).toBe(true);
  const csv = parseCsv(text, { bom: true }) as string[][];
  expect(csv[0].join(',')).toBe('term,items,occurrences,share,first_seen,last_seen,views,likes,comments,shares,saves,engagement');
  expect(csv).toHaveLength(want.rows.length + 1);
  expect(csv[1].slice(0, 2)).toEqual([want.rows[0].term, String(want.rows[0].count)]);
  await shot(page, 'analysis-frequency');

  // a row → the Library with exactly its items (the term shown as a condition)
  const row = want.rows[1];
  await rows.nth(1).click();
  await expect(page.getByTestId('view-library')).toBeVisible();
  await expect(page.getByTestId('library-count')).toHaveText(`${n(row.count)} matching`);
  await expect(page.getByTestId('term-condition')).toContainText(row.term);

  // the Library's "Analyse…" analyses those filters: the same term is in every item
  await page.getByTestId('analyse-open').click();
  await expect(page.getByTestId('frequency-items')).toHaveText(n(row.count));
  // (other tags may be in all of them too: ties are ordered by the term)
  await expect(page.locator(`[data-testid="frequency-row"][data-term="${row.term}"]`)).toHaveAttribute('data-count', String(row.count));

  // words in another field, then everything again
  await page.getByTestId('field-words').click();
  await expect(page.getByTestId('frequency-panel').getByRole('heading')).toHaveText('Most frequent words');
  await page.getByTestId('analysis-scope').selectOption('all');
  await expect(page.getByTestId('frequency-items')).toHaveText(n(want.items));

  // keyboard: tabs move with the arrow keys; a chart mark → the Library with exactly its items
  await page.getByTestId('analysis-tab-frequency').focus();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('analysis-tab-compare')).toBeFocused();
  await expect(page.getByTestId('analysis-tab-compare')).toHaveAttribute('aria-selected', 'true');
  await page.getByTestId('analysis-tab-charts').click();
  const marks = page.getByTestId('chart-volume-by').getByTestId('chart-mark');
  await expect(marks.first()).toBeVisible({ timeout: 30_000 });
  const values = await marks.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-value'))));
  const big = values.indexOf(Math.max(...values));
  const value = values[big];
  await marks.nth(big).click();
  await expect(page.getByTestId('view-library')).toBeVisible();
  await expect(page.getByTestId('library-count')).toHaveText(`${n(value)} matching`);
  await expect(page.getByTestId('time-condition').first()).toBeVisible();

  // the same through the keyboard table of values (engagement distribution)
  await page.keyboard.press('g');
  await page.keyboard.press('a');
  await expect(page.getByTestId('view-analysis')).toBeVisible();
  const dist = page.getByTestId('chart-engagement-dist');
  await dist.locator('summary').click();
  const cell = dist.getByTestId('chart-value').first();
  const cellCount = Number((await cell.innerText()).replace(/[^\d]/g, ''));
  await cell.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('library-count')).toHaveText(`${n(cellCount)} matching`);

  // comparison of two profiles
  await page.getByTestId('nav-analysis').click();
  await page.getByTestId('analysis-tab-compare').click();
  await expect(page.getByTestId('compare-panel').getByTestId('empty-state')).toContainText('two to eight');
  await addProfiles(page);
  const cmp = page.getByTestId('compare-table');
  await expect(cmp.getByTestId('compare-row')).toHaveCount(2, { timeout: 30_000 });
  for (const [i, h] of ['nasa', 'esa'].entries()) {
    const items = await api<number>(page, 'library.count', { platforms: ['photo_net'], author: h });
    expect(items).toBeGreaterThan(0);
    await expect(cmp.getByTestId('compare-items').nth(i)).toHaveText(n(items));
  }
  await expect(page.getByTestId('chart-compare-volume').getByTestId('chart-mark').first()).toBeVisible();
  await expect(page.getByTestId('compare-top-post').first()).toBeVisible();
  await shot(page, 'analysis-compare');

  // overperformance: scored rows (or the way out when none can be)
  await page.getByTestId('analysis-tab-overperformance').click();
  await expect(page.getByTestId('over-table').or(page.getByTestId('empty-state'))).toBeVisible({ timeout: 30_000 });

  for (const theme of ['light', 'dark'] as const) {
    await api(page, 'settings.update', { theme });
    await page.reload();
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
    await page.getByTestId('nav-analysis').click();
    await page.getByTestId('analysis-tab-frequency').click();
    await expect(page.getByTestId('frequency-table')).toBeVisible({ timeout: 30_000 });
    await axeClean(page, `analysis frequency (${theme})`);
    await page.getByTestId('analysis-tab-charts').click();
    await expect(page.getByTestId('chart-volume-by').getByTestId('chart-mark').first()).toBeVisible({ timeout: 30_000 });
    await page.getByTestId('chart-volume-by').locator('summary').click();
    await axeClean(page, `analysis charts (${theme})`);
    await page.getByTestId('analysis-tab-compare').click();
    await addProfiles(page);
    await expect(page.getByTestId('compare-table')).toBeVisible({ timeout: 30_000 });
    await axeClean(page, `analysis comparison (${theme})`);
    await page.getByTestId('analysis-tab-overperformance').click();
    await expect(page.getByTestId('over-table').or(page.getByTestId('empty-state'))).toBeVisible({ timeout: 30_000 });
    await axeClean(page, `analysis overperformance (${theme})`);
  }
  await shot(page, 'analysis-overperformance');
});
