/**
 * Issue 6 end to end: create a watchlist from a profile, run it, and see new items after the
 * sandbox advances its clock — fetched once, counted in the run history.
 */
import type { Page } from '@playwright/test';
import { test, expect, shot } from './fixtures';
import { api } from './page-helpers';
import type { WatchlistInfo } from '../src/shared/contract';

async function confirmIfAsked(page: Page, then: ReturnType<Page['getByTestId']>): Promise<void> {
  const dialog = page.getByTestId('confirm-dialog');
  await expect(dialog.or(then).first()).toBeVisible({ timeout: 30_000 });
  if (await dialog.isVisible()) await page.getByTestId('confirm-ok').click();
}

test('a watchlist made from a profile: run it, advance the sandbox clock, see the new items', async ({ page, sandboxAdmin }) => {
  await page.getByTestId('nav-profiles').click();
  await page.getByTestId('profile-handle').fill('watched_brand');
  await page.getByTestId('profile-lookup').click();
  await confirmIfAsked(page, page.getByTestId('profile-card'));
  await expect(page.getByTestId('profile-card')).toBeVisible();

  // "Watch this" → a new watchlist for the profile's feed (free: nothing runs yet)
  const before = sandboxAdmin.charges().length;
  await page.getByTestId('watch-this').click();
  await page.getByTestId('watch-new').click();
  // the new watchlist's budget, schedule and first-run depth are asked first (free: nothing runs)
  await expect(page.getByTestId('watchlist-dialog')).toBeVisible();
  await expect(page.getByTestId('wl-estimate')).toContainText('credit');
  await page.getByTestId('wl-ok').click();
  await expect(page.getByTestId('watchlist-dialog')).toBeHidden();
  expect(sandboxAdmin.charges().length).toBe(before);

  await page.getByTestId('nav-watchlists').click();
  await expect(page.getByTestId('watchlist-item')).toHaveCount(1);
  await page.getByTestId('watchlist-item').first().click();

  // first run: the newest page
  await page.getByTestId('watchlist-run').click();
  const history = page.getByTestId('watchlist-history');
  await confirmIfAsked(page, history.locator('tbody tr'));
  await expect(history.locator('tbody tr')).toHaveCount(1, { timeout: 30_000 });
  // the run's row appears while it is still running (0 new so far): read it once it has finished
  await expect(history.locator('tbody tr').first().locator('td').nth(1)).toHaveText('done', { timeout: 30_000 });
  const firstNew = Number(await history.locator('tbody tr').first().locator('td').nth(3).innerText());
  expect(firstNew).toBeGreaterThan(0);

  // two sandbox days later the account has posted again
  sandboxAdmin.advance(2 * 86_400);
  await page.getByTestId('watchlist-run').click();
  await confirmIfAsked(page, history.locator('tbody tr').nth(1));
  await expect(history.locator('tbody tr')).toHaveCount(2, { timeout: 30_000 });
  const rows = history.locator('tbody tr');
  // newest run first; wait for it to finish before reading its count
  await expect(rows.first().locator('td').nth(1)).toHaveText('done', { timeout: 30_000 });
  await expect(rows.first()).toContainText('complete');
  const secondNew = Number(await rows.first().locator('td').nth(3).innerText());
  expect(secondNew).toBeGreaterThan(0);

  // the watchlist's items: every one once
  const result = await page.evaluate(async () => {
    const token = sessionStorage.getItem('loupe-token') ?? '';
    const call = async (method: string, body: unknown) => {
      const r = await fetch(`/api/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-loupe-token': token },
        body: JSON.stringify(body),
      });
      return ((await r.json()) as { result: unknown }).result;
    };
    const lists = (await call('watchlists.list', {})) as Array<{ id: string }>;
    const page1 = (await call('library.query', { source: { type: 'watchlist', id: lists[0].id }, limit: 1000 })) as {
      rows: Array<{ id: string }>;
    };
    return page1.rows.map((r) => r.id);
  });
  expect(result.length).toBe(firstNew + secondNew);
  expect(new Set(result).size).toBe(result.length);
  await shot(page, 'watchlists-run');
});

/** What a user configured on a list (derived fields — forecast, next run — aside). */
function configured(l: WatchlistInfo) {
  const { name, schedule, budgetPerRun, budgetPerMonth, paused, alert, firstRunPages, watches, lastRunAt } = l;
  return { name, schedule, budgetPerRun, budgetPerMonth, paused, alert, firstRunPages, watches, lastRunAt };
}

test('Pause, Resume and "Edit budgets…" change only what they name: the watches and the alert stay (issue 24 #1)', async ({ page }) => {
  const created = await api<WatchlistInfo>(page, 'watchlists.create', {
    name: 'Kettle brands',
    schedule: { everyHours: 6 },
    budgetPerRun: 500,
    budgetPerMonth: 4000,
    alert: [{ family: 'intent', field: 'label', op: 'eq', value: 'complaining' }],
    watches: [
      { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'alice' }, label: 'Alice' },
      { platform: 'micro_net', endpoint: 'search/tweets', params: { query: 'kettle' } },
    ],
    firstRunPages: 3,
  });
  const before = configured(created);
  const read = async () => configured((await api<WatchlistInfo[]>(page, 'watchlists.list')).find((l) => l.id === created.id)!);

  await page.getByTestId('nav-watchlists').click();
  await page.getByTestId('watchlist-item').filter({ hasText: 'Kettle brands' }).click();
  const pause = page.getByTestId('watchlist-pause');

  await expect(pause).toHaveText('Pause');
  await pause.click();
  await expect(pause).toHaveText('Resume schedule');
  expect(await read()).toEqual({ ...before, paused: true });

  await pause.click();
  await expect(pause).toHaveText('Pause');
  expect(await read()).toEqual(before);

  await page.getByTestId('watchlist-edit').click();
  await expect(page.getByTestId('watchlist-dialog')).toBeVisible();
  await page.getByTestId('wl-budget-run').fill('750');
  await page.getByTestId('wl-ok').click();
  await expect(page.getByTestId('watchlist-dialog')).toBeHidden();
  await expect(page.getByTestId('watchlist-budget')).toContainText('750 credits a run');
  expect(await read()).toEqual({ ...before, budgetPerRun: 750 });

  // Save without a change sends nothing
  await page.getByTestId('watchlist-edit').click();
  await page.getByTestId('wl-ok').click();
  await expect(page.getByTestId('watchlist-dialog')).toBeHidden();
  expect(await read()).toEqual({ ...before, budgetPerRun: 750 });
  // the watches are still on screen
  await expect(page.getByText('Alice', { exact: true })).toBeVisible();
  await shot(page, 'watchlists-edit-keeps-watches');
});
