/**
 * The page's global keys: Ctrl/Cmd+K the palette, `g` then a view's letter, Alt+1…9 and Alt+0 the
 * views by number (src/shared/view-keys.ts, the native menu's accelerators too), `/` the query
 * field, `?` the shortcuts, j/k/↑/↓ the table cursor, Enter the drawer, t / n the drawer's tag and
 * note fields (components/drawer-focus.ts), Esc closes.
 *
 * Installed when the page's code first runs, before React draws anything (main.tsx): a key pressed
 * while the first view is still being drawn is not lost — the store takes it and the frame shows
 * its result when it is drawn (a busy machine can take seconds to draw the first frame).
 */
import { viewIndexOfNumberKey } from '../../shared/view-keys';
import { useUi, VIEWS } from './stores/ui';
import { drawerFieldKey, escapeInsideDrawer } from './components/drawer-focus';

export function isTyping(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  if (!el || !el.tagName) return false;
  return el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.isContentEditable;
}

/** Focuses the current view's main query field (marked `data-main-query`), if it has one. */
export function focusQuery(): void {
  const el = document.querySelector<HTMLInputElement>('[data-main-query]');
  if (el) {
    el.focus();
    el.select();
  }
}

/**
 * Esc: closes the topmost of help, dialog, confirmation, palette, background panel, drawer (from a
 * field inside the drawer: back to the drawer first); else leaves the field.
 */
function closeTopmost(e: KeyboardEvent): void {
  const ui = useUi.getState();
  if (ui.helpOpen) useUi.setState({ helpOpen: false });
  else if (ui.dialog) ui.closeDialog();
  else if (ui.confirm) ui.closeConfirm(false);
  else if (ui.paletteOpen) ui.setPalette(false);
  else if (ui.bgOpen) ui.setBgOpen(false);
  else if (ui.drawer && escapeInsideDrawer(e.target)) return;
  else if (ui.drawer) ui.openDrawer(null);
  else if (isTyping(e.target)) (e.target as HTMLElement).blur();
}

/** j/k/↓/↑ move the table cursor (the drawer follows it), Enter opens the row in the drawer. */
function tableKey(e: KeyboardEvent): void {
  const ui = useUi.getState();
  if (!ui.tableRows.length) return;
  switch (e.key) {
    case 'j':
    case 'ArrowDown':
      e.preventDefault();
      ui.setCursor(ui.cursor + 1);
      if (ui.drawer) ui.openDrawer(ui.tableRows[Math.min(ui.cursor + 1, ui.tableRows.length - 1)]);
      break;
    case 'k':
    case 'ArrowUp':
      e.preventDefault();
      ui.setCursor(ui.cursor - 1);
      if (ui.drawer) ui.openDrawer(ui.tableRows[Math.max(ui.cursor - 1, 0)]);
      break;
    case 'Enter':
      if (!(e.target instanceof HTMLButtonElement) && !(e.target instanceof HTMLAnchorElement)) {
        e.preventDefault();
        ui.openDrawer(ui.tableRows[ui.cursor]);
      }
      break;
  }
}

/** How long after `g` its second key still counts. */
const G_WINDOW_MS = 1200;

/** The global key handler, for `target` (the window); returns its removal. */
export function installGlobalKeys(target: Pick<Window, 'addEventListener' | 'removeEventListener'> = window): () => void {
  let g = false;
  let gTimer: ReturnType<typeof setTimeout> | null = null;
  const onKey = (e: KeyboardEvent) => {
    const ui = useUi.getState();
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'k') {
      e.preventDefault();
      ui.setPalette(!ui.paletteOpen);
      return;
    }
    if (e.key === 'Escape') {
      closeTopmost(e);
      return;
    }
    if (ui.confirm || ui.paletteOpen || ui.dialog || ui.helpOpen) return;
    // the digit itself, or the key's place where Alt makes another character of it (macOS: Alt+1 is ¡)
    const digit = /^[0-9]$/.test(e.key) ? e.key : /^Digit[0-9]$/.test(e.code ?? '') ? e.code.slice(5) : '';
    const byNumber = e.altKey ? viewIndexOfNumberKey(digit) : -1;
    if (byNumber >= 0 && byNumber < VIEWS.length) {
      e.preventDefault();
      ui.setView(VIEWS[byNumber].id);
      return;
    }
    if (isTyping(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
    if (g) {
      g = false;
      const v = VIEWS.find((x) => x.key === e.key);
      if (v) {
        e.preventDefault();
        ui.setView(v.id);
        return;
      }
    }
    switch (e.key) {
      case 'g':
        g = true;
        if (gTimer) clearTimeout(gTimer);
        gTimer = setTimeout(() => (g = false), G_WINDOW_MS);
        break;
      case '/':
        e.preventDefault();
        focusQuery();
        break;
      case '?':
        e.preventDefault();
        useUi.setState({ helpOpen: true });
        break;
      case 't':
      case 'n':
        if (drawerFieldKey(e.key)) e.preventDefault();
        break;
      default:
        tableKey(e);
    }
  };
  target.addEventListener('keydown', onKey as EventListener);
  return () => {
    if (gTimer) clearTimeout(gTimer);
    target.removeEventListener('keydown', onKey as EventListener);
  };
}
