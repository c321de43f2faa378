/**
 * Rehydrating a dehydrated bundle in the app (issue 29, docs/datasets.md "Rehydrate"), in Chromium
 * through the web host: the export panel's "Rehydrate a bundle…" sends the bundle .zip chosen, prices
 * the re-collection (free) and shows it in the confirm dialog beside the bundle's own quote;
 * declined, nothing is charged; approved, the posts the sandbox's aging world removed come back
 * unavailable (named), the rest re-collected, nothing deleted, and the ledger equals the service's
 * charges.
 */
import type { CallResult } from '../src/shared/contract-calls';
import { itemsOfData } from '../src/core/archive/extract';
import { postGone } from '../src/sandbox/world/aging';
import { test, expect } from './fixtures';
import { api, axeClean } from './page-helpers';

// the service's clock at real speed: Loupe reads it from two answers that agree (service-clock.ts),
// which a sandbox running 60× faster makes a race; cache windows are judged on it
const SEED = 1;
test.use({ hostOptions: { sandbox: { seed: SEED, timeScale: 1, freeCalls: 0 } } });

const DAYS_ON = 90;

// Once quarantined (2026-11-27): in one CI run of three no item of the bundle had become
// unavailable. Two accounts' first pages hold ~25 posts; each is removed with probability 8 % (its
// account made private with 2 %), so about one run in eight drew a bundle the world never thins.
// The test now builds the state it needs instead: it reads more accounts until the sandbox's own
// aging (the pure functions the service answers from, on its seed, epoch and clock) has at least
// one of the bundle's posts gone 90 days on — a state, not a time.
test('Rehydrate a bundle… prices first, spends nothing when declined, re-collects when approved and names what is gone', async ({
  page,
  host,
  sandboxAdmin,
}) => {
  // each post is read singly at the pacer's pace (~0.7 s a request at the sandbox's rate): the
  // report is a state waited for, as long as that takes on a loaded machine
  test.setTimeout(300_000);
  const sb = host.sandbox();
  if (!sb) throw new Error('the host is not using the sandbox');
  const { epoch } = (await (await fetch(`${sb.url}/__admin/clock`)).json()) as { epoch: number };
  const ctx = { seed: SEED, epoch };
  const later = sandboxAdmin.now() + DAYS_ON * 86_400_000;
  let gone = 0;
  for (let k = 0; gone === 0; k++) {
    if (k >= 12) throw new Error(`12 accounts read and none of their posts is gone ${DAYS_ON} days on: the sandbox's aging changed`);
    const r = await api<CallResult>(page, 'api.call', {
      target: { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: `aging.rh-e2e${k}` } },
      source: 'test',
    });
    for (const it of itemsOfData(r.envelope.data, 'profile/posts')) {
      const rec = it.record as { published_at?: string | null; author?: { username?: string } };
      const post = { id: it.id, kind: it.kind, parent_id: null, author: { username: rec.author?.username } } as never;
      if (postGone(ctx, 'photo_net', post, rec.published_at ? Date.parse(rec.published_at) : null, later)) gone++;
    }
  }
  // the dehydrated bundle, written as the app writes one (an export job into the data folder's exports)
  const job = await api<{ exportId: string }>(page, 'datasets.bundleJob', {
    target: { query: { platforms: ['photo_net'] } },
    zip: true,
    dehydrated: true,
  });
  let written: { status: string; path: string; summary: string } | null = null;
  await expect
    .poll(async () => (written = await api(page, 'export.get', { exportId: job.exportId }))?.status, { timeout: 60_000 })
    .toBe('done');
  const file = written!.path;
  const b = { items: Number(written!.summary.match(/Bundle of ([\d,]+) item/)![1].replace(/,/g, '')) };
  sandboxAdmin.advance(DAYS_ON * 86_400); // the world ages: the posts counted above are deleted or their accounts private

  await page.getByTestId('nav-library').click();
  await page.getByTestId('export-open').click();
  await page.getByTestId('export-format').selectOption('bundle');
  const panel = page.getByTestId('bundle-export');
  const charged = () => sandboxAdmin.charges().reduce((s, c) => s + c.credits_used, 0);
  // the bundle .zip chosen in the file dialog (sent to Loupe, verified and priced)
  const pickBundle = async () => {
    const chooser = page.waitForEvent('filechooser');
    await panel.getByTestId('bundle-rehydrate').click();
    await (await chooser).setFiles(file);
  };
  const before = { calls: sandboxAdmin.charges().filter((c) => c.credits_used > 0).length, credits: charged() };

  // declined: verified and priced (free), nothing charged
  await pickBundle();
  const confirm = page.getByTestId('confirm-dialog');
  await expect(confirm).toContainText(`${b.items} items from`);
  await expect(confirm).toContainText('Today:');
  await expect(confirm).toContainText('The bundle’s own quote');
  await page.getByTestId('confirm-cancel').click();
  await expect(confirm).toBeHidden();
  await expect(panel.getByTestId('bundle-rehydrate')).toBeEnabled();
  expect(charged()).toBe(before.credits);

  // approved: re-collected, the removed ones unavailable and named, nothing deleted
  await pickBundle();
  await page.getByTestId('confirm-ok').click();
  const report = panel.getByTestId('bundle-rehydrate-report');
  await expect(report).toBeVisible({ timeout: 240_000 });
  const [recollected, held, unavailable] = ((await report.textContent()) ?? '')
    .match(/\d[\d,]*(?= (re-collected|already|unavailable))/g)!
    .map((x) => Number(x.replace(/,/g, '')));
  expect(held).toBe(0);
  expect(unavailable).toBeGreaterThanOrEqual(gone); // at least the posts the world removed (read singly, each is exact)
  expect(recollected + unavailable).toBe(b.items);
  await expect(panel.getByTestId('bundle-rehydrate-check')).toContainText(`All ${b.items} keys are in this archive.`); // nothing deleted
  await expect(panel.getByTestId('bundle-rehydrate-missing').locator('li')).toHaveCount(Math.min(unavailable, 20));
  await expect(panel.getByTestId('bundle-rehydrate-missing')).toContainText('unavailable — photo_net/post answered not found');
  const ledger = await api<Array<{ creditsUsed: number }>>(page, 'usage.ledger', { limit: 1000 });
  expect(ledger.reduce((s, e) => s + e.creditsUsed, 0)).toBe(charged()); // the ledger equals what the service charged
  expect(charged()).toBeGreaterThan(before.credits);
  await axeClean(page, 'the rehydration report');
});
