/**
 * The renderer, driven in Chromium through the web host and the in-process sandbox.
 * Each test starts on a fresh data folder (e2e/fixtures.ts). Screenshots of each main view go to
 * e2e/screenshots/<view>.png.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Page } from '@playwright/test';
import { test, expect, shot } from './fixtures';
import { api } from './page-helpers';

/** After a spending click: confirm when Loupe asks (estimate above the threshold), then wait for the walk bar. */
async function approveIfAsked(page: Page): Promise<void> {
  const dialog = page.getByTestId('confirm-dialog');
  const walk = page.getByTestId('walk-status');
  await expect(dialog.or(walk).first()).toBeVisible();
  if (await dialog.isVisible()) await page.getByTestId('confirm-ok').click();
  await expect(dialog).toBeHidden();
}

async function runSearch(page: Page, query: string): Promise<void> {
  await page.getByTestId('nav-search').click();
  await page.getByTestId('search-query').fill(query);
  await expect(page.getByTestId('search-submit-price')).toContainText('credit');
  await page.getByTestId('search-submit').click();
  await approveIfAsked(page);
  await expect(page.getByTestId('walk-status')).not.toHaveAttribute('data-status', 'running', { timeout: 30_000 });
  await expect(page.getByTestId('result-row').first()).toBeVisible();
}

test('first run in sandbox mode: badge, balance, empty states that say what to do', async ({ page }) => {
  await expect(page.getByTestId('sandbox-badge')).toHaveText(/SANDBOX — synthetic data/);
  await expect(page.getByTestId('balance')).not.toHaveText('—');
  await expect(page.getByTestId('empty-state')).toContainText('running shoes');
  await shot(page, 'search');
  await page.getByTestId('nav-library').click();
  await expect(page.getByTestId('empty-state')).toContainText('The library is empty');
  await shot(page, 'library-empty');
  await page.getByTestId('nav-profiles').click();
  await expect(page.getByTestId('empty-state')).toContainText('nasa');
  await page.getByTestId('nav-usage').click();
  await expect(page.getByTestId('usage-stats')).toBeVisible();
  await shot(page, 'usage-empty');
  // keyboard: Ctrl+K palette lists every view and goes there
  await page.keyboard.press('Control+k');
  await page.getByTestId('palette-input').fill('explorer');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('view-explorer')).toBeVisible();
  await page.keyboard.press('g');
  await page.keyboard.press('s');
  await expect(page.getByTestId('view-search')).toBeVisible();
  await page.keyboard.press('/');
  await expect(page.getByTestId('search-query')).toBeFocused();
});

test('a search with a relevance filter: rows below the threshold disappear, counts stay honest', async ({ page }) => {
  await page.getByTestId('nav-search').click();
  const rel = page.getByTestId('search-relevance');
  if (await rel.isVisible()) await rel.selectOption('score');
  await runSearch(page, 'running shoes');
  const all = await page.getByTestId('result-row').count();
  expect(all).toBeGreaterThan(0);
  await page.getByTestId('facet-relevance').fill('0.8');
  await expect(page.getByTestId('filtered-count')).toBeVisible();
  const shown = await page.getByTestId('result-row').count();
  expect(shown).toBeLessThan(all);
  // every row left shows a relevance of at least 0.8 (the bar carries the number)
  const values = await page.locator('[data-testid="result-row"] .relbar .num').allTextContents();
  expect(values.length).toBe(shown);
  for (const v of values) expect(Number(v)).toBeGreaterThanOrEqual(0.8);
  // j/k move, Enter opens the drawer, Esc closes it
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('j');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('drawer')).toBeVisible();
  await expect(page.getByTestId('provenance')).toBeVisible();
  await shot(page, 'search-results');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('drawer')).toBeHidden();
});

test('an estimate on the button and a confirmation above the threshold; cancel spends nothing', async ({ page, sandboxAdmin }) => {
  await api(page, 'settings.update', { askAboveCredits: 50 });
  await page.reload();
  const before = sandboxAdmin.charges().length;
  await page.getByTestId('search-query').fill('coffee grinder');
  await page.getByTestId('search-pages').selectOption('5');
  await expect(page.getByTestId('search-submit-price')).toContainText(/\d[\d,]*–[\d,]+ credits/);
  await page.getByTestId('search-submit').click();
  const dialog = page.getByTestId('confirm-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('Estimate:');
  await expect(dialog).toContainText('Balance after:');
  await expect(dialog).toContainText('Free:');
  await shot(page, 'confirm');
  await page.getByTestId('confirm-cancel').click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('walk-status')).toHaveCount(0);
  expect(sandboxAdmin.charges().length).toBe(before);
  // Esc also declines
  await page.getByTestId('search-submit').click();
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  // approving runs it and shows what it actually cost
  await page.getByTestId('search-submit').click();
  await page.getByTestId('confirm-ok').click();
  await expect(page.getByTestId('walk-status')).toBeVisible();
  await expect(page.getByTestId('walk-cost')).toContainText('credits');
});

test('a walk can be cancelled and says so', async ({ page }) => {
  // one request an hour: the pacer's windows are on the service's clock, which moves with the e2e
  // sandbox's (60x) at each answer and clock sync, so this is about a page a minute of real time (2 a
  // minute of the sandbox's time let the 20 pages end within seconds on a loaded machine, before the
  // cancel was clicked: the test then saw a finished walk)
  await api(page, 'settings.update', { askAboveCredits: 1_000_000, rateLimit: { requests: 1, windowSeconds: 3600 } });
  await page.reload();
  await page.getByTestId('search-query').fill('standing desk');
  await page.getByTestId('search-pages').selectOption('20');
  await page.getByTestId('search-submit').click();
  await expect(page.getByTestId('walk-status')).toBeVisible();
  await expect(page.getByTestId('walk-cancel')).toBeVisible();
  await page.getByTestId('walk-cancel').click();
  await expect(page.getByTestId('walk-status')).toHaveAttribute('data-status', 'cancelled');
  await expect(page.getByTestId('walk-more')).toBeVisible(); // resumable, with its price
  await expect(page.getByTestId('walk-more-price')).toContainText('credit');
});

test('a profile: card, feed walked into the table, engagement and label charts', async ({ page }) => {
  await page.getByTestId('nav-profiles').click();
  await page.getByTestId('profile-handle').fill('nasa');
  await page.getByTestId('profile-lookup').click();
  const dialog = page.getByTestId('confirm-dialog');
  const card = page.getByTestId('profile-card');
  await expect(dialog.or(card).first()).toBeVisible();
  if (await dialog.isVisible()) await page.getByTestId('confirm-ok').click();
  await expect(card).toBeVisible();
  await expect(card).toContainText('followers');
  await page.getByTestId('profile-walk').click();
  await approveIfAsked(page);
  await expect(page.getByTestId('result-row').first()).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('chart-engagement')).toBeVisible();
  await expect(page.getByTestId('chart-intent').locator('svg').first()).toBeVisible();
  await shot(page, 'profiles');
});

test("a post's comments, filtered by sentiment", async ({ page }) => {
  await runSearch(page, 'running shoes');
  await page.getByTestId('result-row').first().click();
  await page.getByRole('button', { name: 'Comments…' }).click();
  await expect(page.getByTestId('view-comments')).toBeVisible();
  await expect(page.getByTestId('comments-url')).not.toHaveValue('');
  await page.getByTestId('comments-submit').click();
  await approveIfAsked(page);
  await expect(page.getByTestId('result-row').first()).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('chart-sentiment')).toBeVisible();
  const facet = page.locator('[data-testid^="facet-sentiment="]').first();
  await expect(facet).toBeVisible();
  const key = (await facet.getAttribute('data-testid'))!.replace('facet-sentiment=', '');
  await facet.locator('input').check();
  const rows = page.getByTestId('result-row');
  // once the filter has applied, no row lacks the chosen sentiment (both checks retry until then)
  await expect(rows.filter({ hasNot: page.getByTestId('label-chip').filter({ hasText: key }) })).toHaveCount(0);
  await expect(rows.first()).toBeVisible();
  await shot(page, 'comments');
});

test('export the library view as CSV: the downloaded file parses and has every row', async ({ page }) => {
  await runSearch(page, 'running shoes');
  await page.getByTestId('nav-library').click();
  await expect(page.getByTestId('result-row').first()).toBeVisible();
  await expect(page.getByTestId('library-count')).toHaveText(/\d+ matching/);
  const count = Number((await page.getByTestId('library-count').textContent())!.replace(/[^\d]/g, ''));
  expect(count).toBeGreaterThan(0);
  await page.getByTestId('export-open').click();
  await page.getByTestId('export-format').selectOption('csv');
  await page.getByTestId('export-start').click();
  await expect(page.getByTestId('export-status')).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-download').click()]);
  const file = await download.path();
  const text = readFileSync(file, 'utf8');
  expect(text.charCodeAt(0)).toBe(0xfeff); // BOM on by default
  const records = parse(text.slice(1), { columns: true, skip_empty_lines: true }) as Array<Record<string, string>>;
  expect(records.length).toBe(count);
  expect(Object.keys(records[0])).toContain('published_at');
  await shot(page, 'library');
});

test('the explorer calls an endpoint from its generated form and shows the raw answer', async ({ page }) => {
  await page.getByTestId('nav-explorer').click();
  await page.getByTestId('explorer-filter').fill('photo_net profile');
  await page.locator('[data-testid="explorer-endpoint"][data-endpoint="photo_net profile"]').click();
  await expect(page.getByTestId('explorer-param-handle')).toBeVisible();
  await expect(page.getByTestId('explorer-call')).toBeDisabled(); // required handle missing
  await page.getByTestId('explorer-param-handle').fill('nasa');
  await page.getByTestId('explorer-quote').click();
  await expect(page.getByTestId('explorer-quote-result')).toContainText('Quote:');
  await page.getByTestId('explorer-call').click();
  const dialog = page.getByTestId('confirm-dialog');
  const answer = page.getByTestId('explorer-answer');
  await expect(dialog.or(answer).first()).toBeVisible();
  if (await dialog.isVisible()) await page.getByTestId('confirm-ok').click();
  await expect(answer).toContainText('"success": true');
  await expect(page.getByTestId('explorer-meta')).toContainText('request');
  await shot(page, 'explorer');
});

test('a key entered in Settings is never shown again: not in the DOM, not in any /api answer', async ({ page }) => {
  const key = 'sdr_test_' + 'Ab3_-'.repeat(8) + 'xyz';
  expect(key.length).toBe(9 + 43);
  const bodies: string[] = [];
  page.on('response', async (r) => {
    if (r.url().includes('/api/') && !r.url().includes('/api/events')) bodies.push(await r.text().catch(() => ''));
  });
  await page.getByTestId('nav-settings').click();
  await page.getByTestId('key-name').fill('research-main');
  await page.getByTestId('key-value').fill(key);
  await page.getByTestId('key-save').click();
  await expect(page.getByTestId('key-value')).toHaveValue('');
  await expect(page.getByTestId('key-list')).toContainText('research-main');
  await expect(page.getByTestId('key-saved')).toBeVisible();
  await shot(page, 'settings');
  // reload and look everywhere the app could show it
  await page.reload();
  await page.getByTestId('nav-settings').click();
  await expect(page.getByTestId('key-list')).toContainText('research-main');
  const html = await page.content();
  expect(html).not.toContain(key);
  expect(html).not.toContain(key.slice(9));
  const values = await page.locator('input').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
  expect(values.join('\n')).not.toContain(key);
  for (const b of bodies) expect(b).not.toContain(key.slice(9));
  expect(bodies.length).toBeGreaterThan(0);
});

test('the usage view: stats, what was not charged, the ledger after a search', async ({ page }) => {
  await runSearch(page, 'running shoes');
  await page.getByTestId('nav-usage').click();
  await expect(page.getByTestId('usage-stats')).toBeVisible();
  await expect(page.getByTestId('not-charged')).toBeVisible();
  await expect(page.getByTestId('ledger-row').first()).toBeVisible();
  await shot(page, 'usage');
});

test('a watchlist is created from the Watchlists view (free) and listed', async ({ page }) => {
  await page.getByTestId('nav-watchlists').click();
  await expect(page.getByTestId('empty-state')).toContainText('Watch this');
  await page.getByTestId('watchlist-new').click();
  await page.getByTestId('watchlist-name').fill('Shoe brands');
  await page.getByTestId('watchlist-create').click();
  await expect(page.getByTestId('watchlist-item')).toContainText('Shoe brands');
  await shot(page, 'watchlists');
});
