/**
 * The desktop app on an archive written by an older Loupe (schema 9): the migrations run in a
 * worker thread while a small window says how far they are ("Updating your archive — 5,000 of
 * 20,000 items"); then the core is composed and the main window opens, and the small window
 * closes once the main one is shown. A failure shows the archive's error and stops.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { openDb } from '../core/archive/db';
import { MIGRATIONS } from '../core/archive/migrations/index';
import { emitReady, fake, FakeBrowserWindow } from './testing/fake-electron';

vi.mock('electron', async () => (await import('./testing/fake-electron')).fakeElectron());

const dataDir = mkdtempSync(join(tmpdir(), 'loupe-main-update-'));
afterAll(async () => {
  fake.app.quit();
  for (let i = 0; i < 400 && fake.app.quitCalls < 2; i++) await new Promise((r) => setTimeout(r, 25));
  rmSync(dataDir, { recursive: true, force: true });
});

/** Schema 9 with `n` posts whose text 0010 fills from ext.post_title. */
function buildOld(file: string, n: number): void {
  const db = openDb(file, MIGRATIONS.slice(0, 9));
  const ins = db.prepare(
    `INSERT INTO items (platform, kind, id, raw, first_seen_at, last_seen_at) VALUES ('forum_net', 'post', ?, ?, 1, 1)`,
  );
  db.transaction(() => {
    for (let i = 0; i < n; i++) ins.run(String(i), JSON.stringify({ id: String(i), ext: { post_title: `guide ${i}` } }));
  })();
  db.close();
}

it('shows the update window with the progress, then the main window; the archive is current', async () => {
  buildOld(join(dataDir, 'loupe.db'), 20_000);
  process.env.LOUPE_HOME = dataDir;
  process.env.LOUPE_API_KEY = '';
  process.env.LOUPE_BASE_URL = '';
  const main = await import('./index');
  emitReady();
  // the update window opens at the first report, before the core exists
  for (let i = 0; i < 400 && FakeBrowserWindow.all.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  const upd = FakeBrowserWindow.all[0];
  expect(upd.options).toMatchObject({
    title: 'Loupe — updating the archive',
    resizable: false,
    show: false,
    webPreferences: { contextIsolation: true, sandbox: true, nodeIntegration: false },
  });
  expect(upd.options.webPreferences?.preload).toBeUndefined();
  expect(decodeURIComponent(upd.url ?? '')).toMatch(/^data:text\/html;charset=utf-8,<!doctype html>.*Updating your archive/);
  expect(decodeURIComponent(upd.url ?? '')).toContain("default-src 'none'");
  expect(fake.ipcMain.handlers.size).toBe(0); // no core yet
  upd.emit('ready-to-show');
  expect(upd.visible).toBe(true);
  upd.contents.emit('did-finish-load');
  await main.started;
  // the batches of 0010 reached the page (the page's text is set as JSON strings, never markup)
  expect(upd.contents.scripts.some((s) => s.includes('"Updating your archive — ') && s.includes(' of 20,000 items"'))).toBe(true);
  // then the main window, and the core answers
  expect(FakeBrowserWindow.all).toHaveLength(2);
  const win = FakeBrowserWindow.all[1];
  expect(win.options.title).toBe('Loupe');
  expect(upd.destroyed).toBe(false); // until the main window is on screen
  win.emit('ready-to-show');
  expect(win.visible).toBe(true);
  expect(upd.destroyed).toBe(true);
  const r = (await fake.ipcMain.invoke('loupe:call', 'loupe://app/index.html', 'library.query', { text: 'guide', limit: 1 })) as {
    ok: boolean;
    result: { total: number };
  };
  expect(r.ok).toBe(true);
  expect(r.result.total).toBe(20_000);
  expect(fake.dialog.errors).toEqual([]);
}, 60_000);
