/**
 * Issue 24 #7: the balance on screen went stale and was acted on — after a top-up the app still
 * refused with the old figure, after ↻ the confirm dialog said "Balance after: 0–-50 of 50", and a
 * cron `loupe watch run` on the same data folder left Usage 460 credits off until a reload. Here,
 * without ever reloading: the dialog reads the balance again before it decides and states a
 * shortfall in words; a top-up (the Sandbox panel, or outside the app and then back to the window)
 * shows at once; another process spending on the same data folder shows in the top bar and Usage.
 */
import { test, expect } from './fixtures';
import { api } from './page-helpers';
import { runCli } from '../src/cli/main';
import { PassThrough } from 'node:stream';

const fmt = (n: number): string => n.toLocaleString('en-US');

// no introductory free calls: every call here is charged, so the balance moves
test.use({ hostOptions: { sandbox: { freeCalls: 0 } } });

async function openSearchDialog(page: import('@playwright/test').Page, query: string): Promise<import('@playwright/test').Locator> {
  await page.getByTestId('nav-search').click();
  await page.getByTestId('search-query').fill(query);
  await page.getByTestId('search-pages').selectOption('5');
  await expect(page.getByTestId('search-submit-price')).toContainText(/\d[\d,]*–[\d,]+ credits/);
  await page.getByTestId('search-submit').click();
  const dialog = page.getByTestId('confirm-dialog');
  await expect(dialog).toBeVisible();
  return dialog;
}

test('the balance follows top-ups and other spenders without a reload; a shortfall reads in words', async ({
  page,
  host,
  sandboxAdmin,
}) => {
  await api(page, 'settings.update', { askAboveCredits: 50 });
  await page.reload(); // the only reload: settings, before anything changes
  await expect(page.getByTestId('balance')).toHaveText(fmt(sandboxAdmin.balance()));

  // everything spent elsewhere (another tool on the account): the app has not heard of it
  sandboxAdmin.setBalance(50);
  const before = sandboxAdmin.charges().length;
  let dialog = await openSearchDialog(page, 'coffee grinder');
  // read again before deciding: the shortfall in words, never a negative "balance after"
  await expect(dialog).toContainText(/Not enough: 50 left; this (may need up to|needs at least) [\d,]+/);
  await expect(dialog).not.toContainText('Balance after');
  await expect(dialog).not.toContainText(/-\d/);
  await expect(page.getByTestId('balance')).toHaveText('50');
  await page.getByTestId('confirm-cancel').click();
  await expect(dialog).toBeHidden();
  expect(sandboxAdmin.charges().length).toBe(before);

  // a top-up through the Sandbox panel: the top bar has it at once
  await page.getByTestId('nav-settings').click();
  await page.getByTestId('sandbox-balance-input').fill('5000');
  await page.getByTestId('sandbox-balance-set').click();
  await expect(page.getByTestId('balance')).toHaveText('5,000');

  // a top-up outside the app, then back to the window: read again on focus
  sandboxAdmin.setBalance(4_321);
  await page.evaluate(() => window.dispatchEvent(new Event('focus')));
  await expect(page.getByTestId('balance')).toHaveText('4,321');
  dialog = await openSearchDialog(page, 'coffee grinder');
  await expect(dialog).toContainText(/Balance after: [\d,]+(–[\d,]+)? of 4,321 credits\./);
  await expect(dialog).not.toContainText('Not enough');
  await page.getByTestId('confirm-cancel').click();

  // another process spends on the same data folder (the CLI, as a cron job would)
  const sb = host.sandbox()!;
  const out = new PassThrough();
  out.resume();
  const err = new PassThrough();
  err.resume();
  const stdin = new PassThrough();
  stdin.end();
  const code = await runCli(['call', 'forum_net/search', '-p', 'query=standing desk', '--pages', '2', '--yes'], {
    stdout: out,
    stderr: err,
    stdin,
    env: { ...process.env, LOUPE_HOME: host.dataDir, LOUPE_BASE_URL: sb.url, LOUPE_API_KEY: sb.key },
  });
  expect(code).toBe(0);
  const service = sandboxAdmin.balance();
  expect(service).toBeLessThan(4_321);
  await expect(page.getByTestId('balance')).toHaveText(fmt(service));
  await page.getByTestId('nav-usage').click();
  await expect(page.getByTestId('usage-balance')).toContainText(fmt(service));
  await expect(page.getByTestId('usage-spent')).toContainText(fmt(4_321 - service));
});
