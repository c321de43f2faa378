/**
 * Bulk watches in the app (issue 16): "Import accounts…" in the Watchlists view — paste or pick a
 * file, check: every line is added, a duplicate or not importable (with its line number and why),
 * one estimate for the first run of all of them; nothing is created or spent until Import, and
 * importing spends nothing. axe-clean in light and dark.
 */
import { test, expect, shot } from './fixtures';
import { api, axeClean } from './page-helpers';

type Lists = Array<{ id: string; name: string; watches: Array<{ params: Record<string, string>; label: string }> }>;

test('import accounts into a new watchlist: checked line by line, one estimate, nothing spent', async ({ page, sandboxAdmin }) => {
  await page.getByTestId('nav-watchlists').click();
  await page.getByTestId('import-accounts-new').click();
  const dialog = page.getByTestId('import-dialog');
  await expect(dialog).toBeVisible();
  await page.getByTestId('import-platform').selectOption('photo_net');
  await expect(page.getByTestId('import-endpoint')).toHaveValue('profile/posts');
  await page.getByTestId('import-list-name').fill('Space agencies');
  await page.getByTestId('import-text').fill('nasa\n@esa\nNASA\nhttps://photo-net.example/p/123\ntwo words\njaxa\n');
  const charges = sandboxAdmin.charges().length;
  await page.getByTestId('import-check').click();
  const summary = page.getByTestId('import-summary');
  await expect(summary).toContainText('3 accounts to add');
  await expect(summary).toContainText('1 duplicate');
  await expect(summary).toContainText('2 lines not imported');
  await expect(page.getByTestId('import-duplicates')).toContainText('line 3: NASA — same account as line 1');
  await expect(page.getByTestId('import-problems')).toContainText("line 4: https://photo-net.example/p/123 — not an account's address");
  await expect(page.getByTestId('import-problems')).toContainText('line 5: two words — more than one word');
  await expect(page.getByTestId('import-estimate')).toContainText(/First run of these watches: [\d,]+–[\d,]+ credits over 3 requests/);
  expect(await api<Lists>(page, 'watchlists.list')).toEqual([]); // nothing created by checking
  for (const theme of ['light', 'dark'] as const) {
    await page.evaluate((t) => document.documentElement.setAttribute('data-theme', t), theme);
    await axeClean(page, `import dialog (${theme})`);
  }
  await shot(page, 'watchlists-import');
  // a change after the check needs a new check before importing
  await page.getByTestId('import-text').fill('nasa\n@esa\nNASA\nhttps://photo-net.example/p/123\ntwo words\njaxa\nkari\n');
  await expect(page.getByTestId('import-ok')).toBeDisabled();
  await page.getByTestId('import-check').click();
  await expect(page.getByTestId('import-summary')).toContainText('4 accounts to add');
  await page.getByTestId('import-ok').click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('toast').last()).toContainText('Created “Space agencies” with 4 watches');
  const l = (await api<Lists>(page, 'watchlists.list')).find((x) => x.name === 'Space agencies')!;
  expect(l.watches.map((w) => w.params.handle)).toEqual(['nasa', 'esa', 'jaxa', 'kari']);
  expect(sandboxAdmin.charges().length).toBe(charges); // importing spends nothing
});

test('a CSV file into an existing watchlist: what it already watches is a duplicate', async ({ page }) => {
  await api(page, 'watchlists.create', {
    name: 'Brands',
    watches: [{ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'nasa' } }],
  });
  await page.getByTestId('nav-watchlists').click();
  await page.getByTestId('watchlist-item').filter({ hasText: 'Brands' }).click();
  await page.getByTestId('import-accounts').click();
  await page
    .getByTestId('import-file')
    .setInputFiles({ name: 'accounts.csv', mimeType: 'text/csv', buffer: Buffer.from('Name,Username\nNASA,nasa\nESA,esa\nNobody,\n') });
  await expect(page.getByTestId('import-text')).toHaveValue(/Name,Username/);
  await page.getByTestId('import-check').click();
  await expect(page.getByTestId('import-summary')).toContainText('1 account to add (from the CSV column “username”)');
  await expect(page.getByTestId('import-duplicates')).toContainText('line 2: nasa — already in this watchlist');
  await expect(page.getByTestId('import-problems')).toContainText('line 4: Nobody, — no username in this row');
  await page.getByTestId('import-ok').click();
  await expect(page.getByTestId('import-dialog')).toBeHidden();
  const l = (await api<Lists>(page, 'watchlists.list')).find((x) => x.name === 'Brands')!;
  expect(l.watches.map((w) => w.params.handle)).toEqual(['nasa', 'esa']);
  // Esc closes the dialog and creates nothing
  await page.getByTestId('import-accounts').click();
  await page.getByTestId('import-text').fill('zed');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('import-dialog')).toBeHidden();
  expect((await api<Lists>(page, 'watchlists.list')).find((x) => x.name === 'Brands')!.watches).toHaveLength(2);
});
