/**
 * Issue 27 #7 and #12 in Chromium, as an analyst would: the Tags manager (from the command palette,
 * keyboard only: rename, colour, merge and delete, each merge and delete saying how many items it
 * touches first), Export from Search with a facet on (every page held, exactly the rows the filter
 * shows), and a post's comments in the Library from its drawer. axe stays clean on each.
 */
import type { Page } from '@playwright/test';
import { post } from '../src/core/archive/test-fixtures';
import { test, expect } from './fixtures';
import { api, axeClean, searchWalk, seedItems } from './page-helpers';

const tagRow = (page: Page, tag: string) => page.getByTestId('tags-panel').locator(`[data-testid="tag-row"][data-tag="${tag}"]`);

test('the Tags manager, keyboard only: rename, colour, merge and delete say what they touch and change only that', async ({
  page,
  host,
}) => {
  await seedItems(
    page,
    host.dataDir,
    ['1', '2', '3'].map((i) => post({ id: `8300${i}`, text: `tagged ${i}` })),
  );
  const ref = (i: string) => ({ platform: 'micro_net', kind: 'post', id: `8300${i}` });
  await api(page, 'library.tag', { items: [ref('1'), ref('2')], tag: 'lead' });
  await api(page, 'library.tag', { items: [ref('2'), ref('3')], tag: 'hot' });
  await api(page, 'library.note', { item: ref('2'), note: 'call back' });

  // the palette opens the manager in the Library
  await page.keyboard.press('Control+k');
  await page.keyboard.type('Manage tags');
  await page.keyboard.press('Enter');
  const panel = page.getByTestId('tags-panel');
  await expect(panel).toBeVisible();
  await expect(tagRow(page, 'lead')).toContainText('2');
  await axeClean(page, 'the Tags manager');

  // rename: Tab to the button, Enter, type, Enter
  await tagRow(page, 'lead').getByTestId('tag-rename').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('ask-input')).toBeFocused();
  await page.keyboard.press('Control+a');
  await page.keyboard.type('prospect');
  await page.keyboard.press('Enter');
  await expect(tagRow(page, 'prospect')).toContainText('2');
  await expect(tagRow(page, 'lead')).toHaveCount(0);

  // colour, from the keyboard
  await tagRow(page, 'hot').getByTestId('tag-colour').focus();
  await tagRow(page, 'hot').getByTestId('tag-colour').selectOption('red');
  await expect
    .poll(async () => (await api<Array<{ tag: string; color: string | null }>>(page, 'tags.list')).find((t) => t.tag === 'hot')?.color)
    .toBe('red');
  await expect(tagRow(page, 'hot').locator('.tag-c-red')).toHaveCount(1);
  // the same in the dark theme, through the Library's own button
  await api(page, 'settings.update', { theme: 'dark' });
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.getByTestId('nav-library').click();
  await page.getByTestId('tags-open').click();
  await expect(tagRow(page, 'hot').locator('.tag-c-red')).toHaveCount(1);
  await axeClean(page, 'the Tags manager (dark)');

  // merge "hot" into "prospect": the question says how many items, before anything changes
  await tagRow(page, 'hot').getByTestId('tag-merge').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('ask-input')).toBeFocused();
  await page.keyboard.type('prospect');
  await page.keyboard.press('Enter');
  const confirm = page.getByTestId('confirm-dialog');
  await expect(confirm).toContainText('This touches 2 items (1 item already carries it)');
  expect((await api<Array<{ tag: string }>>(page, 'tags.list')).map((t) => t.tag)).toEqual(['hot', 'prospect']);
  await axeClean(page, 'the merge question');
  await page.keyboard.press('Enter');
  await expect(tagRow(page, 'hot')).toHaveCount(0);
  await expect(tagRow(page, 'prospect')).toContainText('3');

  // delete: the count, then Esc cancels — nothing changes; then confirmed
  await tagRow(page, 'prospect').getByTestId('tag-delete').focus();
  await page.keyboard.press('Enter');
  await expect(confirm).toContainText('This removes it from 3 items.');
  await page.keyboard.press('Escape');
  await expect(confirm).toHaveCount(0);
  await expect(tagRow(page, 'prospect')).toContainText('3');
  await tagRow(page, 'prospect').getByTestId('tag-delete').focus();
  await page.keyboard.press('Enter');
  await expect(confirm).toBeVisible();
  await page.keyboard.press('Enter');
  await expect(panel).toContainText('No tags yet');
  const item = await api<{ note: string | null; tags: string[] }>(page, 'library.item', ref('2'));
  expect(item).toMatchObject({ note: 'call back', tags: [] }); // the note the deletion did not name stays
});

test('Export from Search: every page held, exactly the rows the filter shows, said in words', async ({ page }) => {
  await searchWalk(page, 'running shoes');
  await expect(page.getByTestId('result-row').first()).toBeVisible();
  // the facet with the fewest rows on: the export takes the same rows as the table
  const facets = page.getByTestId('facets').locator('label.facet');
  const counts = (await facets.locator('.facet-count').allTextContents()).map(Number);
  await facets
    .nth(counts.indexOf(Math.min(...counts)))
    .locator('input')
    .check();
  const m = /(\d+) of (\d+) loaded rows/.exec((await page.getByTestId('filtered-count').textContent()) ?? '');
  const shown = Number(m?.[1]);
  expect(shown).toBeGreaterThan(0);
  await page.getByTestId('view-export-open').click();
  const panel = page.getByTestId('export-panel');
  await expect(panel).toContainText(`${shown} row${shown === 1 ? '' : 's'}: of the`);
  await expect(panel).toContainText('held in the archive, those the filters show');
  await axeClean(page, 'Search with its export panel');
  await page.getByTestId('export-format').selectOption('jsonl');
  await page.getByTestId('export-start').click();
  await expect(page.getByTestId('export-status')).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(page.getByTestId('export-status')).toContainText(`${shown} / ${shown} rows`);
});

test('a post’s comments in the Library from its drawer; the thread condition can be removed', async ({ page, host }) => {
  await seedItems(page, host.dataDir, [post({ id: '84000', text: 'the post with comments' })], 'photo_net', 'post');
  await seedItems(
    page,
    host.dataDir,
    [
      post({ id: '84001', kind: 'comment', parent_id: '84000', text: 'first comment' }),
      post({ id: '84002', kind: 'reply', parent_id: '84001', text: 'a reply' }),
      post({ id: '84003', kind: 'comment', parent_id: '99999', text: 'elsewhere' }),
    ],
    'photo_net',
    'comment',
  );
  await page.getByTestId('nav-library').click();
  await expect(page.getByTestId('library-count')).toHaveText('4 matching');
  await page.locator('[data-testid="result-row"][data-id="84000"]').click();
  await page.getByTestId('drawer-thread').click();
  await expect(page.getByTestId('thread-condition')).toContainText('84000');
  await expect(page.getByTestId('library-count')).toHaveText('2 matching');
  const ids = await page.getByTestId('result-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')).sort());
  expect(ids).toEqual(['84001', '84002']);
  await axeClean(page, 'the Library with a thread');
  await page.getByRole('button', { name: 'Remove the thread condition' }).click();
  await expect(page.getByTestId('library-count')).toHaveText('4 matching');
});
