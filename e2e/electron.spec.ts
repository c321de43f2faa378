/**
 * The desktop app itself, when Electron's binary is installed (it cannot be downloaded on the
 * machine Loupe is built on; `node node_modules/electron/install.js` installs it elsewhere).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron as electron, expect, test } from '@playwright/test';

function electronBinary(): string | null {
  try {
    const p = createRequire(join(process.cwd(), 'package.json'))('electron') as unknown;
    return typeof p === 'string' && existsSync(p) ? p : null;
  } catch {
    return null;
  }
}
const binary = electronBinary();
const hasElectronBinary = binary !== null;

test.skip(!hasElectronBinary, 'Electron binary not installed on this machine (downloads are blocked here); run node node_modules/electron/install.js where they are not');

test('launches, shows the sandbox badge, exposes only window.loupe, and runs one search', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'loupe-electron-'));
  const app = await electron.launch({
    executablePath: binary!,
    args: ['out/main/index.js', '--no-sandbox'],
    env: { ...process.env, LOUPE_HOME: dataDir, LOUPE_API_KEY: '', LOUPE_BASE_URL: '' },
  });
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
    const info = await win.evaluate(() => (window as unknown as { loupe: { call(m: string, i?: unknown): Promise<{ sandbox: boolean; door: string }> } }).loupe.call('app.info'));
    expect(info).toMatchObject({ sandbox: true, door: 'electron' });
    await expect(win.getByText(/SANDBOX/i).first()).toBeVisible();
    // one search through the UI
    const box = win.getByRole('searchbox').or(win.getByPlaceholder(/search/i)).first();
    await box.fill('coffee');
    await box.press('Enter');
    await expect(win.getByRole('row').nth(1)).toBeVisible({ timeout: 20_000 });
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
