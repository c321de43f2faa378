/** The main process's parts one by one (the whole process runs in main.test.ts). */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BrowserWindow, MenuItemConstructorOptions } from 'electron';
import { fake, FakeBrowserWindow, resetFake } from './testing/fake-electron';
import { rendererResponse } from './protocol';
import { DEFAULT_STATE, loadWindowState } from './window-state';
import { createBadge, newItemCount } from './badge';
import { SafeStorageSecretStore } from './safe-storage-secrets';
import { packagedResources, sqliteBinding, sqliteBindingName } from './native';
import { withNativeBinding } from './better-sqlite3';
import { acceleratorsOf, menuTemplate, viewShortcut } from './menu';
import { viewIndexOfNumberKey } from '../shared/view-keys';
import { COMMANDS, VIEWS, type CommandDef } from '../shared/commands';
import { MIME_TYPES } from '../core/renderer-assets';

vi.mock('electron', async () => (await import('./testing/fake-electron')).fakeElectron());

const tmp = mkdtempSync(join(tmpdir(), 'loupe-units-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
beforeEach(() => void resetFake());

describe('protocol', () => {
  it('answers every file type with its MIME type; CSP on HTML only; nothing outside the folder', async () => {
    const dir = join(tmp, 'renderer');
    mkdirSync(join(dir, 'assets'), { recursive: true });
    writeFileSync(join(dir, 'index.html'), '<!doctype html>');
    for (const ext of Object.keys(MIME_TYPES)) writeFileSync(join(dir, 'assets', `f${ext}`), 'x');
    writeFileSync(join(tmp, 'secret.txt'), 'no');
    for (const [ext, type] of Object.entries(MIME_TYPES)) {
      const r = rendererResponse(dir, `loupe://app/assets/f${ext}`);
      expect(r.status, ext).toBe(200);
      expect(r.headers.get('content-type'), ext).toBe(type);
      expect(r.headers.get('content-security-policy') !== null, ext).toBe(ext === '.html');
    }
    writeFileSync(join(dir, 'assets', 'f.unknown'), 'x');
    expect(rendererResponse(dir, 'loupe://app/assets/f.unknown').headers.get('content-type')).toBe('application/octet-stream');
    expect(rendererResponse(dir, 'loupe://app/..%2fsecret.txt').status).toBe(404);
    expect(rendererResponse(dir, 'loupe://app/%E0%A4%A').status).toBe(404);
    expect(rendererResponse(join(tmp, 'none'), 'loupe://app/').status).toBe(503);
  });
});

describe('window state', () => {
  const file = join(tmp, 'ws.json');
  const screen = [{ x: 0, y: 0, width: 1920, height: 1080 }];
  it('defaults without a file, clamps to the minimum size, drops a position on a display that is gone', () => {
    expect(loadWindowState(join(tmp, 'none.json'), screen)).toEqual(DEFAULT_STATE);
    writeFileSync(file, JSON.stringify({ x: 10, y: 20, width: 300, height: 200, maximized: false }));
    expect(loadWindowState(file, screen)).toEqual({ x: 10, y: 20, width: 900, height: 600, maximized: false });
    writeFileSync(file, JSON.stringify({ x: 4000, y: 20, width: 1000, height: 700, maximized: true }));
    expect(loadWindowState(file, screen)).toEqual({ width: 1000, height: 700, maximized: true });
    writeFileSync(file, 'not json');
    expect(loadWindowState(file, screen)).toEqual(DEFAULT_STATE);
  });
});

describe('badge', () => {
  it('counts new items; Windows gets a taskbar overlay instead of a count', () => {
    expect(newItemCount([{ newSinceSeen: 2 }, { newSinceSeen: 5 }, { newSinceSeen: Number.NaN }])).toBe(7);
    const w = new FakeBrowserWindow({});
    const b = createBadge({ platform: 'win32', window: () => w as unknown as BrowserWindow, overlayIcon: '/r/badge.png' });
    b.set(4);
    expect(w.overlay).toEqual({ icon: { path: '/r/badge.png' }, description: '4 new items' });
    b.set(0);
    expect(w.overlay).toEqual({ icon: null, description: '' });
    expect(fake.app.badgeCount).toBe(0);
    const mac = createBadge({ platform: 'darwin', window: () => null, overlayIcon: '' });
    mac.set(9);
    expect(fake.app.badgeCount).toBe(9);
  });
});

describe('safeStorage secrets: never plaintext', () => {
  it('is usable only when encryption is available and (Linux) not the basic_text backend', async () => {
    expect(SafeStorageSecretStore.usable().ok).toBe(true);
    fake.safeStorage.backend = 'basic_text';
    expect(SafeStorageSecretStore.usable()).toMatchObject({ ok: false });
    fake.safeStorage.backend = 'kwallet5';
    fake.safeStorage.available = false;
    expect(SafeStorageSecretStore.usable()).toMatchObject({ ok: false });
    const store = new SafeStorageSecretStore(join(tmp, 'ss'));
    await expect(store.set('main', 'sdr_live_secret')).rejects.toMatchObject({ kind: 'secrets_unavailable' });
  });

  it('stores only the encrypted blob, reads it back, refuses to read when encryption went away', async () => {
    const store = new SafeStorageSecretStore(join(tmp, 'ss2'));
    await store.set('main', 'sdr_live_secret');
    const raw = readFileSync(store.file, 'utf8');
    expect(raw).not.toContain('sdr_live_secret');
    expect(await store.get('main')).toBe('sdr_live_secret');
    fake.safeStorage.backend = 'basic_text';
    expect(await store.get('main')).toBeNull();
  });
});

describe('native module selection', () => {
  const electron = { electron: '45.5.0', modules: '150' }; // Electron 45's process.versions
  it('plain Node: the package build; Electron: the ABI-named file beside the repo or in the app resources', () => {
    expect(sqliteBinding({ bundleDir: '/repo/out/main', versions: { modules: '115' }, platform: 'linux', arch: 'x64' })).toEqual({
      path: null,
      tried: [],
    });
    const dev = sqliteBinding({ bundleDir: '/repo/out/main', versions: electron, platform: 'linux', arch: 'x64', exists: () => true });
    expect(dev.path).toBe('/repo/.electron-native/linux-x64/better_sqlite3-electron-v150.node');
    for (const dir of ['/opt/Loupe/resources/app.asar/out/main', '/opt/Loupe/resources/app.asar.unpacked/out/main/chunks']) {
      expect(packagedResources(dir)).toBe('/opt/Loupe/resources');
      expect(sqliteBinding({ bundleDir: dir, versions: electron, platform: 'linux', arch: 'x64', exists: () => true }).path).toBe(
        '/opt/Loupe/resources/native/better_sqlite3-electron-v150.node',
      );
    }
    expect(
      sqliteBinding({ bundleDir: '/repo/out/main', versions: electron, platform: 'linux', arch: 'x64', exists: () => false }),
    ).toMatchObject({ path: null });
    expect(sqliteBindingName(150)).toBe('better_sqlite3-electron-v150.node');
  });

  it('the shim hands every connection the chosen binary (and keeps the constructor, statics, instanceof)', () => {
    const Real = createRequire(import.meta.url)('better-sqlite3') as typeof import('better-sqlite3');
    expect(withNativeBinding(Real, null)).toBe(Real);
    const nodeBuild = createRequire(import.meta.url).resolve('better-sqlite3/build/Release/better_sqlite3.node');
    const Shimmed = withNativeBinding(Real, nodeBuild);
    const db = new Shimmed(':memory:');
    expect(db).toBeInstanceOf(Real);
    expect(db.prepare('select 1 as one').get()).toEqual({ one: 1 });
    db.close();
    expect(Shimmed.SqliteError).toBe(Real.SqliteError);
    const Wrong = withNativeBinding(Real, join(tmp, 'no-such.node'));
    expect(() => new Wrong(':memory:')).toThrow(/no-such\.node/); // proves the binding option is what loads
  });
});

describe('menu', () => {
  const deps = (platform: NodeJS.Platform, pressed: unknown[] = []) => ({
    platform,
    isPackaged: false,
    press: (k: unknown) => void pressed.push(k),
    openDataFolder: () => {},
    openExportsFolder: () => {},
    about: () => {},
  });
  const items = (t: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] =>
    t.flatMap((i) => [i, ...(Array.isArray(i.submenu) ? items(i.submenu as MenuItemConstructorOptions[]) : [])]);

  it('is built from the one list of commands: every command with a menu place, with its shortcut', () => {
    const t = items(menuTemplate(deps('linux')));
    const placed = (COMMANDS as readonly CommandDef[]).filter((c) => c.menu);
    expect(
      t
        .filter((i) => i.id)
        .map((i) => i.id)
        .sort(),
    ).toEqual(placed.map((c) => c.id).sort());
    const acc = acceleratorsOf(menuTemplate(deps('linux')));
    expect(acc.palette).toBe('CmdOrCtrl+K');
    // every view has its own number key (Alt+1…9, Alt+0), the one the page goes to that view by
    VIEWS.forEach((v, i) => expect(acc[`go-${v.id}`], v.id).toBe(`Alt+${i === 9 ? 0 : i + 1}`));
    VIEWS.forEach((v, i) => expect(viewIndexOfNumberKey(viewShortcut(v.id).strokes[0].keyCode)).toBe(i));
    expect(acc.export).toBe(acc['go-library']);
  });

  it('a click sends the page the very keys the page handles', () => {
    const pressed: unknown[] = [];
    const t = items(menuTemplate(deps('linux', pressed)));
    const click = (id: string) => (t.find((i) => i.id === id)?.click as () => void)();
    click('go-library');
    expect(pressed).toEqual([{ keyCode: String(VIEWS.findIndex((v) => v.id === 'library') + 1), modifiers: ['alt'] }]);
    pressed.length = 0;
    click('add-key'); // File › Settings: through go-settings, the tenth view's Alt+0
    expect(pressed).toEqual([{ keyCode: '0', modifiers: ['alt'] }]);
    pressed.length = 0;
    const mac: unknown[] = [];
    (items(menuTemplate(deps('darwin', mac))).find((i) => i.id === 'palette')?.click as () => void)();
    expect(mac).toEqual([{ keyCode: 'K', modifiers: ['meta'] }]);
  });

  it('the page takes its keys before the first frame is drawn, not from a component after it (a key pressed while it is drawn counts)', () => {
    const main = readFileSync(new URL('../renderer/src/main.tsx', import.meta.url), 'utf8');
    const at = main.indexOf('installGlobalKeys(');
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThan(main.indexOf('createRoot('));
    const app = readFileSync(new URL('../renderer/src/App.tsx', import.meta.url), 'utf8');
    expect(app).not.toContain("addEventListener('keydown'");
  });

  it('macOS gets the app menu first and the page keys with meta; packaged apps have no dev tools', () => {
    const t = menuTemplate({
      platform: 'darwin',
      isPackaged: true,
      press: () => {},
      openDataFolder: () => {},
      openExportsFolder: () => {},
      about: () => {},
    });
    expect(t[0].role).toBe('appMenu');
    const all = JSON.stringify(t);
    expect(all).not.toContain('toggleDevTools');
    expect(all).not.toContain('"reload"');
  });
});
