/**
 * The small window shown while the archive is brought to the current schema at start (the
 * migrations run in a worker thread, src/core/archive/prepare.ts): "Updating your archive —
 * 340,000 of 1,000,000 items" and the step, with the progress on the taskbar / dock. It opens on
 * the first report (none when nothing is due) and closes once the main window is on screen.
 *
 * The page is a data: URL with no script of its own and a CSP that allows none; main writes each
 * report into it (`executeJavaScript` with the text as a JSON string literal, at most ten times a
 * second; should the page refuse it, the page is loaded again with the new text instead). Same hardening as the main window (sandbox, context isolation, no node integration,
 * no preload); ./guards' navigation rules apply to it as to every window.
 */
import { BrowserWindow } from 'electron';
import { describeMigration, type MigrationProgress } from '../core/archive/prepare';

const STYLE = [
  'html,body{margin:0;height:100%;font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;background:#fafafa;color:#1f2328}',
  '@media (prefers-color-scheme:dark){html,body{background:#1e1f22;color:#e6e6e6}}',
  'main{padding:18px 22px}',
  'h1{font-size:15px;font-weight:600;margin:0 0 10px}',
  'progress{width:100%;height:10px}',
  'p{margin:8px 0 0;opacity:.8}',
  'p.note{font-size:12px;opacity:.6}',
].join('');

/** The page, with its first text. */
export function updatePage(headline: string, detail: string): string {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return (
    '<!doctype html><html><head><meta charset="utf-8">' +
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">` +
    `<title>Loupe</title><style>${STYLE}</style></head><body><main>` +
    `<h1 id="h">${esc(headline)}</h1><progress id="b"></progress><p id="d">${esc(detail)}</p>` +
    '<p class="note">Loupe is bringing your archive up to date for this version; this happens once. Your data is safe if it is interrupted.</p>' +
    '</main></body></html>'
  );
}

const pageUrl = (headline: string, detail: string) => `data:text/html;charset=utf-8,${encodeURIComponent(updatePage(headline, detail))}`;

/** The script that writes one report into the page (text as JSON string literals: never markup). */
export function updateScript(p: MigrationProgress): string {
  const d = describeMigration(p);
  return (
    `document.getElementById('h').textContent=${JSON.stringify(d.headline)};` +
    `document.getElementById('d').textContent=${JSON.stringify(d.detail)};` +
    `(function(b){${d.fraction === null ? "b.removeAttribute('value')" : `b.max=1;b.value=${d.fraction}`}})(document.getElementById('b'));`
  );
}

export interface UpdateWindow {
  /** one report: opens the window at the first */
  report(p: MigrationProgress): void;
  /** the window, while it is open */
  window(): BrowserWindow | null;
  /** closes it once `main` is on screen (at once when there is no main window) */
  closeWhenShown(main: BrowserWindow | null): void;
  close(): void;
}

export function archiveUpdateWindow(o: { icon?: string; minIntervalMs?: number } = {}): UpdateWindow {
  let win: BrowserWindow | null = null;
  let opened = false;
  let loaded = false;
  let latest: MigrationProgress | null = null;
  let lastAt = 0;
  let pending: ReturnType<typeof setTimeout> | null = null;
  const gap = o.minIntervalMs ?? 100;

  // each report is written into the page; should that ever be refused, the page is loaded again
  // with the report's text instead (at the same pace)
  let scripted = true;
  const reload = (w: BrowserWindow, p: MigrationProgress) => {
    const d = describeMigration(p);
    void w.loadURL(pageUrl(d.headline, d.detail)).catch(() => {});
  };
  const push = () => {
    pending = null;
    const w = win;
    const p = latest;
    if (!w || w.isDestroyed() || !loaded || !p) return;
    lastAt = Date.now();
    const f = describeMigration(p).fraction;
    w.setProgressBar(f === null ? 2 : f); // > 1: indeterminate
    if (!scripted) return reload(w, p);
    w.webContents.executeJavaScript(updateScript(p)).catch(() => {
      scripted = false;
      if (!w.isDestroyed()) reload(w, p);
    });
  };

  const open = (p: MigrationProgress) => {
    opened = true;
    const d = describeMigration(p);
    const w = new BrowserWindow({
      width: 480,
      height: 190,
      useContentSize: true,
      resizable: false,
      maximizable: false,
      fullscreenable: false,
      title: 'Loupe — updating the archive',
      show: false,
      ...(o.icon && process.platform === 'linux' ? { icon: o.icon } : {}),
      webPreferences: { contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, spellcheck: false },
    });
    win = w;
    w.once('ready-to-show', () => w.show());
    w.webContents.once('did-finish-load', () => {
      loaded = true;
      push();
    });
    w.on('closed', () => {
      if (win === w) win = null;
    });
    void w.loadURL(pageUrl(d.headline, d.detail)).catch(() => {});
  };

  const close = () => {
    if (pending) clearTimeout(pending);
    pending = null;
    const w = win;
    win = null;
    if (w && !w.isDestroyed()) w.close();
  };

  return {
    report(p) {
      latest = p;
      if (!opened) {
        open(p);
        return;
      }
      if (pending) return;
      const wait = lastAt + gap - Date.now();
      if (wait <= 0) push();
      else pending = setTimeout(push, wait);
    },
    window: () => (win && !win.isDestroyed() ? win : null),
    closeWhenShown(main) {
      if (!win) return;
      if (!main || main.isDestroyed()) {
        close();
        return;
      }
      main.once('ready-to-show', close);
      main.once('closed', close);
    },
    close,
  };
}
