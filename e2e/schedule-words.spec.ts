/**
 * Issue 27 #20 and #3 end to end: a schedule reads in words ("every minute", not "every
 * 0.016666666666666666 h"); a scheduled list without a per-run budget says at once that its runs
 * would be skipped, and one click sets a budget that covers the estimate; the Sandbox panel says
 * which clock it moves.
 */
import { test, expect } from './fixtures';
import { api } from './page-helpers';
import type { WatchlistInfo } from '../src/shared/contract';

test('a schedule in words; without a per-run budget the list says so, and one click sets one', async ({ page }) => {
  const l = await api<WatchlistInfo>(page, 'watchlists.create', {
    name: 'Every minute',
    watches: [{ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'watched_brand' } }],
    schedule: { everyHours: 1 / 60 },
  });
  expect(l.budgetPerRun).toBeNull();
  await page.getByTestId('nav-watchlists').click();
  await page.getByTestId('watchlist-item').first().click();
  await expect(page.getByTestId('watchlist-schedule')).toHaveText('every minute');
  await expect(page.locator('body')).not.toContainText('0.0166');
  const note = page.getByTestId('watchlist-schedule-note');
  await expect(note).toContainText('go ahead by themselves only within a budget per run');
  await note.getByTestId('watchlist-set-budget').click();
  await expect(note).toHaveCount(0);
  const after = (await api<WatchlistInfo[]>(page, 'watchlists.list')).find((x) => x.id === l.id)!;
  expect(after.budgetPerRun).not.toBeNull();
  expect(after.budgetPerRun!).toBeGreaterThan(0);
  expect(after.schedule).toEqual(l.schedule); // only the budget changed
  expect(after.watches).toEqual(l.watches);
  await expect(page.getByTestId('watchlist-budget')).toContainText(`${after.budgetPerRun!.toLocaleString('en-US')} credits a run`);

  // the Sandbox panel names the clock it moves
  await page.getByTestId('nav-settings').click();
  await expect(page.getByTestId('sandbox-clock-words')).toContainText('sandbox service’s clock');
  await expect(page.getByTestId('sandbox-clock-words')).toContainText('your computer’s clock is untouched');
});
