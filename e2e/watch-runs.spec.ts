/**
 * Issue 27 #1, #2 end to end: a watchlist's run history has an alerts column; a run's new items and
 * its alert matches are one click away; "New in the last run" and "All items" switch the list.
 */
import { test, expect, shot } from './fixtures';
import { api } from './page-helpers';
import type { WatchlistInfo, WatchRunInfo } from '../src/shared/contract';

test('each run’s new items and alert matches one click away; new in the last run; all items', async ({ page, sandboxAdmin }) => {
  const alert = [{ family: 'sponsored', field: 'p', op: 'gte', value: 0 }];
  const l = await api<WatchlistInfo>(page, 'watchlists.create', {
    name: 'Brand runs',
    watches: [{ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'watched_brand' } }],
    alert,
    budgetPerRun: 100_000,
  });
  const first = await api<WatchRunInfo>(page, 'watchlists.run', { id: l.id, approved: true });
  sandboxAdmin.advance(2 * 86_400);
  const second = await api<WatchRunInfo>(page, 'watchlists.run', { id: l.id, approved: true });
  expect(first.newItems).toBeGreaterThan(0);
  expect(second.newItems).toBeGreaterThan(0);
  const total = first.newItems + second.newItems;
  const count = (q: unknown) => api<number>(page, 'library.count', q);
  const secondAlerts = await count({ source: { type: 'watchlist', id: l.id, run: second.runId }, labels: alert });
  expect(second.alerts).toBe(secondAlerts);

  await page.getByTestId('nav-watchlists').click();
  await page.getByTestId('watchlist-item').first().click();
  const runs = page.getByTestId('run-row');
  await expect(runs).toHaveCount(2);
  await expect(page.getByTestId('watchlist-history').locator('thead')).toContainText('Alerts');
  const rowCount = page.getByTestId('row-count');
  await expect(rowCount).toContainText(`${total} rows loaded`);

  // the newest run's "new" count opens its items, and only those
  await runs.first().getByTestId('run-new').click();
  await expect(page.getByTestId('watch-items-caption')).toContainText('Items new in the run started');
  // one clock (issue 27 #3): the run that just finished, on the service's clock moved two days on
  // outside the app, does not read "in 2 days"
  await expect(runs.first().locator('td').first()).not.toHaveText(/^in /);
  await expect(rowCount).toContainText(`${second.newItems} row${second.newItems === 1 ? '' : 's'} loaded`);
  const shown = await page.getByTestId('result-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')));
  const expected = (
    await api<{ rows: Array<{ id: string }> }>(page, 'library.query', {
      source: { type: 'watchlist', id: l.id, run: second.runId },
      limit: 1000,
    })
  ).rows.map((r) => r.id);
  expect(shown.every((id) => expected.includes(id!))).toBe(true);
  await shot(page, 'watchlists-run-items');

  // the older run's items
  await runs.nth(1).getByTestId('run-new').click();
  await expect(rowCount).toContainText(`${first.newItems} row${first.newItems === 1 ? '' : 's'} loaded`);

  // back to everything, then "New in the last run" is the newest run again
  await page.getByTestId('watch-items-all').click();
  await expect(rowCount).toContainText(`${total} rows loaded`);
  await page.getByTestId('watch-items-last-run').click();
  await expect(page.getByTestId('watch-items-last-run')).toHaveAttribute('aria-pressed', 'true');
  await expect(rowCount).toContainText(`${second.newItems} row${second.newItems === 1 ? '' : 's'} loaded`);

  // the alerts column: the run's matches, one click away
  expect(secondAlerts).toBeGreaterThan(0);
  await expect(runs.first().getByTestId('run-alerts')).toHaveText(String(secondAlerts));
  await runs.first().getByTestId('run-alerts').click();
  await expect(page.getByTestId('watch-items-caption')).toContainText('Alert matches among the items new in the run started');
  await expect(rowCount).toContainText(`${secondAlerts} row${secondAlerts === 1 ? '' : 's'} loaded`);
});

test('Usage names the watchlist and counts the runs answered from the archive (issue 27 #5)', async ({ page, sandboxAdmin }) => {
  const l = await api<WatchlistInfo>(page, 'watchlists.create', {
    name: 'Kettle talk',
    watches: [{ platform: 'micro_net', endpoint: 'search/tweets', params: { query: 'kettle' } }],
    budgetPerRun: 100_000,
  });
  await api<WatchRunInfo>(page, 'watchlists.run', { id: l.id, approved: true });
  const sent = sandboxAdmin.charges().length;
  // twice more inside the cache window: answered from the archive, nothing sent
  await api<WatchRunInfo>(page, 'watchlists.run', { id: l.id, approved: true });
  await api<WatchRunInfo>(page, 'watchlists.run', { id: l.id, approved: true });
  expect(sandboxAdmin.charges().length).toBe(sent);

  await page.getByTestId('nav-usage').click();
  const held = page.getByTestId('not-charged').locator('.stat', { hasText: 'held in Loupe (archive)' }).locator('.v');
  await expect(held).toHaveText('2');
  const perSource = page.getByTestId('chart-per-source');
  await expect(perSource).toContainText('watchlist “Kettle talk”');
  await expect(perSource).not.toContainText('watch:');
});
