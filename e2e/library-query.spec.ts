/**
 * The Library's query inputs in Chromium through the web host: typed label-condition values
 * commit like the other typed filters (after a pause, on Enter or on leaving the field), never per
 * keystroke. Requests are counted at the page's door (/api/library.query).
 */
import type { Page, Request } from '@playwright/test';
import { test, expect } from './fixtures';
import { searchWalk } from './page-helpers';

/** the library.query requests the page sends from now on, with their inputs */
function queries(page: Page): Array<Record<string, unknown>> {
  const seen: Array<Record<string, unknown>> = [];
  page.on('request', (r: Request) => {
    if (r.url().includes('/api/library.query')) seen.push(JSON.parse(r.postData() ?? '{}') as Record<string, unknown>);
  });
  return seen;
}

const labelValues = (qs: Array<Record<string, unknown>>) =>
  qs.map((q) => ((q.labels as Array<{ value: unknown }> | undefined) ?? []).map((c) => c.value));

test('a label condition number is one query after typing, not one per keystroke', async ({ page }) => {
  await page.getByTestId('nav-library').click();
  await page.getByTestId('add-label-condition').click();
  const cond = page.getByTestId('label-conditions');
  await cond.getByLabel('label family').selectOption('sentiment');
  await cond.getByLabel('label field').selectOption('p'); // sentiment confidence: a number 0–1
  await cond.getByLabel('operator').selectOption('gte');
  const input = cond.getByLabel('value (0–1)');
  await expect(input).toBeVisible();
  await page.waitForTimeout(400);
  const seen = queries(page);
  await input.fill('');
  await input.pressSequentially('0.85', { delay: 60 });
  // nothing yet while typing; the pause commits once
  expect(
    labelValues(seen)
      .flat()
      .filter((v) => v !== null && v !== ''),
  ).toEqual([]);
  await expect.poll(() => labelValues(seen).flat(), { timeout: 5_000 }).toContain(0.85);
  await page.waitForTimeout(600);
  expect(
    labelValues(seen)
      .flat()
      .filter((v) => typeof v === 'number'),
  ).toEqual([0.85]);
  // Enter commits at once
  await input.fill('0.9');
  await input.press('Enter');
  await expect.poll(() => labelValues(seen).flat(), { timeout: 2_000 }).toContain(0.9);
  expect(
    labelValues(seen)
      .flat()
      .filter((v) => typeof v === 'number'),
  ).toEqual([0.85, 0.9]);
});

test('a label condition text value commits after typing too', async ({ page }) => {
  await page.getByTestId('nav-library').click();
  await page.getByTestId('add-label-condition').click();
  const cond = page.getByTestId('label-conditions');
  await cond.getByLabel('label family').selectOption('sponsored');
  await cond.getByLabel('label field').selectOption('brand');
  const input = cond.getByLabel('value', { exact: true });
  await page.waitForTimeout(400);
  const seen = queries(page);
  await input.pressSequentially('northpeak', { delay: 50 });
  await expect.poll(() => labelValues(seen).flat(), { timeout: 5_000 }).toContain('northpeak');
  await page.waitForTimeout(600);
  expect(
    labelValues(seen)
      .flat()
      .filter((v) => typeof v === 'string' && v !== ''),
  ).toEqual(['northpeak']);
});

test('the search box explains its syntax; a malformed query is explained and not sent; OR finds either word', async ({ page }) => {
  // something in the library to search: one search walk in the sandbox
  await searchWalk(page, 'running shoes');

  await page.getByTestId('nav-library').click();
  const box = page.getByTestId('library-text');
  const hint = page.getByTestId('library-text-hint');
  await expect(hint).toContainText('OR · NOT');
  await expect(box).toHaveAttribute('title', /OR: either/);
  await expect(box).toHaveAttribute('aria-describedby', 'library-text-hint');
  const count = async () => Number(((await page.getByTestId('library-count').textContent()) ?? '').replace(/[^\d]/g, ''));
  await expect.poll(count).toBeGreaterThan(0);
  const all = await count();

  const seen = queries(page);
  await box.fill('(running OR shoes');
  await box.press('Enter');
  await expect(hint).toContainText('Not searched: a "(" is not closed');
  await expect(box).toHaveAttribute('aria-invalid', 'true');
  await page.waitForTimeout(400);
  expect(seen.filter((q) => q.text !== undefined)).toEqual([]); // nothing was sent
  expect(await count()).toBe(all); // the rows stay as they were

  await box.fill('running');
  await box.press('Enter');
  await expect(hint).toContainText('OR · NOT');
  await expect(box).not.toHaveAttribute('aria-invalid', 'true');
  // the query sent, then its answer counted (a count reads 0 while the page loads)
  await expect.poll(() => seen.some((q) => q.text === 'running')).toBe(true);
  await expect
    .poll(async () => {
      const n = await count();
      return n > 0 && n <= all;
    })
    .toBe(true);
  const running = await count();
  await box.fill('running OR zzqqxxunseen');
  await box.press('Enter');
  await expect.poll(() => seen.some((q) => q.text === 'running OR zzqqxxunseen')).toBe(true);
  await expect.poll(count).toBe(running); // either word: the unseen one adds nothing, and OR is not a word to match
  await box.fill('running zzqqxxunseen');
  await box.press('Enter');
  await expect(page.getByTestId('empty-state')).toBeVisible();
});
