/**
 * Words read as sentences (issue 27 #13): empty states keep inline chips inside their sentence;
 * a first run on the sandbox without an OS keychain shows no error (it needs no key).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHost } from '../src/host/index';
import { UnavailableSecretStore } from '../src/core/secrets/memory';
import { test, expect } from './fixtures';

test('empty states: an inline key chip stays on the line of its sentence', async ({ page }) => {
  await page.getByTestId('nav-search').click();
  const body = page.getByTestId('empty-state').locator('.empty-body');
  await expect(body.locator('kbd')).toHaveText('Enter');
  // the word before the chip, the chip and the full stop after it share one line
  const tops = await body.evaluate((el) => {
    const kbd = el.querySelector('kbd')!;
    const range = (node: Node, from: number, to: number) => {
      const r = document.createRange();
      r.setStart(node, from);
      r.setEnd(node, to);
      return r.getBoundingClientRect();
    };
    const before = kbd.previousSibling!;
    const after = kbd.nextSibling!;
    const b = before.textContent!;
    return {
      before: range(before, b.length - 6, b.length - 1).top,
      kbd: kbd.getBoundingClientRect().top,
      after: range(after, 0, 1).top,
      kbdH: kbd.getBoundingClientRect().height,
    };
  });
  expect(Math.abs(tops.before - tops.kbd)).toBeLessThan(tops.kbdH);
  expect(Math.abs(tops.after - tops.kbd)).toBeLessThan(tops.kbdH);
});

test('a first run on the sandbox without an OS keychain shows a note, not an error', async ({ browser }) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'loupe-e2e-'));
  const host = await startHost({
    port: 0,
    dataDir,
    secrets: new UnavailableSecretStore('Keys cannot be stored: no OS keychain answered here.'),
    envKey: null,
    baseUrl: null,
    sandbox: { seed: 1, timeScale: 60 },
  });
  const page = await browser.newPage();
  try {
    await page.goto(host.url);
    await page.getByTestId('nav-settings').click();
    const notice = page.getByTestId('keychain-notice');
    await expect(notice).toContainText('no OS keychain');
    await expect(notice).toHaveAttribute('data-error', 'false');
    await expect(notice).not.toHaveClass(/errtext/);
    await expect(page.locator('.errtext')).toHaveCount(0);
  } finally {
    await page.close();
    await host.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
