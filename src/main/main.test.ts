/**
 * The Electron main process (src/main/index.ts) run under plain Node with a fake of the Electron
 * APIs it uses (./testing/fake-electron.ts, typed against electron.d.ts). The real core, archive
 * and in-process sandbox run behind it; only Electron is faked.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { KeyboardInputEvent, MenuItemConstructorOptions } from 'electron';
import { emitReady, fake, fakeEvent, FakeBrowserWindow, FakeMenu, FakeNotification } from './testing/fake-electron';

vi.mock('electron', async () => (await import('./testing/fake-electron')).fakeElectron());

const dataDir = mkdtempSync(join(tmpdir(), 'loupe-main-'));
const APP = 'loupe://app/index.html';
type Main = typeof import('./index');
let main: Main;

async function call(
  method: string,
  input: unknown = {},
  frame = APP,
): Promise<{ ok: boolean; result?: unknown; error?: { kind: string; message: string } }> {
  return (await fake.ipcMain.invoke('loupe:call', frame, method, input)) as {
    ok: boolean;
    result?: unknown;
    error?: { kind: string; message: string };
  };
}
const win = () => FakeBrowserWindow.all[FakeBrowserWindow.all.length - 1];
async function until<T>(f: () => Promise<T | null | undefined | false> | T | null | undefined | false, ms = 15_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() - t0 > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  process.env.LOUPE_HOME = dataDir;
  process.env.LOUPE_API_KEY = '';
  process.env.LOUPE_BASE_URL = '';
  delete process.env.ELECTRON_RENDERER_URL;
  main = await import('./index');
  // before ready: the scheme is privileged, the profile (and so the single-instance lock) is per data folder
  expect(fake.protocol.privileged).toEqual([{ scheme: 'loupe', privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
  expect(fake.app.paths.userData).toBe(join(dataDir, 'electron'));
  expect(fake.app.name).toBe('Loupe');
  expect(FakeBrowserWindow.all).toHaveLength(0);
  emitReady();
  await main.started;
});

afterAll(async () => {
  fake.app.quit();
  await until(() => fake.app.quitCalls >= 2); // before-quit closed the core and the sandbox, then quit again
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the window', () => {
  it('is hardened: context isolation, sandbox, no node integration, web security, the preload only', () => {
    expect(FakeBrowserWindow.all).toHaveLength(1);
    const o = win().options;
    expect(o.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });
    expect(o.webPreferences?.preload).toMatch(/preload[\\/]index\.cjs$/);
    expect(o.webPreferences).not.toHaveProperty('nodeIntegrationInWorker', true);
    expect(o.show).toBe(false);
    expect(win().url).toBe(APP);
    win().emit('ready-to-show');
    expect(win().visible).toBe(true);
  });

  it('the native module check passes (better-sqlite3 loads)', () => {
    expect(main.nativeModuleProblem()).toBeNull();
    expect(fake.dialog.errors).toEqual([]);
  });
});

describe('IPC', () => {
  it('answers the app window, refuses any other frame, and only knows contract methods', async () => {
    const info = await call('app.info');
    expect(info.ok).toBe(true);
    expect(info.result).toMatchObject({ door: 'electron', sandbox: true });
    for (const frame of ['https://evil.example/', 'file:///tmp/x.html', 'loupe://other/index.html', '']) {
      const r = await call('app.info', {}, frame);
      expect(r).toEqual({ ok: false, error: { kind: 'forbidden', message: 'This window may not call Loupe.' } });
    }
    expect((await call('no.such.method')).error?.kind).toBe('not_found');
    expect((await call('watchlists.create', { name: '' })).error?.kind).toBe('validation');
  });

  it('forwards core events to the window', async () => {
    await call('credits.refresh');
    await until(() => win().contents.sent.some((s) => s.channel === 'loupe:event'));
  });
});

describe('the loupe:// protocol', () => {
  it('serves the renderer with the CSP header and the MIME type; nothing outside it', async () => {
    const r = await fake.protocol.fetch('loupe://app/index.html');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(r.headers.get('content-security-policy')).toContain("object-src 'none'");
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await fake.protocol.fetch('loupe://app/library/view')).headers.get('content-type')).toMatch(/text\/html/); // client route
    expect((await fake.protocol.fetch('loupe://app/%2e%2e/%2e%2e/package.json')).status).toBe(404);
    expect((await fake.protocol.fetch('loupe://app/missing.js')).status).toBe(404);
    expect((await fake.protocol.fetch('loupe://evil/index.html')).status).toBe(404);
  });
});

describe('navigation and new windows', () => {
  it('blocks navigation away, opens http(s) links in the system browser, denies windows and webviews', () => {
    const c = win().contents;
    expect(c.navigate('loupe://app/index.html#/library')).toBe(false);
    expect(c.navigate('https://example.com/post/1')).toBe(true);
    expect(fake.shell.opened).toContain('https://example.com/post/1');
    expect(c.navigate('file:///etc/passwd')).toBe(true);
    expect(c.navigate('https://example.com/r', 'will-redirect')).toBe(true);
    expect(fake.shell.opened).not.toContain('file:///etc/passwd');
    const opened = fake.shell.opened.length;
    expect(
      c.windowOpenHandler?.({
        url: 'https://example.org/',
        frameName: '',
        features: '',
        disposition: 'new-window',
        referrer: { url: '', policy: 'default' },
        postBody: undefined,
      } as never),
    ).toEqual({ action: 'deny' });
    expect(fake.shell.opened.length).toBe(opened + 1);
    expect(c.windowOpenHandler?.({ url: 'javascript:alert(1)' } as never)).toEqual({ action: 'deny' });
    expect(fake.shell.opened.length).toBe(opened + 1);
    const ev = fakeEvent();
    c.emit('will-attach-webview', ev, {}, {});
    expect(ev.defaultPrevented).toBe(true);
  });

  it('denies every permission request and check', () => {
    const s = fake.session.defaultSession;
    const cb = vi.fn();
    s.permissionRequest?.(win().webContents, 'notifications', cb, {} as never);
    expect(cb).toHaveBeenCalledWith(false);
    expect(s.permissionCheck?.(win().webContents, 'media', 'loupe://app', {} as never)).toBe(false);
    expect(s.headersReceived).toBeNull(); // no dev server: no header rewriting
  });
});

describe('desktop habits', () => {
  it('a second launch focuses the first window', () => {
    const w = win();
    w.minimized = true;
    const before = w.focused;
    fake.app.emit('second-instance', fakeEvent(), ['loupe'], '/');
    expect(w.minimized).toBe(false);
    expect(w.focused).toBe(before + 1);
  });

  it('the application menu: File, Edit, View, Window, Help with the palette shortcuts, sent to the page', () => {
    const menu = FakeMenu.application!;
    const top = menu.template as MenuItemConstructorOptions[];
    expect(top.map((m) => m.label ?? m.role)).toEqual(['&File', '&Edit', '&View', 'windowMenu', 'help']);
    const items = top.flatMap((m) => (Array.isArray(m.submenu) ? (m.submenu as MenuItemConstructorOptions[]) : []));
    const byId = (id: string) => items.find((i) => i.id === id)!;
    expect(byId('palette')).toMatchObject({ accelerator: 'CmdOrCtrl+K', registerAccelerator: false });
    expect(
      ['search', 'profiles', 'comments', 'watchlists', 'collect', 'library', 'analysis', 'usage', 'explorer', 'settings'].map(
        (v) => byId(`go-${v}`).accelerator,
      ),
    ).toEqual(['Alt+1', 'Alt+2', 'Alt+3', 'Alt+4', 'Alt+5', 'Alt+6', 'Alt+7', 'Alt+8', 'Alt+9', 'Alt+0']);
    expect(items.some((i) => i.role === 'copy')).toBe(true);
    expect(items.some((i) => i.role === 'toggleDevTools')).toBe(true); // not packaged
    const c = win().contents;
    c.inputs.length = 0;
    (byId('palette').click as () => void)();
    (byId('go-library').click as () => void)();
    expect(c.inputs as KeyboardInputEvent[]).toEqual([
      { type: 'keyDown', keyCode: 'K', modifiers: ['control'] },
      { type: 'keyUp', keyCode: 'K', modifiers: ['control'] },
      { type: 'keyDown', keyCode: '6', modifiers: ['alt'] },
      { type: 'keyUp', keyCode: '6', modifiers: ['alt'] },
    ]);
    (byId('open-data').click as () => void)();
    expect(fake.shell.paths).toContain(dataDir);
  });

  it('watchlist alerts become OS notifications; a click opens the Watchlists view', () => {
    expect(main.notifyAlert('Loupe · Brands: 2 new item(s) match the alert', '@nasa: launch')).toBe(true);
    const n = FakeNotification.shown.at(-1)!;
    expect(n.options).toMatchObject({ title: 'Loupe · Brands: 2 new item(s) match the alert', body: '@nasa: launch' });
    const c = win().contents;
    c.inputs.length = 0;
    n.emit('click');
    expect(c.inputs[0]).toEqual({ type: 'keyDown', keyCode: '4', modifiers: ['alt'] });
    FakeNotification.supported = false;
    expect(main.notifyAlert('x', 'y')).toBe(false);
    FakeNotification.supported = true;
  });

  it('the badge shows new-item counts (dock / launcher here; Windows: taskbar overlay)', async () => {
    main.badge.set(3);
    expect(fake.app.badgeCount).toBe(3);
    main.badge.set(0);
    expect(fake.app.badgeCount).toBe(0);
    // a watchlist change re-reads the counts through the contract (none new yet)
    expect((await call('watchlists.create', { name: 'Brands' })).ok).toBe(true);
    await new Promise((r) => setTimeout(r, 400));
    expect(main.badge.count).toBe(0);
  });

  it('exports through the native save dialog: cancel starts nothing; a chosen path receives the finished file', async () => {
    fake.dialog.nextSave = { canceled: true, filePath: '' };
    const cancelled = await call('export.start', { query: {}, format: 'csv' });
    expect(cancelled).toEqual({ ok: false, error: { kind: 'cancelled', message: 'Export cancelled: no file was chosen.' } });
    expect(fake.dialog.saves.at(-1)).toMatchObject({
      filters: [{ name: 'CSV (spreadsheets)', extensions: ['csv'] }],
      properties: ['createDirectory', 'showOverwriteConfirmation'],
    });
    expect(fake.dialog.saves.at(-1)?.defaultPath).toMatch(/^\/home\/user\/Documents\/loupe-export-.*\.csv$/);

    const chosen = join(dataDir, 'chosen', 'my export.csv');
    fake.dialog.nextSave = { canceled: false, filePath: chosen };
    const r = await call('export.start', { query: {}, format: 'csv' });
    expect(r.ok).toBe(true);
    const { exportId } = r.result as { exportId: string };
    const done = await until(async () => {
      const g = await call('export.get', { exportId });
      const job = g.result as { status: string; path: string | null };
      return job.status !== 'running' && job;
    });
    expect(done).toMatchObject({ status: 'done', path: chosen });
    expect(readFileSync(chosen, 'utf8').charCodeAt(0)).toBe(0xfeff);
    expect(existsSync(join(dataDir, 'exports', 'my export.csv'))).toBe(false); // moved, not copied
    const ev = await until(() =>
      win().contents.sent.find(
        (s) =>
          s.channel === 'loupe:event' &&
          (s.args[0] as { type: string; job?: { exportId: string; status: string } }).job?.exportId === exportId &&
          (s.args[0] as { job: { status: string } }).job.status === 'done',
      ),
    );
    expect((ev.args[0] as { job: { path: string } }).job.path).toBe(chosen);
    // the next dialog opens where the last export went
    fake.dialog.nextSave = { canceled: true, filePath: '' };
    await call('export.start', { query: {}, format: 'jsonl' });
    expect(fake.dialog.saves.at(-1)?.defaultPath).toMatch(
      new RegExp(`^${join(dataDir, 'chosen').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/loupe-export-.*\\.jsonl$`),
    );
  });

  it('a copy of the archive through the save dialog: cancel makes nothing; a chosen path receives the finished copy, replacing a file with its -wal', async () => {
    fake.dialog.nextSave = { canceled: true, filePath: '' };
    expect(await call('archive.snapshot', {})).toEqual({
      ok: false,
      error: { kind: 'cancelled', message: 'No copy was made: no file was chosen.' },
    });
    expect(fake.dialog.saves.at(-1)).toMatchObject({
      filters: [{ name: 'Loupe archive (SQLite)', extensions: ['db'] }],
      properties: ['createDirectory', 'showOverwriteConfirmation'],
    });
    expect(fake.dialog.saves.at(-1)?.defaultPath).toMatch(/loupe-archive-.*\.db$/);

    const chosen = join(dataDir, 'backups', 'archive copy.db');
    mkdirSync(join(dataDir, 'backups'), { recursive: true });
    writeFileSync(chosen, 'an older copy the user chose to replace');
    writeFileSync(`${chosen}-wal`, 'its stale log');
    fake.dialog.nextSave = { canceled: false, filePath: chosen };
    const r = await call('archive.snapshot', {});
    expect(r.ok).toBe(true);
    const { snapshotId } = r.result as { snapshotId: string };
    const done = await until(async () => {
      const job = (await call('archive.snapshotGet', { snapshotId })).result as { status: string; path: string | null };
      return job.status !== 'running' && job;
    });
    expect(done).toMatchObject({ status: 'done', path: chosen });
    expect(readFileSync(chosen).subarray(0, 15).toString()).toBe('SQLite format 3');
    expect(existsSync(`${chosen}-wal`)).toBe(false);
    expect(existsSync(join(dataDir, 'exports', 'archive copy.db'))).toBe(false); // moved, not copied
    const ev = await until(() =>
      win().contents.sent.find(
        (x) =>
          x.channel === 'loupe:event' &&
          (x.args[0] as { type: string; job?: { snapshotId?: string; status: string } }).job?.snapshotId === snapshotId &&
          (x.args[0] as { job: { status: string } }).job.status === 'done',
      ),
    );
    expect((ev.args[0] as { job: { path: string } }).job.path).toBe(chosen);
  });

  it('the window remembers its size and position', () => {
    const w = win();
    w.bounds = { x: 40, y: 30, width: 1111, height: 777 };
    w.maximized = true;
    w.close();
    expect(JSON.parse(readFileSync(join(dataDir, 'window-state.json'), 'utf8'))).toEqual({
      x: 40,
      y: 30,
      width: 1111,
      height: 777,
      maximized: true,
    });
    fake.app.emit('activate', fakeEvent(), false); // macOS: the dock icon brings a new window
    expect(FakeBrowserWindow.all).toHaveLength(2);
    expect(win().options).toMatchObject({ x: 40, y: 30, width: 1111, height: 777 });
    expect(win().maximized).toBe(true);
  });
});
