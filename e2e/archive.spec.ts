/**
 * Issue 24 #10 in the app: Settings → Archive → "Make a copy" makes a consistent one-file copy of
 * the archive while the app works, and the browser downloads it: a SQLite file holding the
 * analyst's tags and notes (which a plain copy of loupe.db taken now would miss: they are in the WAL).
 */
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { test, expect } from './fixtures';
import { api, searchWalk } from './page-helpers';

test('Settings → Archive: a copy with everything, downloaded', async ({ page }) => {
  await searchWalk(page, 'trail running shoes');
  const rows = await api<{ rows: Array<{ platform: string; kind: string; id: string }> }>(page, 'library.query', { limit: 2 });
  await api(page, 'library.tag', {
    items: rows.rows.map((r) => ({ platform: r.platform, kind: r.kind, id: r.id })),
    tag: 'for-the-report',
  });
  await api(page, 'library.note', { item: rows.rows[0], note: 'quote this one' });

  await page.getByTestId('nav-settings').click();
  const panel = page.getByTestId('archive-panel');
  await expect(panel).toContainText('share or back up');
  await page.getByTestId('archive-snapshot').click();
  const status = page.getByTestId('archive-snapshot-status');
  await expect(status).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(page.getByTestId('archive-snapshot-summary')).toContainText('2 tags, 1 notes');
  await expect(page.getByTestId('archive-snapshot-path')).toContainText('.db');

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('archive-snapshot-download').click()]);
  const file = await download.path();
  expect(readFileSync(file).subarray(0, 15).toString()).toBe('SQLite format 3');
  const db = new Database(file, { readonly: true });
  try {
    expect(db.prepare('SELECT count(*) AS n FROM item_tags').get()).toEqual({ n: 2 });
    expect(db.prepare('SELECT text FROM notes').all()).toEqual([{ text: 'quote this one' }]);
    expect((db.prepare('SELECT count(*) AS n FROM items').get() as { n: number }).n).toBeGreaterThan(0);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  } finally {
    db.close();
  }
});
