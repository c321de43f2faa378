/** The desktop app on an archive it cannot open (written by a newer Loupe): the archive's own message in an error box, then exit 1 — no window, no core. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it, vi } from 'vitest';
import { latestVersion, openDb } from '../core/archive/db';
import { emitReady, fake, FakeBrowserWindow } from './testing/fake-electron';

vi.mock('electron', async () => (await import('./testing/fake-electron')).fakeElectron());

it('a newer schema: an error box saying so, exit 1', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'loupe-main-newer-'));
  try {
    const db = openDb(join(dataDir, 'loupe.db'));
    db.pragma(`user_version = ${latestVersion() + 1}`);
    db.close();
    process.env.LOUPE_HOME = dataDir;
    process.env.LOUPE_API_KEY = '';
    process.env.LOUPE_BASE_URL = '';
    const main = await import('./index');
    emitReady();
    await main.started;
    expect(fake.dialog.errors).toHaveLength(1);
    expect(fake.dialog.errors[0].title).toBe('Loupe cannot open its archive');
    expect(fake.dialog.errors[0].content).toMatch(/written by a newer Loupe \(schema \d+\)/);
    expect(fake.app.exitCode).toBe(1);
    expect(FakeBrowserWindow.all).toHaveLength(0);
    expect(fake.ipcMain.handlers.size).toBe(0);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
