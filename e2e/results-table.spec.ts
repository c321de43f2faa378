/**
 * The results table without @tanstack/react-table's row model (ResultsTable.tsx, table-columns.tsx):
 * a local sort by a column header (desc, asc, none; unknown values last both ways), hiding a
 * column from the Columns menu, resizing one; the drawn rows each at their index's place wherever
 * the grid is scrolled (they lie in flow under the rowgroup's top padding).
 */
import type { Page } from '@playwright/test';
import { post } from '../src/core/archive/test-fixtures';
import { test, expect } from './fixtures';
import { searchWalk, seedItems } from './page-helpers';

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

test('scrolled anywhere, each drawn row sits at its index times 30 px and the rows cover the view', async ({ page, host }) => {
  await seedItems(
    page,
    host.dataDir,
    Array.from({ length: 400 }, (_, i) => post({ id: `7700${String(i).padStart(3, '0')}`, text: `placed row ${i}` })),
  );
  await page.getByTestId('nav-library').click();
  await expect(page.getByTestId('library-count')).toHaveText('400 matching');
  const grid = page.getByTestId('results-table');
  for (const top of [0, 47, 1234, 2999, 4567, 1111, 0]) {
    await grid.evaluate((el, top) => (el.scrollTop = top), top);
    await expect
      .poll(async () =>
        grid.evaluate((el) => {
          const group = el.querySelector('[role="rowgroup"]')!.getBoundingClientRect().top;
          const rows = [...el.querySelectorAll<HTMLElement>('[data-testid="result-row"]')].map((r) => ({
            index: Number(r.getAttribute('aria-rowindex')) - 2,
            top: r.getBoundingClientRect().top - group,
            height: r.getBoundingClientRect().height,
          }));
          const misplaced = rows.filter((r) => Math.abs(r.top - r.index * 30) > 0.01 || r.height !== 30).length;
          const first = Math.min(...rows.map((r) => r.index));
          const last = Math.max(...rows.map((r) => r.index));
          // the view (below the header) runs from scrollTop to scrollTop + clientHeight within the rowgroup
          const headed = el.querySelector('[role="rowgroup"]')!.getBoundingClientRect().top - el.getBoundingClientRect().top + el.scrollTop;
          const covered =
            first * 30 <= Math.max(0, el.scrollTop - headed) && (last + 1) * 30 >= Math.min(12000, el.scrollTop + el.clientHeight - headed);
          return { misplaced, covered, contiguous: last - first + 1 === rows.length };
        }),
      )
      .toEqual({ misplaced: 0, covered: true, contiguous: true });
  }
});

test('a row’s checkbox (not an <input>) is a checkbox to the keyboard, a screen reader and the mouse', async ({ page, host }) => {
  await seedItems(page, host.dataDir, [post({ id: '77900', text: 'first to select' }), post({ id: '77901', text: 'second to select' })]);
  await page.getByTestId('nav-library').click();
  await expect(page.getByTestId('library-count')).toHaveText('2 matching');
  const boxes = page.getByRole('checkbox', { name: 'Select row', exact: true });
  await expect(boxes).toHaveCount(2);
  const [first, second] = [boxes.nth(0), boxes.nth(1)];
  const selected = page.getByText(/^\d+ selected$/);
  await expect(first).not.toBeChecked();
  expect(await first.evaluate((e) => e.tagName)).not.toBe('INPUT');
  // a click toggles it and opens no drawer; the row shows it is selected
  await first.click();
  await expect(first).toBeChecked();
  await expect(first).toHaveAttribute('aria-checked', 'true');
  await expect(page.getByTestId('result-row').first()).toHaveClass(/\bselected\b/);
  await expect(selected).toHaveText('1 selected');
  await expect(page.getByTestId('drawer')).toHaveCount(0);
  // in the tab order: Tab from the first reaches the second; Space toggles it, j / Enter are its own (as a form control's)
  await expect(first).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(second).toBeFocused();
  await page.keyboard.press('Space');
  await expect(second).toBeChecked();
  await expect(selected).toHaveText('2 selected');
  await page.keyboard.press('Enter');
  await page.keyboard.press('j');
  await expect(page.getByTestId('drawer')).toHaveCount(0);
  await expect(second).toBeFocused();
  await page.keyboard.press('Space');
  await expect(second).not.toBeChecked();
  // the header's box selects every loaded row; the rows' boxes follow it
  await page.getByLabel('Select all loaded rows').check();
  await expect(boxes.nth(0)).toBeChecked();
  await expect(boxes.nth(1)).toBeChecked();
  await expect(selected).toHaveText('2 selected');
  await boxes.nth(1).uncheck();
  await expect(selected).toHaveText('1 selected');
});
