/**
 * Rehydrating a dehydrated bundle in the app (issue 29, docs/datasets.md "Rehydrate"), in Chromium
 * through the web host: the export panel's "Rehydrate a bundle…" asks for the bundle's path, prices
 * the re-collection (free) and shows it in the confirm dialog beside the bundle's own quote;
 * declined, nothing is charged; approved, the posts the sandbox's aging world removed come back
 * unavailable (named), the rest re-collected, nothing deleted, and the ledger equals the service's
 * charges.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from './fixtures';
import { api, axeClean } from './page-helpers';

// the service's clock at real speed: Loupe reads it from two answers that agree (service-clock.ts),
// which a sandbox running 60× faster makes a race; cache windows are judged on it
test.use({ hostOptions: { sandbox: { timeScale: 1, freeCalls: 0 } } });

// QUARANTINED (2026-11-27, issue 29): in one fresh-clone CI run of three no item had become
// unavailable by the time the plan ran (the sandbox's aging judged on a clock read too early).
// LOUPE_QUARANTINED=1 runs it; unskip with the fix.
test.skip(!process.env.LOUPE_QUARANTINED, 'quarantined: flaky timing of the sandbox aging, see the comment above');
test('Rehydrate a bundle… prices first, spends nothing when declined, re-collects when approved and names what is gone', async ({
  page,
  sandboxAdmin,
}) => {
  for (let k = 0; k < 2; k++)
    await api(page, 'api.call', {
      target: { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: `aging.rh-e2e${k}` } },
      source: 'test',
    });
  const tmp = mkdtempSync(join(tmpdir(), 'loupe-e2e-rehydrate-'));
  try {
    const dir = join(tmp, 'dehydrated');
    const b = await api<{ items: number; root: string }>(page, 'datasets.exportBundle', {
      target: { query: { platforms: ['photo_net'] } },
      out: dir,
      dehydrated: true,
    });
    expect(b.items).toBeGreaterThan(10);
    sandboxAdmin.advance(90 * 86_400); // the world ages: some posts are deleted, some accounts made private

    await page.getByTestId('nav-library').click();
    await page.getByTestId('export-open').click();
    await page.getByTestId('export-format').selectOption('bundle');
    const panel = page.getByTestId('bundle-export');
    const charged = () => sandboxAdmin.charges().reduce((s, c) => s + c.credits_used, 0);
    const before = { calls: sandboxAdmin.charges().filter((c) => c.credits_used > 0).length, credits: charged() };

    // declined: verified and priced (free), nothing charged
    await panel.getByTestId('bundle-rehydrate').click();
    await page.getByRole('dialog').getByRole('textbox').fill(dir);
    await page.getByRole('dialog').getByRole('button', { name: 'Price it' }).click();
    const confirm = page.getByTestId('confirm-dialog');
    await expect(confirm).toContainText(`${b.items} items from`);
    await expect(confirm).toContainText('Today:');
    await expect(confirm).toContainText('The bundle’s own quote');
    await page.getByTestId('confirm-cancel').click();
    await expect(confirm).toBeHidden();
    await expect(panel.getByTestId('bundle-rehydrate')).toBeEnabled();
    expect(charged()).toBe(before.credits);

    // approved: re-collected, the removed ones unavailable and named, nothing deleted
    await panel.getByTestId('bundle-rehydrate').click();
    await page.getByRole('dialog').getByRole('textbox').fill(dir);
    await page.getByRole('dialog').getByRole('button', { name: 'Price it' }).click();
    await page.getByTestId('confirm-ok').click();
    const report = panel.getByTestId('bundle-rehydrate-report');
    await expect(report).toBeVisible({ timeout: 90_000 });
    const [recollected, held, unavailable] = ((await report.textContent()) ?? '')
      .match(/\d[\d,]*(?= (re-collected|already|unavailable))/g)!
      .map((x) => Number(x.replace(/,/g, '')));
    expect(held).toBe(0);
    expect(unavailable).toBeGreaterThan(0);
    expect(recollected + unavailable).toBe(b.items);
    await expect(panel.getByTestId('bundle-rehydrate-check')).toContainText(`All ${b.items} keys are in this archive.`); // nothing deleted
    await expect(panel.getByTestId('bundle-rehydrate-missing').locator('li')).toHaveCount(Math.min(unavailable, 20));
    await expect(panel.getByTestId('bundle-rehydrate-missing')).toContainText('unavailable — photo_net/post answered not found');
    const ledger = await api<Array<{ creditsUsed: number }>>(page, 'usage.ledger', { limit: 1000 });
    expect(ledger.reduce((s, e) => s + e.creditsUsed, 0)).toBe(charged()); // the ledger equals what the service charged
    expect(charged()).toBeGreaterThan(before.credits);
    await axeClean(page, 'the rehydration report');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
