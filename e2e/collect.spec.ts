/**
 * Collect (issue 28) in Chromium: reach the view from the keyboard, paste a list written the way
 * analysts write them, check the plan — by line, priced as a whole before anything is spent, its
 * depth curve — move the depth, save and run it (asked first above the threshold), watch it finish
 * with the service's charges as its spending, and open its results in the Library. axe-clean.
 */
import { test, expect, shot } from './fixtures';
import { api, axeClean } from './page-helpers';

// no introductory free calls: what the run spends shows
test.use({ hostOptions: { sandbox: { freeCalls: 0 } } });

test('a list of searches on two networks: planned by line, priced first, run, results in the Library', async ({ page, sandboxAdmin }) => {
  await page.keyboard.press('g');
  await page.keyboard.press('o');
  await expect(page.getByTestId('view-collect')).toBeVisible();
  await page.getByTestId('collect-name').fill('Shoes');
  await page.getByTestId('collect-do').selectOption('search');
  const nets = page.getByTestId('collect-networks');
  await nets.getByLabel('micro_net', { exact: true }).check();
  await nets.getByLabel('forum_net', { exact: true }).check();
  await page.getByTestId('collect-text').fill('running shoes\ntrail shoes\n\nrunning shoes\nhttps://micro-net.example/someone\n');
  const charges = sandboxAdmin.charges().length;
  await page.getByTestId('collect-check').click();
  const counts = page.getByTestId('collect-counts');
  await expect(counts).toContainText('4 inputs to collect');
  await expect(counts).toContainText('1 duplicate');
  await expect(counts).toContainText('1 not usable');
  await expect(page.getByTestId('collect-duplicates')).toContainText('line 4: running shoes — same as line 1');
  await expect(page.getByTestId('collect-problems')).toContainText('line 5: https://micro-net.example/someone — an address, not a search');
  await expect(page.getByTestId('collect-price')).toContainText(
    /Before anything is spent: [\d,]+–[\d,]+ credits, likely [\d,]+ · 4 requests/,
  );
  await expect(page.getByTestId('collect-networks-table')).toContainText('search/tweets');
  await expect(page.getByTestId('collect-depth-curve')).toBeVisible();
  expect(sandboxAdmin.charges().length).toBe(charges); // checking spends nothing
  expect(await api<unknown[]>(page, 'collect.list')).toEqual([]); // …and saves nothing
  for (const theme of ['light', 'dark'] as const) {
    await page.evaluate((t) => document.documentElement.setAttribute('data-theme', t), theme);
    await axeClean(page, `collect plan (${theme})`);
  }
  await shot(page, 'collect-plan');

  // two pages per input: the plan is priced again by itself (both searches take max_pages: the
  // same 4 requests, twice the pages and the ceiling)
  const maxOf = (t: string | null) => Number(/–([\d,]+) credits/.exec(t ?? '')?.[1].replace(/,/g, ''));
  const oneDeep = maxOf(await page.getByTestId('collect-price').textContent());
  await page.getByTestId('collect-pages').fill('2');
  await expect(page.getByTestId('collect-price')).toContainText(`–${(2 * oneDeep).toLocaleString('en-US')} credits`);

  // above the threshold (100 credits by default): asked first, with the figures
  await page.getByTestId('collect-run').click();
  await expect(page.getByTestId('confirm-dialog')).toContainText('Could cost');
  await page.getByTestId('confirm-ok').click();
  await expect(page.getByTestId('collect-detail')).toBeVisible();
  await expect(page.getByTestId('collect-status')).toHaveText(/^done/, { timeout: 60_000 });
  const charged = sandboxAdmin.charges().reduce((s, c) => s + c.credits_used, 0);
  expect(charged).toBeGreaterThan(0);
  await expect(page.getByTestId('collect-spent')).toContainText(`Spent ${charged.toLocaleString('en-US')} credits this run`);
  await expect(page.getByTestId('collect-inputs')).toContainText('running shoes');
  await axeClean(page, 'collect detail');
  await shot(page, 'collect-run');

  // the results: a saved set named after the plan, one click to the Library
  await page.getByTestId('collect-open-library').click();
  await expect(page.getByTestId('view-library')).toBeVisible();
  const sets = await api<Array<{ name: string }>>(page, 'library.resultSets');
  expect(sets.map((s) => s.name)).toContain('Shoes');
});
