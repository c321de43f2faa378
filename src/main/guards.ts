/**
 * Window hardening shared by every window: permission requests denied, <webview> refused,
 * navigation away from the app blocked (http(s) links open in the system browser instead), new
 * windows denied, and IPC accepted only from the app's own frames.
 */
import { app, session, shell, type IpcMainInvokeEvent, type WebContents } from 'electron';
import { APP_ORIGIN, CSP } from './protocol';

export function isAppUrl(url: string, devUrl: string | null): boolean {
  return url.startsWith(APP_ORIGIN + '/') || (devUrl !== null && url.startsWith(devUrl));
}

/** Opens a URL in the system browser, only when it is http(s). */
export function openExternal(url: string): boolean {
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return false;
    void shell.openExternal(u.toString());
    return true;
  } catch {
    return false;
  }
}

/** The IPC sender check: only a frame showing the bundled renderer may call the core. */
export function trustedSender(devUrl: string | null): (e: IpcMainInvokeEvent) => boolean {
  return (e) => isAppUrl(e.senderFrame?.url ?? '', devUrl);
}

export function guardContents(contents: WebContents, devUrl: string | null): void {
  contents.on('will-attach-webview', (ev) => ev.preventDefault());
  contents.on('will-navigate', (ev, url) => {
    if (isAppUrl(url, devUrl)) return;
    ev.preventDefault();
    openExternal(url); // a plain link to the web opens in the system browser, never in the app window
  });
  contents.on('will-redirect', (ev, url) => {
    if (!isAppUrl(url, devUrl)) ev.preventDefault();
  });
  contents.setWindowOpenHandler(({ url }) => {
    openExternal(url);
    return { action: 'deny' };
  });
}

export function harden(devUrl: string | null): void {
  const ses = session.defaultSession;
  ses.setPermissionRequestHandler((_wc, _perm, cb) => cb(false));
  ses.setPermissionCheckHandler(() => false);
  if (devUrl) {
    // dev server (electron-vite dev): the CSP travels as a response header here too
    ses.webRequest.onHeadersReceived((details, cb) => {
      const headers = { ...details.responseHeaders };
      if (details.url.startsWith(devUrl))
        headers['Content-Security-Policy'] = [CSP.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'")];
      cb({ responseHeaders: headers });
    });
  }
  app.on('web-contents-created', (_e, contents) => guardContents(contents, devUrl));
}
