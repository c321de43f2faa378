/**
 * Reading and coding in the Library (issue 27 part B), driven in Chromium as an analyst would.
 * Items are seeded into the host's archive (e2e/page-helpers.ts seedItems); requests are counted
 * at the page's door (/api/library.*).
 */
import type { Page, Request } from '@playwright/test';
import { post } from '../src/core/archive/test-fixtures';
import { test, expect } from './fixtures';
import { api, axeClean, searchWalk, seedItems } from './page-helpers';

/** the bodies of the library.query / library.count requests the page sends from now on */
function libraryRequests(page: Page): Array<Record<string, unknown>> {
  const seen: Array<Record<string, unknown>> = [];
  page.on('request', (r: Request) => {
    if (/\/api\/library\.(query|count)$/.test(r.url())) seen.push(JSON.parse(r.postData() ?? '{}') as Record<string, unknown>);
  });
  return seen;
}

const DATES = ['2024-03-02T10:00:00Z', '2024-06-01T10:00:00Z', '2023-12-24T10:00:00Z', '2024-09-09T10:00:00Z', '2024-01-15T10:00:00Z'];

test('the Library shows newest published first, with the arrow on Published; "+ label condition" queries nothing until chosen', async ({
  page,
  host,
}) => {
  // seeded in an order that is neither published order nor its reverse
  await seedItems(
    page,
    host.dataDir,
    DATES.map((d, i) => post({ id: `8100${i}`, text: `order test ${i}`, published_at: d })),
  );
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
  expect(
    seen
      .filter((q) => Array.isArray(q.labels))
      .every((q) => JSON.stringify(q.labels) === JSON.stringify([{ family: 'sentiment', field: 'label', op: 'eq', value: 'negative' }])),
  ).toBe(true);
  await expect(page.getByTestId('library-count')).toHaveText('0 matching');
  // removing it brings every item back
  await cond.getByRole('button', { name: 'Remove condition' }).click();
  await expect(page.getByTestId('library-count')).toHaveText('5 matching');
});

/** what has focus: the drawer, a drawer field, a row (its id) or something else */
const focused = (page: Page) =>
  page.evaluate(() => {
    const a = document.activeElement as HTMLElement | null;
    if (!a || a === document.body) return 'body';
    if (a.dataset.testid === 'result-row') return `row:${a.dataset.id}`;
    return a.dataset.testid ?? a.tagName.toLowerCase();
  });

test('keyboard only: j and Enter open an item with focus in the drawer; t tags, n notes, Esc goes back to the row', async ({
  page,
  host,
}) => {
  await seedItems(
    page,
    host.dataDir,
    DATES.slice(0, 3).map((d, i) => post({ id: `8200${i}`, text: `keyboard ${i}`, published_at: d })),
  );
  await expect(page.getByTestId('view-search')).toBeVisible();
  await page.keyboard.press('g');
  await page.keyboard.press('l');
  await expect(page.getByTestId('result-row')).toHaveCount(3);
  expect(await focused(page)).toBe('body');
  // newest first: 82001, 82000, 82002
  await page.keyboard.press('j');
  await page.keyboard.press('Enter');
  const drawer = page.getByTestId('drawer');
  await expect(drawer).toContainText('82000');
  await expect.poll(() => focused(page)).toBe('drawer');

  await page.keyboard.press('t');
  await expect.poll(() => focused(page)).toBe('drawer-tag');
  await page.keyboard.type('urgent');
  await page.keyboard.press('Enter');
  await expect(drawer.getByRole('button', { name: 'Remove tag urgent' })).toBeVisible();
  await expect(page.getByTestId('drawer-tag')).toHaveValue(''); // the `t` itself was not typed
  await page.keyboard.press('Escape');
  await expect.poll(() => focused(page)).toBe('drawer');
  await expect(drawer).toBeVisible();

  await page.keyboard.press('n');
  await expect.poll(() => focused(page)).toBe('drawer-note');
  await page.keyboard.type('check the source');
  await page.keyboard.press('Escape');
  await expect.poll(() => focused(page)).toBe('drawer');
  await expect(page.getByTestId('drawer-note')).toHaveValue('check the source'); // the draft stays

  await page.keyboard.press('Escape');
  await expect(drawer).toHaveCount(0);
  await expect.poll(() => focused(page)).toBe('row:82000');
  // focus follows the cursor; `t` on a closed drawer opens the cursor's row at its tag field
  await page.keyboard.press('j');
  await expect.poll(() => focused(page)).toBe('row:82002');
  await page.keyboard.press('t');
  await expect(drawer).toContainText('82002');
  await expect.poll(() => focused(page)).toBe('drawer-tag');
  await page.keyboard.type('later');
  await page.keyboard.press('Enter');
  await expect(drawer.getByRole('button', { name: 'Remove tag later' })).toBeVisible();
  await page.keyboard.press('Escape');
  await page.keyboard.press('Escape');
  await expect.poll(() => focused(page)).toBe('row:82002');
  await expect(page.locator('[data-testid="result-row"][data-id="82002"]')).toContainText('later');
});

test('the Library filters by language: a tag finds its subtags, und the unknown, a bad tag is said in words', async ({ page, host }) => {
  const langs = ['ja', 'ja', 'en', 'pt-BR', 'pt', null];
  await seedItems(
    page,
    host.dataDir,
    langs.map((language, i) => post({ id: `8300${i}`, text: `language ${i}`, language })),
  );
  await page.getByTestId('nav-library').click();
  await expect(page.getByTestId('library-count')).toHaveText('6 matching');
  const seen = libraryRequests(page);
  const field = page.getByTestId('library-language');
  await field.fill('pt');
  await field.press('Enter');
  await expect(page.getByTestId('library-count')).toHaveText('2 matching');
  await field.fill('ja, und');
  await field.press('Enter');
  await expect(page.getByTestId('library-count')).toHaveText('3 matching');
  expect(seen.at(-1)?.languages).toEqual(['ja', 'und']);
  await field.fill('ja%');
  await field.press('Enter');
  await expect(page.getByTestId('library-language-problem')).toContainText('not a language tag');
  await expect(page.getByTestId('library-count')).toHaveText('6 matching');
  expect(seen.some((q) => JSON.stringify(q.languages ?? []).includes('%'))).toBe(false);
});

test('Compare shows each label share with its base and says when the series overlap', async ({ page, host }) => {
  await seedItems(page, host.dataDir, [
    post({
      id: '84000',
      text: 'ann one',
      author: { id: 'ann', username: 'ann', display_name: 'Ann' },
      labels: { intent: { label: 'complaining', confidence: 0.9 } },
    }),
    post({ id: '84001', text: 'ann two', author: { id: 'ann', username: 'ann', display_name: 'Ann' } }),
    post({ id: '84002', text: 'ben one', author: { id: 'ben', username: 'ben', display_name: 'Ben' } }),
  ]);
  await page.getByTestId('nav-analysis').click();
  await page.getByTestId('analysis-tab-compare').click();
  await page.getByTestId('compare-pick').selectOption('scope');
  await page.getByTestId('compare-profile-platform').selectOption('micro_net');
  await page.getByTestId('compare-profile-handle').fill('ann');
  await page.getByTestId('compare-profile-add').click();
  await expect(page.getByTestId('compare-row')).toHaveCount(2);
  // 100 % complaining stands on one judged item, in both series
  await expect(page.getByTestId('compare-labels')).toContainText('100');
  await expect(page.getByTestId('compare-judged').first()).toHaveText(/of 1 judged/);
  await expect(page.getByTestId('compare-judged')).toHaveCount(2);
  // ann's two items are in both series: said, with the distinct count
  await expect(page.getByTestId('compare-overlap')).toContainText('2 items are in more than one of them (3 distinct items, 5 counted)');
});

test('a profile look-up is one quote while typing and the charged call on click: no second quote', async ({ page, sandboxAdmin }) => {
  // the page's requests in order: q = a quote, c = a call
  const door: string[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/api/api.quote')) door.push('q');
    if (r.url().endsWith('/api/api.call')) door.push('c');
  });
  await page.getByTestId('nav-profiles').click();
  await page.getByTestId('profile-handle').fill('nasa');
  await expect(page.getByTestId('profile-lookup-price')).toContainText('credit');
  expect(door).toEqual(['q']);
  const before = sandboxAdmin.stats().counted;
  await page.getByTestId('profile-lookup').click();
  const dialog = page.getByTestId('confirm-dialog');
  await expect(dialog.or(page.getByTestId('profile-card')).first()).toBeVisible({ timeout: 30_000 });
  if (await dialog.isVisible()) await page.getByTestId('confirm-ok').click();
  await expect(page.getByTestId('profile-card')).toBeVisible();
  // the click reused the quote on the button: the call came next
  expect(door.slice(0, 2)).toEqual(['q', 'c']);
  // at the service: the charged call alone (the balance re-read is free and not rate counted; the
  // button's price asked again afterwards is "held in Loupe", answered without the service)
  expect(sandboxAdmin.stats().counted - before).toBe(1);
  await expect(page.getByTestId('profile-lookup-price')).toContainText('held in Loupe');
  expect(sandboxAdmin.stats().counted - before).toBe(1);
});

test('axe: the accent toggles, the chosen Explorer endpoint and the open palette are clean in both themes', async ({ page }) => {
  for (const theme of ['light', 'dark'] as const) {
    await api(page, 'settings.update', { theme });
    await page.reload();
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
    // the Explorer with an endpoint chosen (its button drawn on the accent background)
    await page.getByTestId('nav-explorer').click();
    const first = page.getByTestId('explorer-list').locator('button.item').first();
    await first.click();
    await expect(page.getByTestId('explorer-list').locator('button.item.active')).toHaveCount(1);
    await axeClean(page, `explorer with an endpoint chosen (${theme})`);
    // the command palette open: its list named and reachable while it scrolls
    await page.keyboard.press('Control+k');
    await expect(page.getByRole('listbox', { name: 'Commands' })).toBeVisible();
    await axeClean(page, `the palette (${theme})`);
    await page.keyboard.press('Escape');
  }
});

test('at 1,440 px: Search shows Relevance and Labels, the Library checkboxes are a real target, Settings scrolls at the edge', async ({
  page,
  host,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await searchWalk(page, 'running shoes');
  await expect(page.getByTestId('result-row').first()).toBeVisible();
  const grid = await page.getByTestId('results-table').boundingBox();
  for (const name of [/^Relevance/, /^Labels/]) {
    const h = await page.getByRole('columnheader', { name }).boundingBox();
    expect(h, String(name)).not.toBeNull();
    expect(h!.x + h!.width, `${name} inside the table's visible width`).toBeLessThanOrEqual(grid!.x + grid!.width);
  }
  await seedItems(page, host.dataDir, [post({ id: '85000', text: 'a row to select' })]);
  await page.getByTestId('nav-library').click();
  const box = await page.getByTestId('row-select').first().boundingBox();
  expect(box!.width).toBeGreaterThanOrEqual(16);
  expect(box!.height).toBeGreaterThanOrEqual(16);
  await page.getByTestId('nav-settings').click();
  const scroller = await page.getByTestId('settings-page').boundingBox();
  const view = await page.getByTestId('view-settings').boundingBox();
  // the scrolling area reaches the view's right edge; the cards use most of it
  expect(Math.abs(scroller!.x + scroller!.width - (view!.x + view!.width))).toBeLessThanOrEqual(2);
  const card = await page.getByTestId('settings-page').locator('section.panel').first().boundingBox();
  expect(card!.width / view!.width).toBeGreaterThan(0.85);
});
