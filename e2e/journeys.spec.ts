/**
 * The analyst's day (issue 14): the eleven tasks walked as an analyst would, in Chromium through the
 * web host and the in-process sandbox, with the invariants checked after each step:
 *   - one user action → the number of requests the UI announced (counted on the sandbox);
 *   - the sandbox's charges = Loupe's ledger = what the UI reported spent;
 *   - items the UI says are new = rows added to the archive;
 *   - no view shows a number the archive contradicts;
 *   - axe-core: no critical or serious violation on any view, light and dark (injected through
 *     the DevTools protocol, so the page's CSP is not weakened).
 */
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Page } from '@playwright/test';
import type { SandboxAdmin } from '../src/sandbox/index';
import { test, expect, shot } from './fixtures';
import { api, axeClean } from './page-helpers';

/** Requests the sandbox served that can cost (price quotes, dry_run=1, are free and not counted). */
function requests(sb: SandboxAdmin): number {
  return sb.charges().filter((c) => c.charge_reason !== 'dry_run').length;
}

/** The books: the sandbox's charges, Loupe's ledger and the Usage view agree. */
async function booksAgree(page: Page, sb: SandboxAdmin): Promise<number> {
  const charged = sb.charges().reduce((n, c) => n + c.credits_used, 0);
  const ledger = await api<Array<{ creditsUsed: number }>>(page, 'usage.ledger', { limit: 1000 });
  expect(
    ledger.reduce((n, r) => n + r.creditsUsed, 0),
    'ledger = sandbox charges',
  ).toBe(charged);
  const usage = await api<{ charged: { credits: number } }>(page, 'usage.summary', {});
  expect(usage.charged.credits, 'usage summary = sandbox charges').toBe(charged);
  return charged;
}

async function archiveCount(page: Page, q: Record<string, unknown> = {}): Promise<number> {
  return api<number>(page, 'library.count', q);
}

async function approveIfAsked(page: Page, then = page.getByTestId('walk-status')): Promise<void> {
  const dialog = page.getByTestId('confirm-dialog');
  await expect(dialog.or(then).first()).toBeVisible({ timeout: 30_000 });
  if (await dialog.isVisible()) await page.getByTestId('confirm-ok').click();
  await expect(dialog).toBeHidden();
}

/**
 * Press a button that starts a walk (confirming when Loupe asks) and wait for THAT walk to settle,
 * not the one already on screen.
 */
/** every walk id a bar has shown: a bar still drawn from an earlier walk (a view just opened) is not the new one */
const walksSeen = new WeakMap<Page, Set<string>>();

/** the walk id of the bar drawn now, or null: read in one step (a bar counted, then gone before its attribute was read, made getAttribute wait for the test's whole timeout) */
const shownWalkId = (page: Page): Promise<string | null> =>
  page.evaluate(() => document.querySelector('[data-testid="walk-status"]')?.getAttribute('data-walk-id') ?? null);

async function startWalk(page: Page, press: () => Promise<void>): Promise<{ pages: number; newItems: number; cost: number }> {
  const seen = walksSeen.get(page) ?? new Set<string>();
  walksSeen.set(page, seen);
  const old = await shownWalkId(page);
  if (old) seen.add(old);
  await press();
  const dialog = page.getByTestId('confirm-dialog');
  await expect
    .poll(
      async () => {
        if (await dialog.isVisible()) await page.getByTestId('confirm-ok').click();
        const id = await shownWalkId(page);
        return id !== null && !seen.has(id) && !(await dialog.isVisible());
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  const w = await walkSettled(page);
  const id = await shownWalkId(page);
  if (id) seen.add(id);
  return w;
}

async function walkSettled(page: Page): Promise<{ pages: number; newItems: number; cost: number }> {
  const bar = page.getByTestId('walk-status');
  await expect(bar).toBeVisible({ timeout: 30_000 });
  await expect(bar).not.toHaveAttribute('data-status', 'running', { timeout: 30_000 });
  const text = (await bar.innerText()).replace(/\u00a0/g, ' ');
  const pages = Number(/(\d+) pages?/.exec(text)?.[1] ?? NaN);
  const newItems = Number((/\(([\d,]+) new\)/.exec(text)?.[1] ?? 'NaN').replace(/,/g, ''));
  const cost = Number(((await page.getByTestId('walk-cost').innerText()).match(/[\d,]+/)?.[0] ?? 'NaN').replace(/,/g, ''));
  return { pages, newItems, cost };
}

test.describe.configure({ timeout: 120_000 });

test('search with a relevance filter: one click = one request, books and archive agree', async ({ page, sandboxAdmin }) => {
  await page.getByTestId('nav-search').click();
  const rel = page.getByTestId('search-relevance');
  if (await rel.isVisible()) await rel.selectOption('score');
  await page.getByTestId('search-query').fill('running shoes');
  await expect(page.getByTestId('search-submit-price')).toContainText('credit');
  const r0 = requests(sandboxAdmin);
  const a0 = await archiveCount(page);
  const w = await startWalk(page, () => page.getByTestId('search-submit').click());
  expect(w.pages).toBe(1);
  expect(requests(sandboxAdmin) - r0, 'one Search press, one page announced = one request').toBe(1);
  expect(await archiveCount(page), 'new items shown = rows added').toBe(a0 + w.newItems);
  expect(w.cost, 'cost shown = what the sandbox charged').toBe(await booksAgree(page, sandboxAdmin));
  // the rows listed are the walk's rows, all of them
  await expect(page.getByTestId('result-row').first()).toBeVisible();
  await page.getByTestId('facet-relevance').fill('0.8');
  await expect(page.getByTestId('filtered-count')).toBeVisible();
  const values = await page.locator('[data-testid="result-row"] .relbar .num').allTextContents();
  for (const v of values) expect(Number(v)).toBeGreaterThanOrEqual(0.8);

  // the same search pressed with Enter: still one request
  await page.getByTestId('search-query').fill('trail running shoes');
  await expect(page.getByTestId('search-submit-price')).toContainText('credit');
  const r1 = requests(sandboxAdmin);
  await startWalk(page, () => page.getByTestId('search-query').press('Enter'));
  expect(requests(sandboxAdmin) - r1).toBe(1);
  await booksAgree(page, sandboxAdmin);
});

test('a profile, its comments, the library and the export: every number matches the archive', async ({ page, sandboxAdmin }) => {
  // profile card + one page of its feed
  await page.getByTestId('nav-profiles').click();
  await page.getByTestId('profile-handle').fill('nasa');
  const r0 = requests(sandboxAdmin);
  await page.getByTestId('profile-lookup').click();
  await approveIfAsked(page, page.getByTestId('profile-card'));
  await expect(page.getByTestId('profile-card')).toBeVisible();
  expect(requests(sandboxAdmin) - r0, 'a lookup is one request').toBe(1);
  const a0 = await archiveCount(page);
  const w = await startWalk(page, () => page.getByTestId('profile-walk').click());
  expect(requests(sandboxAdmin) - r0).toBe(1 + w.pages);
  expect(await archiveCount(page)).toBe(a0 + w.newItems);
  await booksAgree(page, sandboxAdmin);

  // a not-found handle leaves no other profile on screen
  await page.getByTestId('profile-handle').fill('missing_account');
  await page.getByTestId('profile-lookup').click();
  const err = page.getByTestId('error');
  const dialog = page.getByTestId('confirm-dialog');
  await expect(err.or(dialog).first()).toBeVisible({ timeout: 30_000 });
  if (await dialog.isVisible()) await page.getByTestId('confirm-ok').click();
  await expect(err).toBeVisible();
  await expect(page.getByTestId('profile-card')).toHaveCount(0);
  await booksAgree(page, sandboxAdmin);

  // comments of a post: stored as comments
  await page.getByTestId('nav-search').click();
  await page.getByTestId('search-query').fill('running shoes');
  await startWalk(page, () => page.getByTestId('search-submit').click());
  await page.getByTestId('result-row').first().click();
  await page.getByRole('button', { name: 'Comments…' }).click();
  await expect(page.getByTestId('view-comments')).toBeVisible();
  const c0 = await archiveCount(page, { kinds: ['comment'] });
  const cw = await startWalk(page, () => page.getByTestId('comments-submit').click());
  const comments = await archiveCount(page, { kinds: ['comment'] });
  expect(comments - c0, 'new comments are kind comment in the archive').toBe(cw.newItems);
  await booksAgree(page, sandboxAdmin);

  // the library: Kind = comment lists them; its count is the archive's
  await page.getByTestId('nav-library').click();
  await page.getByTestId('library-kind').selectOption('comment');
  await expect(page.getByTestId('library-count')).toHaveText(`${comments.toLocaleString('en-US')} matching`);
  // save the result set and tag the matching rows through in-app dialogs (no window.prompt)
  await page.getByTestId('save-set').click();
  await expect(page.getByTestId('ask-dialog')).toBeVisible();
  await expect(page.getByTestId('ask-input')).toBeFocused();
  await page.keyboard.type('Shoe comments');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('ask-dialog')).toBeHidden();
  await expect(page.getByTestId('save-set')).toBeFocused(); // focus is back where it was
  expect((await api<Array<{ name: string }>>(page, 'library.resultSets', {})).map((s) => s.name)).toContain('Shoe comments');
  await page.getByTestId('tag-all').click();
  await page.keyboard.type('shoes');
  await page.keyboard.press('Enter');
  await expect.poll(() => archiveCount(page, { tags: ['shoes'] })).toBe(comments);
  // Esc cancels a dialog and changes nothing
  await page.getByTestId('tag-all').click();
  await page.keyboard.type('never');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('ask-dialog')).toBeHidden();
  expect(await archiveCount(page, { tags: ['never'] })).toBe(0);

  // export the view as CSV: one row per archived comment, kind = comment
  await page.getByTestId('export-open').click();
  await page.getByTestId('export-format').selectOption('csv');
  await page.getByTestId('export-start').click();
  await expect(page.getByTestId('export-status')).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-download').click()]);
  const text = readFileSync(await download.path(), 'utf8').replace(/^\uFEFF/, '');
  const rows = parse(text, { columns: true, skip_empty_lines: true }) as Array<Record<string, string>>;
  expect(rows.length).toBe(comments);
  expect(new Set(rows.map((r) => r.kind))).toEqual(new Set(['comment']));

  // usage: what the UI says was spent is what the sandbox charged
  const charged = await booksAgree(page, sandboxAdmin);
  await page.getByTestId('nav-usage').click();
  await expect(page.getByTestId('usage-spent')).toHaveText(charged.toLocaleString('en-US'));
  await shot(page, 'journey-usage');
});

test('a watchlist over time, driven from the Sandbox panel: new = listed, run cost = charges', async ({ page, sandboxAdmin }) => {
  await page.getByTestId('nav-profiles').click();
  await page.getByTestId('profile-handle').fill('watched_brand');
  await page.getByTestId('profile-lookup').click();
  await approveIfAsked(page, page.getByTestId('profile-card'));
  const r0 = requests(sandboxAdmin);
  await page.getByTestId('watch-this').click();
  await page.getByTestId('watch-new').click();
  await expect(page.getByTestId('watchlist-dialog')).toBeVisible();
  await page.getByTestId('wl-budget-run').fill('400');
  await expect(page.getByTestId('wl-estimate')).toContainText('credit');
  await page.getByTestId('wl-ok').click();
  expect(requests(sandboxAdmin), 'creating a watchlist sends nothing').toBe(r0);

  await page.getByTestId('nav-watchlists').click();
  await page.getByTestId('watchlist-item').first().click();
  await expect(page.getByTestId('watchlist-budget')).toContainText('400 credits a run');
  await expect(page.getByTestId('watchlist-forecast')).toContainText('No forecast yet');
  const history = page.getByTestId('watchlist-history');
  const lists = await api<Array<{ id: string }>>(page, 'watchlists.list', {});
  const listed = () => archiveCount(page, { source: { type: 'watchlist', id: lists[0].id } });

  let total = 0;
  for (let run = 1; run <= 3; run++) {
    if (run > 1) {
      // two sandbox days pass, from the app's own Sandbox panel
      await page.getByTestId('nav-settings').click();
      await expect(page.getByTestId('sandbox-panel')).toBeVisible();
      await page.getByTestId(`sandbox-advance-${86_400}`).click();
      await page.getByTestId(`sandbox-advance-${86_400}`).click();
      await page.getByTestId('nav-watchlists').click();
      await page.getByTestId('watchlist-item').first().click();
    }
    const before = requests(sandboxAdmin);
    await page.getByTestId('watchlist-run').click();
    await approveIfAsked(page, history.locator('tbody tr').nth(run - 1));
    await expect(history.locator('tbody tr')).toHaveCount(run, { timeout: 30_000 });
    await expect(history.locator('tbody tr').first().locator('td').nth(1)).toHaveText('done', { timeout: 30_000 });
    const row = await api<Array<{ newItems: number; creditsSpent: number; watches: Array<{ pages: number }> }>>(
      page,
      'watchlists.history',
      { id: lists[0].id },
    );
    const last = row[0];
    total += last.newItems;
    const pagesFetched = requests(sandboxAdmin) - before;
    expect(pagesFetched, 'requests = pages the run fetched (pages read from the archive are free)').toBeLessThanOrEqual(
      last.watches.reduce((n, x) => n + x.pages, 0),
    );
    expect(await listed(), `after run ${run}: items listed = items the runs called new`).toBe(total);
    await expect(history.locator('tbody tr').first().locator('td').nth(3)).toHaveText(String(last.newItems));
    await booksAgree(page, sandboxAdmin);
  }
  // the badge counts what is listed
  const info = await api<Array<{ newSinceSeen: number }>>(page, 'watchlists.list', {});
  expect(info[0].newSinceSeen).toBeLessThanOrEqual(total);
  // budgets can be edited
  await page.getByTestId('watchlist-edit').click();
  await page.getByTestId('wl-budget-month').fill('2000');
  await page.getByTestId('wl-ok').click();
  await expect(page.getByTestId('watchlist-budget')).toContainText('2,000 credits a month');
  await shot(page, 'journey-watchlist');
});

test('failures name the cause and the way out; nothing says "try broader words" after a give-up', async ({ page, sandboxAdmin }) => {
  // out of credits, set from the Sandbox panel
  await page.getByTestId('nav-settings').click();
  await page.getByTestId('sandbox-balance-input').fill('5');
  await page.getByTestId('sandbox-balance-set').click();
  await expect(page.getByTestId('sandbox-balance')).toContainText('5 credits');
  await expect(page.getByTestId('balance')).toHaveText('5');
  await page.getByTestId('nav-search').click();
  await page.getByTestId('search-query').fill('espresso machine');
  await page.getByTestId('search-submit').click();
  const dialog = page.getByTestId('confirm-dialog');
  const failure = page.getByTestId('walk-error').or(page.getByTestId('toast').filter({ hasText: /Out of credits/ }));
  await expect(dialog.or(failure).first()).toBeVisible({ timeout: 30_000 });
  if (await dialog.isVisible()) await page.getByTestId('confirm-ok').click();
  await expect(failure.first()).toContainText(/Out of credits/, { timeout: 30_000 });
  await expect(page.getByText('Try broader words')).toHaveCount(0);
  expect(sandboxAdmin.charges().reduce((n, c) => n + c.credits_used, 0)).toBe(0);
  await booksAgree(page, sandboxAdmin);

  // retries under faults: the walk bar never claims "~0 s left" while it waits
  await page.getByTestId('nav-settings').click();
  await page.getByTestId('sandbox-reset').click();
  await expect(page.getByTestId('sandbox-balance')).toContainText('10,000 credits');
  await page.getByTestId('nav-search').click();
  await page.getByTestId('search-query').fill('pour over kettle');
  await expect(page.getByTestId('search-submit-price')).toContainText('credit');
  // the next two page requests are refused as unavailable (retryable): Loupe waits and retries
  sandboxAdmin.queueFaults([{ kind: 'status', status: 503, type: 'SERVICE_UNAVAILABLE', retryAfter: 2, count: 2, match: '/search/' }]);
  const bar = page.getByTestId('walk-status');
  const failedWalk = await bar.getAttribute('data-walk-id');
  await page.getByTestId('search-submit').click();
  const confirm = page.getByTestId('confirm-dialog');
  await expect
    .poll(
      async () => {
        if (await confirm.isVisible()) await page.getByTestId('confirm-ok').click();
        return bar.getAttribute('data-walk-id');
      },
      { timeout: 30_000 },
    )
    .not.toBe(failedWalk);
  const eta = page.getByTestId('walk-eta');
  for (let i = 0; i < 10 && (await page.getByTestId('walk-status').getAttribute('data-status')) === 'running'; i++) {
    if (await eta.isVisible()) expect(await eta.innerText()).not.toMatch(/~0 s left/);
    await page.waitForTimeout(300);
  }
  await walkSettled(page);
  await booksAgree(page, sandboxAdmin);
});

test('settings, keyboard and accessibility on every view, light and dark', async ({ page }) => {
  // `?` lists the shortcuts; Esc closes
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('?');
  await expect(page.getByTestId('keys-help')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('keys-help')).toBeHidden();
  const views = ['search', 'profiles', 'comments', 'watchlists', 'library', 'analysis', 'usage', 'explorer', 'settings'];
  for (const theme of ['light', 'dark'] as const) {
    await api(page, 'settings.update', { theme });
    await page.reload();
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
    for (const v of views) {
      await page.getByTestId(`nav-${v}`).click();
      await expect(page.getByTestId(`view-${v}`)).toBeVisible();
      await expect(page.locator('h1')).toHaveCount(1);
      await axeClean(page, `${v} (${theme})`);
    }
  }
});
