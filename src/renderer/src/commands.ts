/**
 * What each command of src/shared/commands.ts does in the page, and the palette built from that
 * list; the keys: ./keys.ts (the palette, the keys and the `?` help all read the one registry, issue 25).
 */
import type { QueryClient } from '@tanstack/react-query';
import { COMMANDS, shownKey, type CommandDef, type PageCommandId, type ViewId } from '../../shared/commands';
import { errorText } from './lib/api';
import { accountWrites, refreshBalance } from './queries/account';
import { useUi, VIEWS } from './stores/ui';
import type { Command } from './components/Overlays';
import { drawerFieldKey, escapeInsideDrawer } from './components/drawer-focus';

/** A command's work; `false` when it had nothing to do (the key then keeps its default). */
export type Run = (e?: KeyboardEvent) => boolean | void;

export function isTyping(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  if (!el || !el.tagName) return false;
  // a results row's checkbox is a role="checkbox" element (table-columns.tsx): a control like the <input> it was
  if (typeof el.getAttribute === 'function' && el.getAttribute('role') === 'checkbox') return true;
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

/** The page commands that have keys: their runs need nothing but the store (the keys work before React draws). */
export type KeyedCommandId = Extract<
  PageCommandId,
  'palette' | 'focus-query' | 'cursor-down' | 'cursor-up' | 'open-row' | 'tag-item' | 'note-item' | 'keys-help' | 'close' | `go-${ViewId}`
>;

/** The runs of the commands with keys. */
export function keyRuns(): Record<KeyedCommandId, Run> {
  const ui = useUi.getState;
  const views = Object.fromEntries(VIEWS.map((v) => [`go-${v.id}`, () => ui().setView(v.id)])) as Record<`go-${ViewId}`, Run>;
  const moveCursor =
    (by: number): Run =>
    () => {
      const u = ui();
      if (!u.tableRows.length) return false;
      u.setCursor(u.cursor + by);
      if (u.drawer) u.openDrawer(u.tableRows[Math.max(0, Math.min(u.cursor + by, u.tableRows.length - 1))]);
    };
  return {
    ...views,
    palette: () => ui().setPalette(!ui().paletteOpen),
    'focus-query': () => focusQuery(),
    'cursor-down': moveCursor(1),
    'cursor-up': moveCursor(-1),
    'open-row': (e) => {
      const u = ui();
      if (!u.tableRows.length || e?.target instanceof HTMLButtonElement || e?.target instanceof HTMLAnchorElement) return false;
      u.openDrawer(u.tableRows[u.cursor]);
    },
    // t / n: the drawer's tag / note field (components/drawer-focus.ts); false when there is no row
    'tag-item': () => drawerFieldKey('t'),
    'note-item': () => drawerFieldKey('n'),
    'keys-help': () => useUi.setState({ helpOpen: true }),
    close: (e) => {
      const u = ui();
      if (u.helpOpen) useUi.setState({ helpOpen: false });
      else if (u.dialog) u.closeDialog();
      else if (u.confirm) u.closeConfirm(false);
      else if (u.paletteOpen) u.setPalette(false);
      else if (u.bgOpen) u.setBgOpen(false);
      else if (u.drawer && escapeInsideDrawer(e?.target ?? null))
        return; // from a drawer field: back to the drawer
      else if (u.drawer) u.openDrawer(null);
      else if (e && isTyping(e.target)) (e.target as HTMLElement).blur();
      else if (e) return false;
    },
  };
}

/** Every page command's run (the type fails when the registry gains a page command with none). */
export function pageRuns(qc: QueryClient): Record<PageCommandId, Run> {
  const ui = useUi.getState;
  const writes = accountWrites(qc);
  return {
    ...keyRuns(),
    bg: () => ui().setBgOpen(true),
    'refresh-balance': () => void refreshBalance().catch((err) => ui().toast('error', errorText(err))),
    'refresh-catalogue': () => void writes.reloadCatalogue(),
    'theme-dark': () => void writes.setTheme('dark'),
    'theme-light': () => void writes.setTheme('light'),
    'theme-system': () => void writes.setTheme('system'),
    'new-watchlist': () => ui().setView('watchlists'),
    'new-plan': () => ui().setView('collect'),
    'add-key': () => ui().setView('settings'),
    export: () => ui().setView('library'),
    analyse: () => ui().setView('analysis'),
    'manage-tags': () => {
      ui().setView('library');
      ui().setTagsOpen(true);
    },
  };
}

/** The palette's entries: the registry's palette commands, with their keys as hints. */
export function paletteCommands(runs: Record<PageCommandId, Run>): Command[] {
  return (COMMANDS as readonly CommandDef[])
    .filter((c) => c.palette && c.runs === 'page')
    .map((c) => ({
      id: c.id,
      label: c.title,
      hint: c.keys?.map(shownKey).join(' · ') || undefined,
      run: () => void runs[c.id as PageCommandId](),
    }));
}
