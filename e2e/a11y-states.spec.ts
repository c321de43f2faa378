/**
 * Issue 27 #16 and its "Done when": axe-core reports no critical and no serious violation on every
 * view in the states an analyst sees them — with results, a drawer open, a confirm dialog open, the
 * command palette open, a watchlist chosen with its run history and the alert inbox, Settings with
 * the alert e-mail form, an empty state and an error state — in light and in dark. One page per
 * theme (the app reloaded with the theme), the data made once. The views' first, empty states are
 * checked by journeys.spec.ts, the Analysis tabs by analysis.spec.ts, the network by
 * network.spec.ts, collection plans by collect.spec.ts, imports by watch-import.spec.ts.
 */
import type { Page } from '@playwright/test';
import type { WatchlistInfo } from '../src/shared/contract';
import { test, expect } from './fixtures';
import { api, axeClean, searchWalk } from './page-helpers';

async function view(page: Page, v: string): Promise<void> {
  await page.getByTestId(`nav-${v}`).click();
  await expect(page.getByTestId(`view-${v}`)).toBeVisible();
}

test('axe: every view and state in light and dark — results, drawer, confirm, palette, watchlist runs and inbox, empty and error states', async ({
  page,
  sandboxAdmin,
}) => {
  test.setTimeout(180_000);
  // the data, once: a search page in the archive, a watchlist with an alert and two runs
  await searchWalk(page, 'coffee grinder');
  const l = await api<WatchlistInfo>(page, 'watchlists.create', {
    name: 'Brand care',
    watches: [{ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'watched_brand' } }],
    budgetPerRun: 100_000,
    alert: [{ family: 'sponsored', field: 'p', op: 'gte', value: 0 }],
  });
  await api(page, 'watchlists.run', { id: l.id, approved: true });
  sandboxAdmin.advance(2 * 86_400);
  await api(page, 'watchlists.run', { id: l.id, approved: true });

  for (const theme of ['light', 'dark'] as const) {
    await api(page, 'settings.update', { theme, askAboveCredits: 100 });
    await page.reload();
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);

    // Search with results, then a row's drawer open
    await view(page, 'search');
    await page.getByTestId('search-query').fill('coffee grinder');
    await page.getByTestId('search-submit').click();
    const confirm = page.getByTestId('confirm-dialog');
    await expect(confirm.or(page.getByTestId('walk-status')).first()).toBeVisible({ timeout: 30_000 });
    if (await confirm.isVisible()) await page.getByTestId('confirm-ok').click();
    await expect(page.getByTestId('walk-status')).not.toHaveAttribute('data-status', 'running', { timeout: 30_000 });
    await expect(page.getByTestId('result-row').first()).toBeVisible();
    await axeClean(page, `search results (${theme})`);
    await page.getByTestId('result-row').first().click();
    await expect(page.getByTestId('drawer')).toBeVisible();
    await axeClean(page, `an item's drawer (${theme})`);
    await page.keyboard.press('Escape');

    // a confirm dialog open: a spend above the threshold
    await api(page, 'settings.update', { askAboveCredits: 0 });
    await page.getByTestId('search-query').fill('espresso tamper');
    await expect(page.getByTestId('search-submit-price')).toContainText('credit');
    await page.getByTestId('search-submit').click();
    await expect(confirm).toBeVisible();
    await axeClean(page, `the confirm dialog (${theme})`);
    await page.getByTestId('confirm-cancel').click();
    await expect(confirm).toBeHidden();
    await api(page, 'settings.update', { askAboveCredits: 100 });

    // an error state: the service refuses the next search page (not retryable)
    sandboxAdmin.queueFaults([{ kind: 'status', status: 400, type: 'INVALID_PARAMETER', count: 1, match: '/search/' }]);
    await page.getByTestId('search-query').fill('milk frother');
    await expect(page.getByTestId('search-submit-price')).toContainText('credit');
    const bar = page.getByTestId('walk-status');
    const before = await bar.getAttribute('data-walk-id');
    await page.getByTestId('search-submit').click();
    await expect
      .poll(
        async () => {
          if (await confirm.isVisible()) await page.getByTestId('confirm-ok').click();
          return bar.getAttribute('data-walk-id');
        },
        { timeout: 30_000 },
      )
      .not.toBe(before);
    await expect(bar).not.toHaveAttribute('data-status', 'running', { timeout: 30_000 });
    await axeClean(page, `a refused search (${theme})`);

    // the palette open
    await page.keyboard.press('Control+k');
    await expect(page.getByRole('listbox', { name: 'Commands' })).toBeVisible();
    await axeClean(page, `the palette (${theme})`);
    await page.keyboard.press('Escape');

    // Library with items; an empty result (a filter nothing matches)
    await view(page, 'library');
    await expect(page.getByTestId('library-count')).not.toHaveText('0 matching', { timeout: 30_000 });
    await axeClean(page, `library with items (${theme})`);
    await page.getByTestId('library-text').fill('zzqxjv nothing matches this');
    await expect(page.getByTestId('library-count')).toHaveText('0 matching', { timeout: 30_000 });
    await axeClean(page, `library, nothing matching (${theme})`);
    await page.getByTestId('library-text').fill('');

    // Watchlists: a list chosen with its run history; the alert inbox
    await view(page, 'watchlists');
    await page.getByTestId('watchlist-item').first().click();
    await expect(page.getByTestId('run-row').first()).toBeVisible({ timeout: 30_000 });
    await axeClean(page, `a watchlist with its runs (${theme})`);
    await page.getByTestId('alerts-open').click();
    await expect(page.getByTestId('alert-row').first()).toBeVisible();
    await axeClean(page, `the alert inbox (${theme})`);

    // Profiles, Comments, Collect (empty states), Usage with spending, Analysis, Explorer with an endpoint, Settings
    for (const v of ['profiles', 'comments', 'collect', 'usage', 'analysis']) {
      await view(page, v);
      await axeClean(page, `${v} (${theme})`);
    }
    await view(page, 'explorer');
    await page.getByTestId('explorer-list').locator('button.item').first().click();
    await axeClean(page, `explorer with an endpoint chosen (${theme})`);
    await view(page, 'settings');
    await expect(page.getByTestId('alert-email-host')).toBeVisible();
    await axeClean(page, `settings (${theme})`);
  }
});
