/**
 * The results table without @tanstack/react-table's row model (ResultsTable.tsx, table-columns.tsx):
 * a local sort by a column header (desc, asc, none; unknown values last both ways), hiding a
 * column from the Columns menu, resizing one.
 */
import type { Page } from '@playwright/test';
import { test, expect } from './fixtures';
import { searchWalk } from './page-helpers';

async function search(page: Page, query: string): Promise<void> {
  await searchWalk(page, query);
  await expect(page.getByTestId('result-row').first()).toBeVisible();
}

/** The values of one column in the drawn rows: exact numbers (from the title), null for "—". */
async function column(page: Page, header: string): Promise<Array<number | null>> {
  const headers = await page.getByRole('columnheader').allTextContents();
  const i = headers.findIndex((h) => h.startsWith(header));
  expect(i).toBeGreaterThanOrEqual(0);
  return page.locator('[data-testid="result-row"]').evaluateAll(
    (rows, i) =>
      rows
        .sort((a, b) => Number(a.getAttribute('aria-rowindex')) - Number(b.getAttribute('aria-rowindex')))
        .map((r) => {
          const cell = r.querySelectorAll('[role="gridcell"]')[i];
          const num = cell?.matches('.num') ? cell : cell?.querySelector('.num');
          return num ? Number((num.getAttribute('title') ?? '').replace(/,/g, '')) : null;
        }),
    i,
  );
}

const sortedBy = (v: Array<number | null>, dir: 'desc' | 'asc') => {
  const known = v.filter((x): x is number => x !== null);
  const firstNull = v.indexOf(null);
  return (
    (firstNull === -1 || v.slice(firstNull).every((x) => x === null)) &&
    known.every((x, k) => k === 0 || (dir === 'desc' ? known[k - 1] >= x : known[k - 1] <= x))
  );
};

test('a column header sorts what is loaded: descending, ascending, then as loaded', async ({ page }) => {
  await search(page, 'running shoes');
  const likes = page.getByRole('columnheader', { name: /^Likes/ });
  const asLoaded = await column(page, 'Likes');
  await likes.click();
  await expect(likes).toHaveAttribute('aria-sort', 'descending');
  const desc = await column(page, 'Likes');
  expect(sortedBy(desc, 'desc')).toBe(true);
  await likes.click();
  await expect(likes).toHaveAttribute('aria-sort', 'ascending');
  expect(sortedBy(await column(page, 'Likes'), 'asc')).toBe(true);
  await likes.click();
  await expect(likes).toHaveAttribute('aria-sort', 'none');
  expect(await column(page, 'Likes')).toEqual(asLoaded);
  expect(desc).not.toEqual(asLoaded); // the sort changed something (the feed is not already in that order)
});

test('the Columns menu hides a column; a header resizes by dragging', async ({ page }) => {
  await search(page, 'trail running');
  await expect(page.getByRole('columnheader', { name: /^Author/ })).toBeVisible();
  await page.getByTestId('columns-menu').click();
  await page.getByLabel('Author', { exact: true }).uncheck();
  await expect(page.getByRole('columnheader', { name: /^Author/ })).toHaveCount(0);
  const cells = await page.locator('[data-testid="result-row"]').first().locator('[role="gridcell"]').count();
  expect(cells).toBe(await page.getByRole('columnheader').count());
  const text = page.getByRole('columnheader', { name: /^Text/ });
  const w0 = (await text.boundingBox())!.width;
  const grip = text.locator('.resizer');
  const g = (await grip.boundingBox())!;
  await page.mouse.move(g.x + g.width / 2, g.y + g.height / 2);
  await page.mouse.down();
  await page.mouse.move(g.x + g.width / 2 + 60, g.y + g.height / 2, { steps: 4 });
  await page.mouse.up();
  await expect.poll(async () => Math.round((await text.boundingBox())!.width - w0)).toBe(60);
  // the first row's text cell follows its header
  const cell = page.locator('[data-testid="result-row"]').first().locator('[role="gridcell"]').first();
  expect(Math.round((await cell.boundingBox())!.width)).toBe(Math.round((await text.boundingBox())!.width));
});
