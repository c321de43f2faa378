/**
 * Issue 27 #4 end to end: Library → Source → a watchlist is picked by its name; choosing the kind
 * sends no query and shows no error until a list is chosen.
 */
import { test, expect } from './fixtures';
import { api } from './page-helpers';
import type { WatchlistInfo } from '../src/shared/contract';

test('Source = watchlist: picked by name, nothing refused before one is chosen', async ({ page }) => {
  const l = await api<WatchlistInfo>(page, 'watchlists.create', {
    name: 'Brand runs',
    watches: [{ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'watched_brand' } }],
    budgetPerRun: 100_000,
  });
  await api(page, 'watchlists.run', { id: l.id, approved: true });
  const other = await api<WatchlistInfo>(page, 'watchlists.create', {
    name: 'Other',
    watches: [{ platform: 'micro_net', endpoint: 'search/tweets', params: { query: 'kettle' } }],
    budgetPerRun: 100_000,
  });
  await api(page, 'watchlists.run', { id: other.id, approved: true });
  const all = await api<number>(page, 'library.count', {});
  const listed = await api<number>(page, 'library.count', { source: { type: 'watchlist', id: l.id } });
  expect(listed).toBeGreaterThan(0);
  expect(listed).toBeLessThan(all);

  await page.getByTestId('nav-library').click();
  const count = page.getByTestId('library-count');
  await expect(count).toHaveText(`${all.toLocaleString('en-US')} matching`);
  // every library query the page sends while the source is being chosen: none with an empty id
  const emptyIds: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/api/library.') && /"source":\{[^}]*"id":""/.test(r.postData() ?? '')) emptyIds.push(r.postData() ?? '');
  });
  await page.getByTestId('library-source-type').selectOption('watchlist');
  // no query for an empty id, no error box: the count is still everything's
  await expect(page.getByTestId('library-source-watchlist')).toBeVisible();
  await expect(page.locator('.errorbox')).toHaveCount(0);
  await expect(count).toHaveText(`${all.toLocaleString('en-US')} matching`);
  await page.getByTestId('library-source-watchlist').selectOption({ label: 'Brand runs' });
  await expect(count).toHaveText(`${listed.toLocaleString('en-US')} matching`);
  await expect(page.locator('.errorbox')).toHaveCount(0);
  expect(emptyIds).toEqual([]);
});
