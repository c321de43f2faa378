/**
 * Issue 14 regressions, one test per item, each failing without its fix: driven in Chromium through
 * the web host and the in-process sandbox; requests and charges counted on the sandbox.
 */
import type { Page } from '@playwright/test';
import type { SandboxAdmin } from '../src/sandbox/index';
import { test, expect } from './fixtures';

/** requests that can cost (free price quotes, dry_run=1, left out) */
const paid = (sb: SandboxAdmin) => sb.charges().filter((c) => c.charge_reason !== 'dry_run').length;

async function approveIfAsked(page: Page, then = page.getByTestId('walk-status')): Promise<void> {
  const dialog = page.getByTestId('confirm-dialog');
  await expect(dialog.or(then).first()).toBeVisible({ timeout: 30_000 });
  if (await dialog.isVisible()) await page.getByTestId('confirm-ok').click();
  await expect(dialog).toBeHidden();
}

test('item 1: one click on Search starts one walk (one request on the sandbox)', async ({ page, sandboxAdmin }) => {
  await page.getByTestId('nav-search').click();
  await page.getByTestId('search-platform').selectOption('forum_net');
  await page.getByTestId('search-endpoint').selectOption('search/comments');
  await page.getByTestId('search-query').fill('kettle');
  await expect(page.getByTestId('search-submit-price')).toContainText('credit');
  const before = paid(sandboxAdmin);
  await page.getByTestId('search-submit').click();
  await approveIfAsked(page);
  await expect(page.getByTestId('walk-status')).not.toHaveAttribute('data-status', 'running', { timeout: 30_000 });
  await page.waitForTimeout(500);
  expect(paid(sandboxAdmin) - before).toBe(1);
  // Enter in the query field is the same single action
  await page.getByTestId('search-query').fill('kettle descaler');
  await expect(page.getByTestId('search-submit-price')).toContainText('credit');
  const before2 = paid(sandboxAdmin);
  const first = await page.getByTestId('walk-status').getAttribute('data-walk-id');
  await page.getByTestId('search-query').press('Enter');
  await expect
    .poll(
      async () => {
        if (await page.getByTestId('confirm-dialog').isVisible()) await page.getByTestId('confirm-ok').click();
        return page.getByTestId('walk-status').getAttribute('data-walk-id');
      },
      { timeout: 30_000 },
    )
    .not.toBe(first);
  await expect(page.getByTestId('walk-status')).not.toHaveAttribute('data-status', 'running', { timeout: 30_000 });
  await page.waitForTimeout(500);
  expect(paid(sandboxAdmin) - before2).toBe(1);
});
