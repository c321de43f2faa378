/**
 * Datasets in the app (issue 29, docs/datasets.md), driven in Chromium through the web host: the
 * drawer's metric history (chart and the readings as a table), the Library's growth filter and
 * sort. Items are seeded into the host's archive at chosen read times (the archive's own ingest,
 * as a collection would store them), so the history is known.
 */
import type { Page } from '@playwright/test';
import type { CallResult } from '../src/shared/contract-calls';
import { itemsOfData } from '../src/core/archive/extract';
import { post } from '../src/core/archive/test-fixtures';
import { postGone } from '../src/sandbox/world/aging';
import { openArchive } from '../src/core/archive';
import { archivePath } from '../src/core/paths';
import { test, expect } from './fixtures';
import { api, axeClean } from './page-helpers';

const HOUR = 3_600_000;

/** Each round is one ingest of the records at `ago` before now (its read time). */
async function seedReadings(
  page: Page,
  dataDir: string,
  rounds: Array<{ ago: number; records: Array<Record<string, unknown>> }>,
): Promise<void> {
  await api(page, 'library.count', {}); // the archive exists
  const a = openArchive(archivePath(dataDir));
  try {
    rounds.forEach((r, n) =>
      a.ingestItems(
        r.records.map((record) => ({ platform: 'photo_net', kind: 'post', record })),
        { callId: `seed-${n}`, source: 'seed', fetchedAt: Date.now() - r.ago },
      ),
    );
  } finally {
    a.close();
  }
}

test('the drawer shows the metric history as a chart and lists every reading for screen readers', async ({ page, host }) => {
  await seedReadings(page, host.dataDir, [
    { ago: 48 * HOUR, records: [post({ id: '9100', likes: 10, views: 100 })] },
    { ago: 24 * HOUR, records: [post({ id: '9100', likes: 25, views: 300 })] },
    { ago: 2 * HOUR, records: [post({ id: '9100', likes: 40, views: 900 })] },
  ]);
  await page.getByTestId('nav-library').click();
  await page.getByTestId('result-row').first().click();
  const history = page.getByTestId('metric-history');
  await expect(history).toContainText('3 readings');
  const chart = page.getByTestId('history-chart');
  await expect(chart).toHaveAttribute('aria-label', /3 readings .*views 100 → 900, likes 10 → 40/);
  await expect(chart.locator('.recharts-line')).toHaveCount(2); // views and likes: the network gives no other count
  // the table is in the page (read by screen readers) before it is shown, one row per reading
  const table = page.getByTestId('history-table');
  await expect(table.locator('tbody tr')).toHaveCount(3);
  await expect(table).toHaveClass(/sr-only/);
  await expect(table.locator('tbody tr').nth(1)).toContainText('25');
  await expect(table.locator('tbody tr').nth(1)).toContainText('—'); // comments: not given, never 0
  await page.getByTestId('history-table-toggle').click();
  await expect(table).not.toHaveClass(/sr-only/);
  await page.getByTestId('history-count').selectOption('likes');
  await expect(chart.locator('.recharts-line')).toHaveCount(1);
  await axeClean(page, 'the drawer with its metric history');
});

test('the Library filters and sorts by growth over a period', async ({ page, host }) => {
  await seedReadings(page, host.dataDir, [
    { ago: 20 * 24 * HOUR, records: [post({ id: '9201', likes: 5 }), post({ id: '9202', likes: 100 }), post({ id: '9203', likes: 50 })] },
    { ago: 3 * 24 * HOUR, records: [post({ id: '9201', likes: 10 }), post({ id: '9202', likes: 105 }), post({ id: '9203', likes: 50 })] },
    { ago: HOUR, records: [post({ id: '9201', likes: 500 }), post({ id: '9202', likes: 110 }), post({ id: '9203', likes: 50 })] },
  ]);
  await page.getByTestId('nav-library').click();
  await expect(page.getByTestId('library-count')).toHaveText('3 matching');
  await page.getByTestId('growth-field').selectOption('likes');
  await page.getByTestId('growth-period').selectOption('7');
  const min = page.getByTestId('growth-min');
  await min.fill('1');
  await min.press('Enter');
  // over the last 7 days (from the reading held 7 days ago): 9201 grew 495 (5 → 500), 9202 grew 10, 9203 did not grow
  await expect(page.getByTestId('library-count')).toHaveText('2 matching');
  await page.getByTestId('growth-sort').check();
  const ids = () => page.getByTestId('result-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')));
  await expect.poll(ids).toEqual(['9201', '9202']);
  await min.fill('11');
  await min.press('Enter');
  await expect(page.getByTestId('library-count')).toHaveText('1 matching');
  // off again: every item, and the growth sort goes with its condition
  await page.getByTestId('growth-period').selectOption('');
  await expect(page.getByTestId('library-count')).toHaveText('3 matching');
  await expect(page.getByTestId('growth-sort')).toHaveCount(0);
});

test('attrition of the current filters; Re-check is priced and asked first, spends nothing when declined, and marks what the service removed', async ({
  page,
  host,
  sandboxAdmin,
}) => {
  // the state the test needs, built rather than hoped for (as e2e/rehydrate.spec.ts): accounts are
  // read until the sandbox's own aging (the pure functions the service answers from) has at least
  // one of their posts gone 90 days on — four accounts alone drew none about one run in eight
  const sb = host.sandbox();
  if (!sb) throw new Error('the host is not using the sandbox');
  const { epoch } = (await (await fetch(`${sb.url}/__admin/clock`)).json()) as { epoch: number };
  const later = sandboxAdmin.now() + 90 * 86_400_000;
  let gone = 0;
  for (let k = 0; k < 4 || gone === 0; k++) {
    if (k >= 16) throw new Error('16 accounts read and none of their posts is gone 90 days on: the sandbox changed');
    const r = await api<CallResult>(page, 'api.call', {
      target: { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: `aging.e2e${k}` } },
      source: 'test',
    });
    for (const it of itemsOfData(r.envelope.data, 'profile/posts')) {
      const rec = it.record as { published_at?: string | null; author?: { username?: string } };
      const p = { id: it.id, kind: it.kind, parent_id: null, author: { username: rec.author?.username } } as never;
      if (postGone({ seed: 1, epoch }, 'photo_net', p, rec.published_at ? Date.parse(rec.published_at) : null, later)) gone++;
    }
  }
  sandboxAdmin.advance(90 * 86_400); // the sandbox's world ages: some posts are deleted or made private
  await page.getByTestId('nav-library').click();
  await page.getByTestId('library-platform').selectOption('photo_net');
  await page.getByTestId('attrition-open').click();
  const panel = page.getByTestId('attrition-panel');
  const n = Number(((await page.getByTestId('library-count').textContent()) ?? '').replace(/[^\d]/g, ''));
  expect(n).toBeGreaterThan(10);
  await expect(page.getByTestId('attrition-words')).toContainText(
    `${n} items: 0 available (0.0 %), 0 unavailable (0.0 %), ${n} not re-checked (100.0 %)`,
  );

  // declined: priced (free), nothing charged
  const charged = () => sandboxAdmin.charges().reduce((s, c) => s + c.credits_used, 0);
  const before = { calls: sandboxAdmin.charges().length, credits: charged() };
  await panel.getByTestId('recheck').click();
  const dialog = page.getByTestId('confirm-dialog');
  await expect(dialog).toContainText(`${n} of ${n} items read again`);
  await expect(dialog).toContainText('Could cost');
  await page.getByTestId('confirm-cancel').click();
  await expect(dialog).toBeHidden();
  await expect(panel.getByTestId('recheck')).toBeEnabled();
  expect(sandboxAdmin.charges().length).toBe(before.calls);

  // approved: every item is marked; the counts shown are the archive's
  await panel.getByTestId('recheck').click();
  await page.getByTestId('confirm-ok').click();
  const result = panel.getByTestId('recheck-result');
  await expect(result).toBeVisible({ timeout: 60_000 });
  const [found, missing] = ((await result.textContent()) ?? '').match(/\d+/g)!.map(Number);
  expect(found + missing).toBe(n);
  expect(missing).toBeGreaterThanOrEqual(gone); // at least the posts the world removed
  const rows = await api<Array<{ available: number; unavailable: number; notRechecked: number }>>(page, 'datasets.attrition', {
    target: { query: { platforms: ['photo_net'] } },
  });
  expect(rows.reduce((s, r) => s + r.unavailable, 0)).toBe(missing);
  await expect(page.getByTestId('attrition-words')).toContainText(`${n} items: ${found} available`);
  await expect(page.getByTestId('library-count')).toHaveText(`${n} matching`); // nothing deleted
  const ledger = await api<Array<{ creditsUsed: number }>>(page, 'usage.ledger', { limit: 1000 });
  expect(ledger.reduce((s, e) => s + e.creditsUsed, 0)).toBe(charged()); // the ledger equals what the service charged
  expect(charged()).toBeGreaterThan(before.credits);
  await expect(page.getByTestId('attrition-chart').locator('.recharts-bar-rectangle').first()).toBeVisible();
  await axeClean(page, 'the attrition panel');
});

test('the export panel writes a dataset bundle (.zip) with its root hash; Import lists conflicting annotations', async ({ page, host }) => {
  await seedReadings(page, host.dataDir, [{ ago: 2 * HOUR, records: [post({ id: '9301', likes: 3 }), post({ id: '9302', likes: 4 })] }]);
  await api(page, 'library.note', { item: { platform: 'photo_net', kind: 'post', id: '9301' }, note: 'theirs' });
  await page.getByTestId('nav-library').click();
  await page.getByTestId('export-open').click();
  await page.getByTestId('export-format').selectOption('bundle');
  const panel = page.getByTestId('bundle-export');
  await panel.getByTestId('bundle-name').fill('study');
  await panel.getByTestId('bundle-start').click();
  const status = panel.getByTestId('bundle-status');
  await expect(status).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(panel.getByTestId('bundle-summary')).toContainText(
    /Bundle of 2 item\(s\) from 1 call\(s\)\. Root hash \(cite it\): [0-9a-f]{64}/,
  );
  const path = (await panel.getByTestId('bundle-path').textContent())!;
  expect(path.endsWith('study.zip')).toBe(true);
  const root = ((await panel.getByTestId('bundle-summary').textContent()) ?? '').match(/[0-9a-f]{64}/)![0];
  // the web door downloads the one file; the bundle it wrote verifies by its export id (the page never names a path)
  const href = (await panel.getByTestId('bundle-download').getAttribute('href'))!;
  const exportId = decodeURIComponent(href.match(/\/api\/exports\/([^?]+)/)![1]);
  expect(await api(page, 'datasets.verifyBundle', { bundle: { export: exportId }, withArchive: true })).toMatchObject({ ok: true, root });
  const download = page.waitForEvent('download');
  await panel.getByTestId('bundle-download').click();
  expect((await download).suggestedFilename()).toBe('study.zip');

  // this archive's note changes; importing the bundle keeps it and lists the conflict
  await api(page, 'library.note', { item: { platform: 'photo_net', kind: 'post', id: '9301' }, note: 'mine' });
  // the bundle .zip chosen on this computer is sent to Loupe, verified and imported
  const chooser = page.waitForEvent('filechooser');
  await panel.getByTestId('bundle-import').click();
  await (await chooser).setFiles(path);
  const report = panel.getByTestId('bundle-import-report');
  await expect(report).toContainText('0 answer(s) stored, 0 already held; items 2 → 2 (2 in the bundle)');
  await expect(panel.getByTestId('bundle-conflicts')).toContainText(
    'photo_net/post/9301: note note: this archive has another value; the bundle\'s ("theirs"',
  );
  const item = await api<{ note: string }>(page, 'library.item', { platform: 'photo_net', kind: 'post', id: '9301' });
  expect(item.note).toBe('mine');
  await axeClean(page, 'the bundle export');
});
