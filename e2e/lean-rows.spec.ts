/**
 * Issue 14 (scrolling 10,000 rows): the Library's pages come lean — the page asks `library.query`
 * with `lean: true` and the answer's rows carry no raw API record (the columns, a thumbnail URL) —
 * while the drawer still shows the whole record, read through `library.item`.
 */
import type { Page, Response } from '@playwright/test';
import { test, expect } from './fixtures';
import { api, searchWalk } from './page-helpers';

/** the library.query answers the page receives from now on, with what it asked */
function answers(page: Page): Array<{ input: Record<string, unknown>; rows: Array<Record<string, unknown>> }> {
  const seen: Array<{ input: Record<string, unknown>; rows: Array<Record<string, unknown>> }> = [];
  page.on('response', (r: Response) => {
    if (!r.url().includes('/api/library.query')) return;
    const input = JSON.parse(r.request().postData() ?? '{}') as Record<string, unknown>;
    void r
      .json()
      .then((j: { ok: boolean; result?: { rows: Array<Record<string, unknown>> } }) => {
        if (j.ok && j.result) seen.push({ input, rows: j.result.rows });
      })
      .catch(() => {});
  });
  return seen;
}

test('the Library’s pages carry no raw record; the drawer shows the whole record', async ({ page }) => {
  await searchWalk(page, 'running shoes');
  const seen = answers(page);
  await page.getByTestId('nav-library').click();
  await expect(page.getByTestId('result-row').first()).toBeVisible();
  await expect.poll(() => seen.filter((a) => a.rows.length > 0).length).toBeGreaterThan(0);
  for (const a of seen.filter((x) => x.rows.length > 0)) {
    expect(a.input.lean).toBe(true);
    for (const r of a.rows) {
      expect(r).not.toHaveProperty('record');
      expect(r).toHaveProperty('thumbnailUrl');
      expect(typeof r.id).toBe('string');
    }
  }
  // the first row's whole record, as the contract gives it without `lean`
  const row = page.getByTestId('result-row').first();
  const id = (await row.getAttribute('data-id'))!;
  const full = await api<{ rows: Array<{ id: string; record: Record<string, unknown> }> }>(page, 'library.query', { limit: 1000 });
  const record = full.rows.find((r) => r.id === id)!.record;
  expect(record).toBeTruthy();
  await row.click();
  await expect(page.getByTestId('drawer')).toBeVisible();
  await page.getByTestId('drawer').getByText('Raw record').click();
  const raw = await page.getByTestId('drawer').locator('pre.raw').textContent();
  expect(JSON.parse(raw ?? 'null')).toEqual(record);
});

test('an app opened on the Library asks for its first page once, before its code runs, and shows it', async ({ page }) => {
  await searchWalk(page, 'running shoes');
  await page.getByTestId('nav-library').click();
  await expect(page.getByTestId('result-row').first()).toBeVisible();
  const ids = await page.getByTestId('result-row').evaluateAll((rs) => rs.slice(0, 5).map((r) => r.getAttribute('data-id')));
  // the address follows the view (…#library): a reload opens the app on it
  const asked: Array<Record<string, unknown>> = [];
  page.on('request', (r) => {
    if (r.url().includes('/api/library.query')) asked.push(JSON.parse(r.postData() ?? '{}') as Record<string, unknown>);
  });
  await page.reload();
  await expect(page.getByTestId('result-row').first()).toBeVisible();
  await expect(page.getByTestId('library-count')).not.toContainText('counting');
  expect(await page.getByTestId('result-row').evaluateAll((rs) => rs.slice(0, 5).map((r) => r.getAttribute('data-id')))).toEqual(ids);
  // one request for the first page (src/renderer/first-page.js's, taken by the app), none of its own
  expect(asked.filter((a) => a.after === undefined)).toEqual([{ sort: { field: 'published_at', dir: 'desc' }, limit: 200, lean: true }]);
});

test('the reads the first rows do not need are asked after those rows are drawn', async ({ page }) => {
  await searchWalk(page, 'running shoes');
  await page.getByTestId('nav-library').click();
  await expect(page.getByTestId('result-row').first()).toBeVisible();
  // the page's own clock: when the first row entered the DOM (src/renderer/src/first-view.ts)
  await page.addInitScript(`(() => {
    const mo = new MutationObserver(() => {
      if (window.__firstRow === undefined && document.querySelector('[data-testid="result-row"]')) {
        window.__firstRow = performance.now();
        mo.disconnect();
      }
    });
    mo.observe(document, { childList: true, subtree: true });
  })()`);
  await page.reload();
  await expect(page.getByTestId('result-row').first()).toBeVisible();
  await expect(page.getByTestId('library-count')).not.toContainText('counting');
  // a resource entry is there once its answer is in
  const read = async () =>
    (await page.evaluate(`(() => ({
      row: window.__firstRow,
      asked: performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/')).map((e) => ({ method: new URL(e.name).pathname.slice(5), start: e.startTime })),
    }))()`)) as { row: number; asked: Array<{ method: string; start: number }> };
  const later = ['library.count', 'library.tags', 'library.resultSets'];
  await expect.poll(async () => (await read()).asked.map((a) => a.method)).toEqual(expect.arrayContaining(later));
  const t = await read();
  const held = t.asked.filter((a) => later.includes(a.method));
  for (const a of held)
    expect(a.start, `${a.method} asked at ${a.start.toFixed(0)} ms, the first row at ${t.row.toFixed(0)} ms`).toBeGreaterThan(t.row);
  // the first page itself was asked before
  expect(t.asked.find((a) => a.method === 'library.query')!.start).toBeLessThan(t.row);
});
