/**
 * Reading and coding in the Library (issue 27 part B), driven in Chromium as an analyst would.
 * Items are seeded into the host's archive (e2e/page-helpers.ts seedItems); requests are counted
 * at the page's door (/api/library.*).
 */
import type { Page, Request } from '@playwright/test';
import { post } from '../src/core/archive/test-fixtures';
import { test, expect } from './fixtures';
import { seedItems } from './page-helpers';

/** the bodies of the library.query / library.count requests the page sends from now on */
function libraryRequests(page: Page): Array<Record<string, unknown>> {
  const seen: Array<Record<string, unknown>> = [];
  page.on('request', (r: Request) => {
    if (/\/api\/library\.(query|count)$/.test(r.url())) seen.push(JSON.parse(r.postData() ?? '{}') as Record<string, unknown>);
  });
  return seen;
}

const DATES = ['2024-03-02T10:00:00Z', '2024-06-01T10:00:00Z', '2023-12-24T10:00:00Z', '2024-09-09T10:00:00Z', '2024-01-15T10:00:00Z'];

test('the Library shows newest published first, with the arrow on Published; "+ label condition" queries nothing until chosen', async ({ page, host }) => {
  // seeded in an order that is neither published order nor its reverse
  await seedItems(page, host.dataDir, DATES.map((d, i) => post({ id: `8100${i}`, text: `order test ${i}`, published_at: d })));
  await page.getByTestId('nav-library').click();
  await expect(page.getByTestId('library-count')).toHaveText('5 matching');
  const published = page.getByRole('columnheader', { name: /Published/ });
  await expect(published).toHaveAttribute('aria-sort', 'descending');
  const ids = await page.getByTestId('result-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')));
  expect(ids).toEqual(['81003', '81001', '81000', '81004', '81002']);

  const seen = libraryRequests(page);
  await page.getByTestId('add-label-condition').click();
  const cond = page.getByTestId('label-conditions');
  await expect(cond.getByLabel('label family')).toBeVisible();
  await expect(page.getByTestId('library-count')).toHaveText('5 matching');
  // the row waits to be filled in: no field, operator or value is shown or chosen for the analyst
  await expect(cond.getByLabel('label field')).toHaveCount(0);
  await cond.getByLabel('label family').selectOption('sentiment');
  await expect(page.getByTestId('library-count')).toHaveText('5 matching');
  expect(seen.filter((q) => q.labels !== undefined)).toEqual([]);
  // once the value is chosen, the condition is one query
  await cond.getByLabel('value').selectOption('negative');
  await expect.poll(() => seen.filter((q) => Array.isArray(q.labels)).length).toBeGreaterThan(0);
  expect(seen.filter((q) => Array.isArray(q.labels)).every((q) => JSON.stringify(q.labels) === JSON.stringify([{ family: 'sentiment', field: 'label', op: 'eq', value: 'negative' }]))).toBe(true);
  await expect(page.getByTestId('library-count')).toHaveText('0 matching');
  // removing it brings every item back
  await cond.getByRole('button', { name: 'Remove condition' }).click();
  await expect(page.getByTestId('library-count')).toHaveText('5 matching');
});
