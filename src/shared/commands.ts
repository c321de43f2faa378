/**
 * Every command of the app in one list (issue 25 "one registry for commands"): its id, title,
 * shortcut, place in the native menu and palette entry. The page builds its command palette, its
 * key handler and the `?` shortcut help from this list (src/renderer/src/commands.ts gives each
 * page command its `run`); the main process builds the native menu from it (src/main/menu.ts).
 * A command is added here once, and appears everywhere it should.
 *
 * Keys are written as the key handler reads a keystroke (`keyOf`): `Mod+k` (Ctrl, or ⌘ on macOS),
 * `Alt+1` (Alt+0 for the tenth view: src/shared/view-keys.ts), a plain key (`/`, `?`, `j`, `ArrowDown`, `Enter`, `Escape`), or a sequence of two
 * (`g s`: g, then s within a moment).
 */

import { viewNumberKey } from './view-keys';

/** The views, in the rail's order. */
export const VIEWS = [
  { id: 'search', label: 'Search', key: 's', icon: '⌕' },
  { id: 'profiles', label: 'Profiles', key: 'p', icon: '◉' },
  { id: 'comments', label: 'Comments', key: 'c', icon: '❝' },
  { id: 'watchlists', label: 'Watchlists', key: 'w', icon: '◷' },
  { id: 'collect', label: 'Collect', key: 'o', icon: '⇶' },
  { id: 'library', label: 'Library', key: 'l', icon: '▤' },
  { id: 'analysis', label: 'Analysis', key: 'a', icon: '∑' },
  { id: 'usage', label: 'Usage', key: 'u', icon: '¢' },
  { id: 'explorer', label: 'Explorer', key: 'e', icon: '⌘' },
  { id: 'settings', label: 'Settings', key: ',', icon: '⚙' },
] as const;
export type ViewId = (typeof VIEWS)[number]['id'];

export type MenuPlace = 'file' | 'view' | 'help';

export interface CommandDef {
  readonly id: string;
  /** what the palette (and, unless `menu.label` says otherwise, the menu) calls it */
  readonly title: string;
  /** the keys the page handles for it (first one: what the menu shows and presses) */
  readonly keys?: readonly string[];
  /** listed in the command palette */
  readonly palette: boolean;
  /** the `?` help's words for what the keys do (commands with keys and no help are listed by title) */
  readonly help?: string;
  /** its item in the native menu: where, under which words, and (for a command without keys) whose keys the item presses */
  readonly menu?: { readonly place: MenuPlace; readonly label?: string; readonly macLabel?: string; readonly via?: string };
  /** who runs it: the page, or the main process (a menu item that opens a folder) */
  readonly runs: 'page' | 'main';
  /** its keys work everywhere: while typing, over a dialog or the palette */
  readonly anywhere?: boolean;
}

const viewCommands = VIEWS.map((v, i): CommandDef & { id: `go-${ViewId}`; runs: 'page' } => ({
  id: `go-${v.id}`,
  title: `Go to ${v.label}`,
  keys: [`g ${v.key}`, ...(viewNumberKey(i) !== null ? [`Alt+${viewNumberKey(i)}`] : [])],
  palette: true,
  menu: { place: 'view', label: v.label },
  runs: 'page',
}));

export const COMMANDS = [
  {
    id: 'palette',
    title: 'Command palette',
    keys: ['Mod+k'],
    palette: false,
    help: 'command palette: every view and action',
    menu: { place: 'view', label: 'Command Palette…' },
    runs: 'page',
    anywhere: true,
  },
  ...viewCommands,
  {
    id: 'focus-query',
    title: 'Focus the query field',
    keys: ['/'],
    palette: true,
    help: 'focus the view’s main query field',
    runs: 'page',
  },
  {
    id: 'cursor-down',
    title: 'Move the table cursor down',
    keys: ['j', 'ArrowDown'],
    palette: false,
    help: 'move the table cursor down',
    runs: 'page',
  },
  {
    id: 'cursor-up',
    title: 'Move the table cursor up',
    keys: ['k', 'ArrowUp'],
    palette: false,
    help: 'move the table cursor up',
    runs: 'page',
  },
  {
    id: 'open-row',
    title: 'Open the row in the details drawer',
    keys: ['Enter'],
    palette: false,
    help: 'open the row in the details drawer (focus moves into it)',
    runs: 'page',
  },
  {
    id: 'tag-item',
    title: 'Tag the item',
    keys: ['t'],
    palette: false,
    help: 'tag the item: the drawer’s tag field (it opens on the cursor’s row)',
    runs: 'page',
  },
  {
    id: 'note-item',
    title: 'Note the item',
    keys: ['n'],
    palette: false,
    help: 'note the item: the drawer’s note field (it opens on the cursor’s row)',
    runs: 'page',
  },
  { id: 'bg', title: 'Show background work (walks, runs)', palette: true, runs: 'page' },
  { id: 'refresh-balance', title: 'Refresh credit balance (free)', palette: true, runs: 'page' },
  { id: 'refresh-catalogue', title: 'Reload the endpoint catalogue (free)', palette: true, runs: 'page' },
  { id: 'theme-dark', title: 'Theme: dark', palette: true, runs: 'page' },
  { id: 'theme-light', title: 'Theme: light', palette: true, runs: 'page' },
  { id: 'theme-system', title: 'Theme: follow the system', palette: true, runs: 'page' },
  { id: 'new-watchlist', title: 'New watchlist', palette: true, runs: 'page' },
  { id: 'new-plan', title: 'Collect from a list (new plan)', palette: true, runs: 'page' },
  {
    id: 'add-key',
    title: 'Add an API key',
    palette: true,
    menu: { place: 'file', label: 'Settings', macLabel: 'Settings…', via: 'go-settings' },
    runs: 'page',
  },
  {
    id: 'export',
    title: 'Export the library view',
    palette: true,
    menu: { place: 'file', label: 'Export from the Library…', via: 'go-library' },
    runs: 'page',
  },
  { id: 'manage-tags', title: 'Manage tags (rename, merge, delete, colour)', palette: true, runs: 'page' },
  { id: 'analyse', title: 'Analyse the Library’s filters (frequency, compare, charts)', palette: true, runs: 'page' },
  { id: 'keys-help', title: 'Keyboard shortcuts', keys: ['?'], palette: true, help: 'this list', runs: 'page' },
  {
    id: 'close',
    title: 'Close the details drawer',
    keys: ['Escape'],
    palette: true,
    help: 'close a dialog, the palette, the background panel, then the drawer (from a drawer field: back to the drawer; then to the row)',
    runs: 'page',
    anywhere: true,
  },
  { id: 'open-exports', title: 'Open the Exports Folder', palette: false, menu: { place: 'file' }, runs: 'main' },
  { id: 'open-data', title: 'Show the Data Folder', palette: false, menu: { place: 'file' }, runs: 'main' },
  { id: 'about', title: 'About Loupe', palette: false, menu: { place: 'help' }, runs: 'main' },
  { id: 'help-data', title: 'Show the Data Folder', palette: false, menu: { place: 'help' }, runs: 'main' },
] as const satisfies readonly CommandDef[];

export type CommandId = (typeof COMMANDS)[number]['id'] | `go-${ViewId}`;
/** The commands the page runs (each needs a `run` in the page). */
export type PageCommandId = Exclude<CommandId, Extract<(typeof COMMANDS)[number], { runs: 'main' }>['id']>;

export const commandById = (id: string): CommandDef | undefined => (COMMANDS as readonly CommandDef[]).find((c) => c.id === id);

/** The key a keydown names, as COMMANDS writes keys (`Mod+k`, `Alt+1`, `/`, `ArrowDown`). */
export function keyOf(e: { key: string; code?: string; ctrlKey: boolean; metaKey: boolean; altKey: boolean }): string {
  if (e.ctrlKey || e.metaKey) return `Mod+${e.key.toLowerCase()}`;
  // the digit itself, or the key's place where Alt makes another character of it (macOS: Alt+1 is ¡)
  if (e.altKey) return `Alt+${/^[0-9]$/.test(e.key) ? e.key : /^Digit[0-9]$/.test(e.code ?? '') ? (e.code ?? '').slice(5) : e.key}`;
  return e.key;
}

/** Every key (and first key of a sequence) → its command. Two commands never share one (a test keeps it so). */
export function keyTable(): Map<string, CommandDef> {
  const t = new Map<string, CommandDef>();
  for (const c of COMMANDS as readonly CommandDef[]) for (const k of c.keys ?? []) t.set(k, c);
  return t;
}

const SHOWN: Record<string, string> = { ArrowDown: '↓', ArrowUp: '↑', Escape: 'Esc', Enter: 'Enter' };
/** A key as the help shows it (`Mod+k` → `Ctrl/⌘ K`, `Alt+1` → `Alt 1`). */
export function shownKey(k: string): string {
  if (k.startsWith('Mod+')) return `Ctrl/⌘ ${k.slice(4).toUpperCase()}`;
  if (k.startsWith('Alt+')) return `Alt ${k.slice(4)}`;
  return SHOWN[k] ?? k;
}

/** `Alt 1 … Alt 9, Alt 0`: the views' number keys, a run of digits shown by its ends. */
function altRange(alts: string[]): string {
  const digits = alts.map((k) => k.slice(4));
  const run = digits.filter((d) => d !== '0');
  const parts = run.length > 2 ? [`Alt ${run[0]} … Alt ${run[run.length - 1]}`] : run.map((d) => `Alt ${d}`);
  if (digits.includes('0')) parts.push('Alt 0');
  return parts.join(', ');
}

/**
 * The `?` help's lines: the views' keys in two lines (letters, numbers), then every other command
 * with keys, in the list's order.
 */
export function helpLines(): Array<[string, string]> {
  const all = COMMANDS as readonly CommandDef[];
  const views = all.filter((c) => c.id.startsWith('go-'));
  const seqs = views.map((c) => c.keys?.find((k) => k.startsWith('g ')) ?? '').filter(Boolean);
  const alts = views.flatMap((c) => c.keys?.filter((k) => k.startsWith('Alt+')) ?? []);
  const lines: Array<[string, string]> = [];
  for (const c of all) {
    if (c.id.startsWith('go-') || !c.keys?.length) continue;
    lines.push([c.keys.map(shownKey).join(' or '), c.help ?? c.title]);
    if (c.id === 'palette') {
      lines.push([seqs.join(' · '), `go to ${views.map((v) => v.menu?.label ?? v.title).join(', ')}`]);
      if (alts.length) lines.push([altRange(alts), 'the same views by number']);
    }
  }
  return lines;
}
