/** A second launch on the same data folder does not start: it quits and the first one is focused. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it, vi } from 'vitest';
import { emitReady, fake, FakeBrowserWindow, FakeMenu } from './testing/fake-electron';

vi.mock('electron', async () => (await import('./testing/fake-electron')).fakeElectron());

it('quits at once when another instance holds the lock: no window, no core, no menu', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'loupe-second-'));
  process.env.LOUPE_HOME = dataDir;
  fake.app.lockAvailable = false;
  const main = await import('./index');
  expect(fake.app.quitCalls).toBe(1);
  expect(fake.app.listenerCount('second-instance')).toBe(0);
  emitReady();
  await main.started;
  await new Promise((r) => setTimeout(r, 50));
  expect(FakeBrowserWindow.all).toHaveLength(0);
  expect(FakeMenu.application).toBeNull();
  expect(fake.ipcMain.handlers.size).toBe(0);
  rmSync(dataDir, { recursive: true, force: true });
});
