/**
 * Electron main process: one window, the contract bound to IPC generically (./ipc), keys through
 * safeStorage (else the OS keyring; never plaintext), the built-in sandbox when no key and no base
 * URL are configured. See docs/doors.md and docs/desktop.md.
 *
 * Window hardening: contextIsolation, sandbox, no nodeIntegration, webSecurity; the renderer is
 * served from a privileged custom scheme (loupe://app/, ./protocol) whose every HTML answer carries
 * a strict CSP header; navigation away is blocked; new windows are denied and http(s) links go to
 * the system browser; permission requests are denied; <webview> is refused (./guards).
 *
 * Desktop habits: one instance per data folder (a second launch focuses the first), the window's
 * size and position remembered (./window-state), native menus with the palette's shortcuts
 * (./menu), exports through the native save dialog (./export-dialog), OS notifications for
 * watchlist alerts (./notify), the new-item count on the dock / launcher / taskbar (./badge).
 */
import { app, BrowserWindow, dialog, Menu, screen, shell } from 'electron';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { composeApp, doorSetup, pickSecretStore, prepareDoor, type DoorSetup } from '../core/compose';
import { appWatchFactory } from '../core/watch';
import { dispatch, type AppHandle } from '../core/bridge';
import { defaultDataDir } from '../core/paths';
import { startSandbox } from '../sandbox';
import type { WatchlistInfo } from '../shared/contract';
import { bindContract, forwardEvents, type Caller } from './ipc';
import { SafeStorageSecretStore } from './safe-storage-secrets';
import { APP_ORIGIN, registerScheme, serveRenderer } from './protocol';
import { harden, trustedSender } from './guards';
import { loadWindowState, MIN_SIZE, trackWindowState, windowStateFile } from './window-state';
import { menuTemplate, viewShortcut, type KeyStroke } from './menu';
import { alertNotifier } from './notify';
import { createBadge, newItemCount } from './badge';
import { exportDialog } from './export-dialog';
import { snapshotDialog } from './snapshot-dialog';
import { currentSqliteBinding } from './native';
import { archiveUpdateWindow, type UpdateWindow } from './update-window';

export const APP_ID = 'app.loupe.desktop';
const HERE = import.meta.dirname;
const RENDERER_DIR = join(HERE, '../renderer');
const PRELOAD = join(HERE, '../preload/index.cjs');
/** electron-vite dev's server: honoured only in development, never by a packaged app */
const DEV_URL = app.isPackaged ? null : (process.env.ELECTRON_RENDERER_URL ?? null);

function argValue(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  if (i >= 0) return process.argv[i + 1];
  const eq = process.argv.find((a) => a.startsWith(`${flag}=`));
  return eq ? eq.slice(flag.length + 1) : undefined;
}

/** A file of resources/ (packaged: copied beside app.asar by electron-builder's extraResources). */
function resourcePath(name: string): string {
  return app.isPackaged ? join(process.resourcesPath, name) : join(HERE, '../../resources', name);
}

registerScheme();
app.setName('Loupe');
// the flags, else the environment through the settings table (src/shared/settings.ts); a bad
// value is shown when the app is ready (a dialog needs it) and the app stops
let setupProblem: string | null = null;
const setup: DoorSetup = (() => {
  const flags = { dataDir: argValue('--data-dir'), baseUrl: argValue('--base-url') };
  try {
    return doorSetup(flags);
  } catch (e) {
    setupProblem = e instanceof Error ? e.message : String(e);
    return { dataDir: defaultDataDir(process.env, flags.dataDir), baseUrl: null, envKey: null, env: { sandboxSeed: 1 } };
  }
})();
const dataDir = setup.dataDir;
// Chromium's profile lives in the data folder, so the single-instance lock (held on the profile)
// is per data folder: two launches on one archive focus the first, two archives can run side by side.
app.setPath('userData', join(dataDir, 'electron'));

let handle: (AppHandle & { ready: Promise<void> }) | null = null;
let closeComposed: (() => Promise<void>) | null = null;
let mainWindow: BrowserWindow | null = null;
/** the "Updating your archive" window while migrations run at start (./update-window) */
let updating: UpdateWindow | null = null;

/** The app's window, brought to the front (created again when it was closed, macOS). */
function focusMain(): void {
  if ((!mainWindow || mainWindow.isDestroyed()) && handle) createWindow(handle);
  const win = mainWindow ?? updating?.window() ?? null;
  if (!win || win.isDestroyed()) return;
  if (win.isMinimized()) win.restore();
  win.show();
  win.focus();
}

/** Sends the page one of its own shortcuts (menus and notification clicks use the page's keys). */
function press(stroke: KeyStroke): void {
  const wc = mainWindow && !mainWindow.isDestroyed() ? mainWindow.webContents : null;
  if (!wc) return;
  wc.sendInputEvent({ type: 'keyDown', ...stroke });
  wc.sendInputEvent({ type: 'keyUp', ...stroke });
}

/** better-sqlite3 must load under this Electron's ABI (./native); say how to fix it when it does not. */
export function nativeModuleProblem(): string | null {
  try {
    new Database(':memory:').close();
    return null;
  } catch (e) {
    const tried = currentSqliteBinding(HERE).tried;
    return (
      `Loupe's database module (better-sqlite3) is not built for this Electron (ABI ${process.versions.modules}).\n\n` +
      (tried.length ? `Looked for: ${tried.join(', ')}\n\n` : '') +
      'From the source folder, run "npm start" on a machine with internet access (it fetches or builds it), ' +
      'or "node scripts/electron-native.mjs".\n\n' +
      `Details: ${e instanceof Error ? e.message : String(e)}`
    );
  }
}

export const badge = createBadge({ platform: process.platform, window: () => mainWindow, overlayIcon: resourcePath('badge.png') });
let badgeTimer: ReturnType<typeof setTimeout> | null = null;
/** Re-reads the watchlists' new-item counts (debounced: runs finish in bursts). */
function refreshBadge(): void {
  if (badgeTimer) return;
  badgeTimer = setTimeout(() => {
    badgeTimer = null;
    const h = handle;
    if (!h) return;
    void dispatch(h, 'watchlists.list', {}).then((r) => {
      if (r.ok) badge.set(newItemCount(r.result as WatchlistInfo[]));
    });
  }, 250);
  badgeTimer.unref?.();
}

const exportsFolder = () => join(dataDir, 'exports');
const exportsViaDialog = exportDialog({
  showSaveDialog: (win, options) => (win ? dialog.showSaveDialog(win, options) : dialog.showSaveDialog(options)),
  dispatch: (method, input) =>
    handle ? dispatch(handle, method, input) : Promise.resolve({ ok: false, error: { kind: 'internal', message: 'Loupe is starting.' } }),
  defaultDir: () => app.getPath('documents'),
});

const snapshotsViaDialog = snapshotDialog({
  showSaveDialog: (win, options) => (win ? dialog.showSaveDialog(win, options) : dialog.showSaveDialog(options)),
  dispatch: (method, input) =>
    handle ? dispatch(handle, method, input) : Promise.resolve({ ok: false, error: { kind: 'internal', message: 'Loupe is starting.' } }),
  defaultDir: () => app.getPath('documents'),
});

export const notifyAlert = alertNotifier({
  icon: resourcePath('icon.png'),
  onClick: () => {
    focusMain();
    for (const stroke of viewShortcut('watchlists').strokes) press(stroke);
  },
});

function createWindow(core: AppHandle): BrowserWindow {
  const stateFile = windowStateFile(dataDir);
  const state = loadWindowState(
    stateFile,
    screen.getAllDisplays().map((d) => d.workArea),
  );
  const win = new BrowserWindow({
    ...(state.x !== undefined && state.y !== undefined ? { x: state.x, y: state.y } : {}),
    width: state.width,
    height: state.height,
    minWidth: MIN_SIZE.width,
    minHeight: MIN_SIZE.height,
    title: 'Loupe',
    show: false,
    ...(process.platform === 'linux' ? { icon: resourcePath('icon.png') } : {}),
    webPreferences: {
      preload: PRELOAD,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  mainWindow = win;
  if (state.maximized) win.maximize();
  trackWindowState(win, stateFile);
  forwardEvents(core, win.webContents, (ev) =>
    ev.type === 'snapshot-progress' ? snapshotsViaDialog.transform(ev) : exportsViaDialog.transform(ev),
  );
  win.once('ready-to-show', () => win.show());
  win.on('closed', () => {
    if (mainWindow === win) mainWindow = null;
  });
  void win.loadURL(DEV_URL ?? `${APP_ORIGIN}/index.html`);
  return win;
}

/** The desktop's calls: exports and copies of the archive go through the save dialog; watchlist changes refresh the badge. */
const desktopCaller: Caller = async (method, input, e) => {
  if (!handle) return { ok: false, error: { kind: 'internal', message: 'Loupe is starting.' } };
  if (method === 'export.start') return exportsViaDialog.start(input, BrowserWindow.fromWebContents(e.sender) ?? mainWindow);
  if (method === 'export.get') return exportsViaDialog.get(input);
  if (method === 'archive.snapshot') return snapshotsViaDialog.start(input, BrowserWindow.fromWebContents(e.sender) ?? mainWindow);
  if (method === 'archive.snapshotGet') return snapshotsViaDialog.get(input);
  const r = await dispatch(handle, method, input);
  if (
    method.startsWith('watchlists.') &&
    method !== 'watchlists.list' &&
    method !== 'watchlists.history' &&
    method !== 'watchlists.estimate'
  )
    refreshBadge();
  return r;
};

async function onReady(): Promise<void> {
  const problem = nativeModuleProblem();
  if (problem) {
    dialog.showErrorBox('Loupe cannot open its archive', problem);
    app.exit(1);
    return;
  }
  if (setupProblem) {
    dialog.showErrorBox('Loupe cannot start', setupProblem);
    app.exit(1);
    return;
  }
  if (process.platform === 'win32') app.setAppUserModelId(APP_ID); // Windows shows notifications only with it
  app.setAboutPanelOptions({
    applicationName: 'Loupe',
    applicationVersion: app.getVersion(),
    copyright: 'Loupe — research over the Social Data Read API',
  });
  serveRenderer(RENDERER_DIR);
  harden(DEV_URL);
  Menu.setApplicationMenu(
    Menu.buildFromTemplate(
      menuTemplate({
        platform: process.platform,
        isPackaged: app.isPackaged,
        press,
        openDataFolder: () => void shell.openPath(dataDir),
        openExportsFolder: () => void shell.openPath(exportsFolder()),
        about: () => app.showAboutPanel(),
      }),
    ),
  );
  // safeStorage when it really encrypts; else the OS keyring; else nothing (never plaintext)
  const secrets = await pickSecretStore({ store: () => new SafeStorageSecretStore(dataDir), usable: SafeStorageSecretStore.usable() });
  // an archive written by an older Loupe is migrated first, in a worker thread (a rewrite of every
  // item takes about a minute at 1M posts): a small window says how far it is, the main process
  // stays responsive, and the main window follows (src/core/archive/prepare.ts)
  const update = archiveUpdateWindow({ icon: resourcePath('icon.png') });
  updating = update;
  try {
    await prepareDoor(setup, { onProgress: (p) => update.report(p) });
  } catch (e) {
    update.close();
    updating = null;
    dialog.showErrorBox('Loupe cannot open its archive', e instanceof Error ? e.message : String(e));
    app.exit(1);
    return;
  }
  const composed = composeApp({
    setup,
    startSandbox,
    secrets,
    door: 'electron',
    version: app.getVersion(),
    // scheduled watchlist runs notify when new items match a watchlist's alert filter
    watch: appWatchFactory({ notify: (title, body) => void notifyAlert(title, body) }),
  });
  handle = composed.app;
  closeComposed = () => composed.close();
  handle.events.on((ev) => {
    if (ev.type === 'watch-run' && ev.run.status !== 'running') refreshBadge();
  });
  bindContract(handle, trustedSender(DEV_URL), desktopCaller);
  update.closeWhenShown(createWindow(handle));
  updating = null;
  refreshBadge();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0 && handle) createWindow(handle);
  });
}

/** Resolves once the window exists (or the app gave up); tests wait on it. */
export let started: Promise<void> = Promise.resolve();

if (!app.requestSingleInstanceLock()) {
  // another Loupe holds this data folder: it is told (second-instance) and comes to the front
  app.quit();
} else {
  app.on('second-instance', () => focusMain());
  started = app.whenReady().then(onReady);

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });

  let closing = false;
  app.on('before-quit', (ev) => {
    if (closing || !handle) return;
    closing = true;
    ev.preventDefault();
    const h = handle;
    void (async () => {
      await (closeComposed ?? (() => h.close()))().catch(() => {});
      app.quit();
    })();
  });
}
