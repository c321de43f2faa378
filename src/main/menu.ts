/**
 * The native application menu: File, Edit, View, Window, Help (plus the app menu on macOS).
 *
 * The menu shows the SAME shortcuts as the command palette, and the page keeps handling them
 * (src/renderer/src/keys.ts: Ctrl/Cmd+K for the palette, Alt+1…9 and Alt+0 for the views, the number
 * keys of src/shared/view-keys.ts). So a shortcut has
 * one implementation: on Linux and Windows the menu displays these accelerators without
 * registering them (`registerAccelerator: false`), the key reaches the page as before; choosing
 * the item with the mouse sends the page that very keystroke (`webContents.sendInputEvent`). On
 * macOS menu key equivalents run the item, which sends the keystroke: the same path.
 */
import type { KeyboardInputEvent, MenuItemConstructorOptions } from 'electron';
import { viewNumberKey } from '../shared/view-keys';

/** The views in the order of the rail (src/renderer/src/stores/ui.ts VIEWS; a test keeps them equal). */
export const VIEW_ITEMS = [
  { id: 'search', label: 'Search' },
  { id: 'profiles', label: 'Profiles' },
  { id: 'comments', label: 'Comments' },
  { id: 'watchlists', label: 'Watchlists' },
  { id: 'collect', label: 'Collect' },
  { id: 'library', label: 'Library' },
  { id: 'analysis', label: 'Analysis' },
  { id: 'usage', label: 'Usage' },
  { id: 'explorer', label: 'Explorer' },
  { id: 'settings', label: 'Settings' },
] as const;
export type ViewItemId = (typeof VIEW_ITEMS)[number]['id'];

export type KeyStroke = Pick<KeyboardInputEvent, 'keyCode' | 'modifiers'>;

/** The page's shortcut for the palette and each view, as an accelerator and as a keystroke. */
export function paletteShortcut(platform: NodeJS.Platform): { accelerator: string; stroke: KeyStroke } {
  return { accelerator: 'CmdOrCtrl+K', stroke: { keyCode: 'K', modifiers: [platform === 'darwin' ? 'meta' : 'control'] } };
}
export function viewShortcut(id: ViewItemId): { accelerator: string; stroke: KeyStroke } {
  const n = viewNumberKey(VIEW_ITEMS.findIndex((v) => v.id === id));
  // ten views at most have a number key (Alt+1…9, Alt+0); the menu tests build every one
  if (n === null) throw new Error(`the view ${id} has no number key: the rail has more than ten views`);
  return { accelerator: `Alt+${n}`, stroke: { keyCode: n, modifiers: ['alt'] } };
}

export interface MenuDeps {
  platform: NodeJS.Platform;
  isPackaged: boolean;
  /** sends a keystroke to the focused app window's page */
  press(stroke: KeyStroke): void;
  openDataFolder(): void;
  openExportsFolder(): void;
  about(): void;
}

export function menuTemplate(d: MenuDeps): MenuItemConstructorOptions[] {
  const mac = d.platform === 'darwin';
  const pageKey = (s: { accelerator: string; stroke: KeyStroke }): Pick<MenuItemConstructorOptions, 'accelerator' | 'registerAccelerator' | 'click'> => ({
    accelerator: s.accelerator,
    registerAccelerator: false,
    click: () => d.press(s.stroke),
  });
  const go = (id: ViewItemId, label: string): MenuItemConstructorOptions => ({ id: `go-${id}`, label, ...pageKey(viewShortcut(id)) });

  const file: MenuItemConstructorOptions = {
    label: '&File',
    submenu: [
      { ...go('library', 'Export from the Library…'), id: 'export' },
      { id: 'open-exports', label: 'Open the Exports Folder', click: d.openExportsFolder },
      { id: 'open-data', label: 'Show the Data Folder', click: d.openDataFolder },
      { type: 'separator' },
      { ...go('settings', mac ? 'Settings…' : 'Settings'), id: 'settings' },
      { type: 'separator' },
      mac ? { role: 'close' } : { role: 'quit', label: 'Quit Loupe', accelerator: 'CmdOrCtrl+Q' },
    ],
  };
  const edit: MenuItemConstructorOptions = {
    label: '&Edit',
    submenu: [{ role: 'undo' }, { role: 'redo' }, { type: 'separator' }, { role: 'cut' }, { role: 'copy' }, { role: 'paste' }, { role: 'selectAll' }],
  };
  const view: MenuItemConstructorOptions = {
    label: '&View',
    submenu: [
      { id: 'palette', label: 'Command Palette…', ...pageKey(paletteShortcut(d.platform)) },
      { type: 'separator' },
      ...VIEW_ITEMS.map((v) => go(v.id, v.label)),
      { type: 'separator' },
      ...(d.isPackaged ? [] : ([{ role: 'reload' }, { role: 'toggleDevTools' }, { type: 'separator' }] satisfies MenuItemConstructorOptions[])),
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
    ],
  };
  const window: MenuItemConstructorOptions = { role: 'windowMenu' };
  const help: MenuItemConstructorOptions = {
    role: 'help',
    submenu: [
      { id: 'about', label: 'About Loupe', click: d.about },
      { id: 'help-data', label: 'Show the Data Folder', click: d.openDataFolder },
    ],
  };
  return [...(mac ? [{ role: 'appMenu' } satisfies MenuItemConstructorOptions] : []), file, edit, view, window, help];
}

/** Every accelerator shown anywhere in a template, by item id (for tests and docs). */
export function acceleratorsOf(template: MenuItemConstructorOptions[]): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (items: MenuItemConstructorOptions[]) => {
    for (const it of items) {
      if (it.id && typeof it.accelerator === 'string') out[it.id] = it.accelerator;
      if (Array.isArray(it.submenu)) walk(it.submenu as MenuItemConstructorOptions[]);
    }
  };
  walk(template);
  return out;
}
