/**
 * The desktop app itself, when Electron's binary is installed (it cannot be downloaded on the
 * machine Loupe is built on; `npm start` fetches it elsewhere).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron as electron, expect, test } from '@playwright/test';
import { installedElectron } from '../scripts/lib/electron.mjs';

/**
 * The installed binary, read the way `npm start` reads it (dist/ + path.txt). Not require('electron'):
 * since Electron 45 that starts a download when the binary is missing.
 */
function electronBinary(): string | null {
  return installedElectron(process.cwd());
}

/** The desktop app with a fresh data folder and the in-process sandbox. */
async function launch(dataDir: string) {
  return electron.launch({
    executablePath: binary!,
    args: ['out/main/index.js', '--no-sandbox'],
    env: { ...process.env, LOUPE_HOME: dataDir, LOUPE_API_KEY: '', LOUPE_BASE_URL: '' },
  });
}

async function confirmIfAsked(win: import('@playwright/test').Page, then: import('@playwright/test').Locator): Promise<void> {
  const dialog = win.getByTestId('confirm-dialog');
  await expect(dialog.or(then).first()).toBeVisible({ timeout: 30_000 });
  if (await dialog.isVisible()) await win.getByTestId('confirm-ok').click();
}
const binary = electronBinary();
const hasElectronBinary = binary !== null;

test.skip(
  !hasElectronBinary,
  'Electron binary not installed on this machine (downloads are blocked here); run npm start where they are not',
);

// better-sqlite3 for Electron's ABI (.electron-native/): what npm start prepares; built here when missing
test.beforeAll(() => {
  const r = spawnSync(process.execPath, ['scripts/electron-native.mjs'], { stdio: 'inherit' });
  expect(r.status, 'better-sqlite3 for Electron (scripts/electron-native.mjs)').toBe(0);
});

test('launches, shows the sandbox badge, exposes only window.loupe, and runs one search', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'loupe-electron-'));
  const app = await launch(dataDir);
  try {
    const win = await app.firstWindow();
    await win.waitForLoadState('domcontentloaded');
    // the contract and nothing else crossed the preload
    const surface = await win.evaluate(() => ({
      loupe: Object.keys((window as unknown as { loupe: object }).loupe).sort(),
      require: typeof (window as unknown as { require?: unknown }).require,
      process: typeof (window as unknown as { process?: unknown }).process,
    }));
    expect(surface).toEqual({ loupe: ['call', 'onEvent'], require: 'undefined', process: 'undefined' });
    // the preload answers a typed result (src/shared/errors.ts DoorAnswer), never throws
    const info = await win.evaluate(() =>
      (
        window as unknown as {
          loupe: { call(m: string, i?: unknown): Promise<{ ok: boolean; result?: { sandbox: boolean; door: string } }> };
        }
      ).loupe
        .call('app.info')
        .then((r) => r.result),
    );
    expect(info).toMatchObject({ sandbox: true, door: 'electron' });
    await expect(win.getByText(/SANDBOX/i).first()).toBeVisible();
    // one search through the UI
    const box = win
      .getByRole('searchbox')
      .or(win.getByPlaceholder(/search/i))
      .first();
    await box.fill('coffee');
    await box.press('Enter');
    await expect(win.getByRole('row').nth(1)).toBeVisible({ timeout: 20_000 });
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('exports the library through the native save dialog, and runs a watchlist', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'loupe-electron-'));
  const target = join(dataDir, 'chosen', 'library.csv');
  const app = await launch(dataDir);
  try {
    const win = await app.firstWindow();
    await win.waitForLoadState('domcontentloaded');
    // the OS save dialog cannot be driven by a test: answer it from the main process
    await app.evaluate(({ dialog }, filePath) => {
      dialog.showSaveDialog = (async () => ({ canceled: false, filePath })) as typeof dialog.showSaveDialog;
    }, target);
    const box = win
      .getByRole('searchbox')
      .or(win.getByPlaceholder(/search/i))
      .first();
    await box.fill('running shoes');
    await box.press('Enter');
    await expect(win.getByTestId('result-row').first()).toBeVisible({ timeout: 30_000 });
    await win.getByTestId('nav-library').click();
    await expect(win.getByTestId('result-row').first()).toBeVisible();
    await win.getByTestId('export-open').click();
    await win.getByTestId('export-format').selectOption('csv');
    await win.getByTestId('export-start').click();
    await expect(win.getByTestId('export-status')).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
    await expect(win.getByTestId('export-path')).toContainText(target);
    expect(readFileSync(target, 'utf8').split('\n').length).toBeGreaterThan(2);

    // a watchlist from a profile, run once
    await win.getByTestId('nav-profiles').click();
    await win.getByTestId('profile-handle').fill('watched_brand');
    await win.getByTestId('profile-lookup').click();
    await confirmIfAsked(win, win.getByTestId('profile-card'));
    await win.getByTestId('watch-this').click();
    await win.getByTestId('watch-new').click();
    // the new watchlist's budget, schedule and first-run depth are asked first (free: nothing runs)
    await expect(win.getByTestId('watchlist-dialog')).toBeVisible();
    await expect(win.getByTestId('wl-estimate')).toContainText('credit');
    await win.getByTestId('wl-ok').click();
    await expect(win.getByTestId('watchlist-dialog')).toBeHidden();
    await win.getByTestId('wl-ok').click();
    await win.getByTestId('nav-watchlists').click();
    await win.getByTestId('watchlist-item').first().click();
    await win.getByTestId('watchlist-run').click();
    const history = win.getByTestId('watchlist-history');
    await confirmIfAsked(win, history.locator('tbody tr'));
    await expect(history.locator('tbody tr').first().locator('td').nth(1)).toHaveText('done', { timeout: 30_000 });
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
