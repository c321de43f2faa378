/**
 * Electron main process: one window, the contract bound to IPC generically (src/main/ipc.ts),
 * keys through safeStorage (else the OS keyring; never plaintext), the built-in sandbox when no
 * key and no base URL are configured. See docs/doors.md.
 *
 * Window hardening: contextIsolation, sandbox, no nodeIntegration; the renderer is served from a
 * privileged custom scheme (loupe://app/) whose every HTML answer carries a strict CSP header;
 * navigation away is blocked; new windows are denied and http(s) links go to the system browser;
 * permission requests (camera, notifications, …) are denied; <webview> is refused.
 */
import { app, BrowserWindow, Notification, protocol, session, shell, type IpcMainInvokeEvent } from 'electron';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';
import { createApp } from '../core/app';
import { appWatchFactory } from '../core/watch';
import type { AppHandle } from '../core/bridge';
import { defaultDataDir } from '../core/paths';
import { KeyringSecretStore, UnavailableSecretStore, type SecretStore } from '../core/secrets';
import { startSandbox } from '../sandbox';
import { bindContract, forwardEvents } from './ipc';
import { SafeStorageSecretStore } from './safe-storage-secrets';
import { CONTENT_SECURITY_POLICY, MIME_TYPES } from '../core/renderer-assets';

const SCHEME = 'loupe';
const APP_ORIGIN = `${SCHEME}://app`;
const RENDERER_DIR = join(__dirname, '../renderer');
const PRELOAD = join(__dirname, '../preload/index.cjs');
const DEV_URL = process.env.ELECTRON_RENDERER_URL ?? null;

export const CSP = CONTENT_SECURITY_POLICY;
const MIME = MIME_TYPES;

protocol.registerSchemesAsPrivileged([{ scheme: SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
app.setName('Loupe');

function argValue(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  if (i >= 0) return process.argv[i + 1];
  const eq = process.argv.find((a) => a.startsWith(`${flag}=`));
  return eq ? eq.slice(flag.length + 1) : undefined;
}

/** safeStorage when it really encrypts; else the OS keyring; else nothing (never plaintext). */
async function pickSecrets(): Promise<SecretStore> {
  const ss = SafeStorageSecretStore.usable();
  if (ss.ok) return new SafeStorageSecretStore(dataDir);
  const kr = new KeyringSecretStore();
  const ka = await kr.available();
  if (ka.ok) return kr;
  return new UnavailableSecretStore(`${ss.message ?? ''} ${ka.message ?? ''}`.trim());
}

function serveRenderer(): void {
  const root = resolve(RENDERER_DIR);
  protocol.handle(SCHEME, (req) => {
    const url = new URL(req.url);
    if (url.host !== 'app') return new Response('Not found', { status: 404 });
    let rel = decodeURIComponent(url.pathname);
    let file = resolve(join(root, rel));
    if (file !== root && !file.startsWith(root + sep)) return new Response('Not found', { status: 404 });
    let ok = false;
    try {
      ok = statSync(file).isFile();
    } catch {}
    if (!ok) {
      if (extname(rel)) return new Response('Not found', { status: 404 });
      rel = '/index.html';
      file = join(root, 'index.html');
    }
    if (!existsSync(file)) return new Response('The renderer is not built: run npm run build.', { status: 503 });
    const ext = extname(file).toLowerCase();
    const headers: Record<string, string> = { 'content-type': MIME[ext] ?? 'application/octet-stream', 'x-content-type-options': 'nosniff' };
    if (ext === '.html') headers['content-security-policy'] = CSP;
    return new Response(readFileSync(file), { status: 200, headers });
  });
}

function harden(): void {
  const ses = session.defaultSession;
  ses.setPermissionRequestHandler((_wc, _perm, cb) => cb(false));
  ses.setPermissionCheckHandler(() => false);
  if (DEV_URL) {
    // dev server (electron-vite dev): the CSP travels as a response header here too
    ses.webRequest.onHeadersReceived((details, cb) => {
      const headers = { ...details.responseHeaders };
      if (details.url.startsWith(DEV_URL)) headers['Content-Security-Policy'] = [CSP.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'")];
      cb({ responseHeaders: headers });
    });
  }
  app.on('web-contents-created', (_e, contents) => {
    contents.on('will-attach-webview', (ev) => ev.preventDefault());
    contents.on('will-navigate', (ev, url) => {
      if (isAppUrl(url)) return;
      ev.preventDefault();
      openExternal(url); // a plain link to the web opens in the system browser, never in the app window
    });
    contents.on('will-redirect', (ev, url) => {
      if (!isAppUrl(url)) ev.preventDefault();
    });
    contents.setWindowOpenHandler(({ url }) => {
      openExternal(url);
      return { action: 'deny' };
    });
  });
}

function isAppUrl(url: string): boolean {
  return url.startsWith(APP_ORIGIN + '/') || (DEV_URL !== null && url.startsWith(DEV_URL));
}

/** Links from the renderer open in the system browser, only when they are http(s). */
function openExternal(url: string): void {
  try {
    const u = new URL(url);
    if (u.protocol === 'http:' || u.protocol === 'https:') void shell.openExternal(u.toString());
  } catch {}
}

function trustedSender(e: IpcMainInvokeEvent): boolean {
  const url = e.senderFrame?.url ?? '';
  return isAppUrl(url);
}

const dataDir = defaultDataDir(process.env, argValue('--data-dir'));
let handle: (AppHandle & { ready: Promise<void> }) | null = null;
let sandboxClose: (() => Promise<void>) | null = null;

function createWindow(core: AppHandle): void {
  const win = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 900,
    minHeight: 600,
    title: 'Loupe',
    show: false,
    webPreferences: {
      preload: PRELOAD,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  forwardEvents(core, win.webContents);
  win.once('ready-to-show', () => win.show());
  void win.loadURL(DEV_URL ?? `${APP_ORIGIN}/index.html`);
}

app.whenReady().then(async () => {
  serveRenderer();
  harden();
  const secrets = await pickSecrets();
  const sandboxSeed = Number(process.env.LOUPE_SANDBOX_SEED ?? 1);
  handle = createApp({
    dataDir,
    baseUrl: argValue('--base-url') ?? process.env.LOUPE_BASE_URL ?? null,
    envKey: process.env.LOUPE_API_KEY ?? null,
    secrets,
    door: 'electron',
    version: app.getVersion(),
    // scheduled watchlist runs notify when new items match a watchlist's alert filter
    watch: appWatchFactory({
      notify: (title, body) => {
        if (Notification.isSupported()) new Notification({ title, body }).show();
      },
    }),
    sandbox: async () => {
      const sb = await startSandbox({ port: 0, seed: sandboxSeed });
      sandboxClose = sb.close;
      return sb;
    },
  });
  bindContract(handle, trustedSender);
  createWindow(handle);
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0 && handle) createWindow(handle);
  });
});

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
    await h.close().catch(() => {});
    await sandboxClose?.().catch(() => {});
    app.quit();
  })();
});
