/**
 * The native application menu: File, Edit, View, Window, Help (plus the app menu on macOS).
 *
 * The items are the commands of src/shared/commands.ts that have a menu place (the same list the
 * palette, the page's keys and the `?` help are built from), with the same shortcuts; the page keeps
 * handling them (Ctrl/Cmd+K for the palette, Alt+1…9 for the views). So a shortcut has
 * one implementation: on Linux and Windows the menu displays these accelerators without
 * registering them (`registerAccelerator: false`), the key reaches the page as before; choosing
 * the item with the mouse sends the page that very keystroke (`webContents.sendInputEvent`). On
 * macOS menu key equivalents run the item, which sends the keystroke: the same path.
 */
import type { KeyboardInputEvent, MenuItemConstructorOptions } from 'electron';
import { COMMANDS, commandById, VIEWS, type CommandDef, type MenuPlace, type ViewId } from '../shared/commands';

export type KeyStroke = Pick<KeyboardInputEvent, 'keyCode' | 'modifiers'>;

/**
 * A key of the registry (src/shared/commands.ts) as the menu shows it (an accelerator, when it is
 * one keystroke) and as the keystrokes a click sends the page (`g ,` is two).
 */
export function shortcutOf(key: string, platform: NodeJS.Platform): { accelerator?: string; strokes: KeyStroke[] } {
  if (key.startsWith('Mod+')) {
    const k = key.slice(4).toUpperCase();
    return { accelerator: `CmdOrCtrl+${k}`, strokes: [{ keyCode: k, modifiers: [platform === 'darwin' ? 'meta' : 'control'] }] };
  }
  if (key.startsWith('Alt+')) return { accelerator: key, strokes: [{ keyCode: key.slice(4), modifiers: ['alt'] }] };
  const parts = key.split(' ');
  return { accelerator: parts.length === 1 ? key : undefined, strokes: parts.map((k) => ({ keyCode: k, modifiers: [] })) };
}

/**
 * The key a page command's menu item shows and presses: of its own keys (or, for a command without
 * keys, those of the command its `via` names) the one-stroke Alt/Mod key if any, else the first.
 */
export function menuKeyOf(c: CommandDef): string | undefined {
  const keys = c.keys ?? (c.menu?.via ? commandById(c.menu.via)?.keys : undefined) ?? [];
  return keys.find((k) => k.startsWith('Alt+') || k.startsWith('Mod+')) ?? keys[0];
}

/** The page's shortcut for a view, as an accelerator (if one keystroke is enough) and as keystrokes. */
export function viewShortcut(id: ViewId, platform: NodeJS.Platform = process.platform): { accelerator?: string; strokes: KeyStroke[] } {
  const c = commandById(`go-${id}`);
  return shortcutOf((c && menuKeyOf(c)) ?? '', platform);
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

/** The registry's items of one menu, in the registry's order. */
function itemsOf(place: MenuPlace, d: MenuDeps): MenuItemConstructorOptions[] {
  const mac = d.platform === 'darwin';
  const main: Record<string, () => void> = {
    'open-exports': d.openExportsFolder,
    'open-data': d.openDataFolder,
    'help-data': d.openDataFolder,
    about: d.about,
  };
  return (COMMANDS as readonly CommandDef[])
    .filter((c) => c.menu?.place === place)
    .map((c) => {
      const label = (mac && c.menu?.macLabel) || c.menu?.label || c.title;
      if (c.runs === 'main') return { id: c.id, label, click: main[c.id] };
      const key = menuKeyOf(c);
      const s: { accelerator?: string; strokes: KeyStroke[] } = key ? shortcutOf(key, d.platform) : { strokes: [] };
      // the page handles the key: the menu only shows it, and a click sends the page that keystroke
      return { id: c.id, label, accelerator: s.accelerator, registerAccelerator: false, click: () => s.strokes.forEach((k) => d.press(k)) };
    });
}

export function menuTemplate(d: MenuDeps): MenuItemConstructorOptions[] {
  const mac = d.platform === 'darwin';
  const [views, others] = [
    itemsOf('view', d).filter((i) => String(i.id).startsWith('go-')),
    itemsOf('view', d).filter((i) => !String(i.id).startsWith('go-')),
  ];
  const fileItems = itemsOf('file', d);
  const file: MenuItemConstructorOptions = {
    label: '&File',
    submenu: [
      ...fileItems.filter((i) => i.id === 'export' || String(i.id).startsWith('open-')),
      { type: 'separator' },
      ...fileItems.filter((i) => i.id === 'add-key'),
      { type: 'separator' },
      mac ? { role: 'close' } : { role: 'quit', label: 'Quit Loupe', accelerator: 'CmdOrCtrl+Q' },
    ],
  };
  const edit: MenuItemConstructorOptions = {
    label: '&Edit',
    submenu: [
      { role: 'undo' },
      { role: 'redo' },
      { type: 'separator' },
      { role: 'cut' },
      { role: 'copy' },
      { role: 'paste' },
      { role: 'selectAll' },
    ],
  };
  const view: MenuItemConstructorOptions = {
    label: '&View',
    submenu: [
      ...others,
      { type: 'separator' },
      ...views,
      { type: 'separator' },
      ...(d.isPackaged
        ? []
        : ([{ role: 'reload' }, { role: 'toggleDevTools' }, { type: 'separator' }] satisfies MenuItemConstructorOptions[])),
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
    ],
  };
  const window: MenuItemConstructorOptions = { role: 'windowMenu' };
  const help: MenuItemConstructorOptions = { role: 'help', submenu: itemsOf('help', d) };
  return [...(mac ? [{ role: 'appMenu' } satisfies MenuItemConstructorOptions] : []), file, edit, view, window, help];
}

export { VIEWS };

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
