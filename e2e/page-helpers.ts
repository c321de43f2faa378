/**
 * Helpers the browser specs share: the contract over the web host from inside the page (with the
 * session token the app got), and axe-core injected and run on the current view.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { openArchive } from '../src/core/archive';
import { archivePath } from '../src/core/paths';
import { expect } from './fixtures';

const require_ = createRequire(join(process.cwd(), 'package.json'));
const AXE = readFileSync(require_.resolve('axe-core/axe.min.js'), 'utf8');

/** One contract method through the web host, as the page itself would call it. */
export async function api<T = unknown>(page: Page, method: string, body: unknown = {}): Promise<T> {
  return page.evaluate(
    async ({ method, body }) => {
      const token = sessionStorage.getItem('loupe-token') ?? '';
      const r = await fetch(`/api/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-loupe-token': token },
        body: JSON.stringify(body),
      });
      const j = (await r.json()) as { ok: boolean; result?: unknown; error?: { message: string } };
      if (!j.ok) throw new Error(j.error?.message ?? 'failed');
      return j.result;
    },
    { method, body },
  ) as Promise<T>;
}

/** axe-core on the page as it is: no critical or serious violation (injected as a script the page evaluates; the CSP is not weakened). */
export async function axeClean(page: Page, where: string): Promise<void> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  const bad = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            ctx: Document,
            o: unknown,
          ) => Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown }> }> }>;
        };
      }
    ).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations
      .filter((v) => v.impact === 'critical' || v.impact === 'serious')
      .map((v) => `${v.impact} ${v.id}: ${v.help} (${JSON.stringify(v.nodes[0]?.target)})`);
  });
  expect(bad, `axe-core on ${where}`).toEqual([]);
}

/** A Search walk of one page from the Search view: priced, approved when asked, waited for until it stops running. */
export async function searchWalk(page: Page, query: string): Promise<void> {
  await page.getByTestId('nav-search').click();
  await page.getByTestId('search-query').fill(query);
  await expect(page.getByTestId('search-submit-price')).toContainText('credit');
  await page.getByTestId('search-submit').click();
  const dialog = page.getByTestId('confirm-dialog');
  await expect(dialog.or(page.getByTestId('walk-status')).first()).toBeVisible({ timeout: 30_000 });
  if (await dialog.isVisible()) await page.getByTestId('confirm-ok').click();
  await expect(page.getByTestId('walk-status')).not.toHaveAttribute('data-status', 'running', { timeout: 30_000 });
}

/** Puts records into the archive the host serves (another connection, as the CLI would; the archive's own ingest). */
export async function seedItems(
  page: Page,
  dataDir: string,
  records: Array<Record<string, unknown>>,
  platform = 'micro_net',
  kind = 'post',
): Promise<void> {
  await api(page, 'library.count', {}); // the archive exists
  const a = openArchive(archivePath(dataDir));
  try {
    a.ingestItems(
      records.map((record) => ({ platform, kind, record })),
      { callId: `seed-${Date.now()}`, source: 'seed' },
    );
  } finally {
    a.close();
  }
}
