/**
 * The page's global keys, from the one list of commands (src/shared/commands.ts): Ctrl/Cmd+K the
 * palette, `g` then a view's letter, Alt+1…9 and Alt+0 the views by number
 * (src/shared/view-keys.ts, the native menu's accelerators too), `/` the query field, `?` the
 * shortcuts, j/k/↑/↓ the table cursor, Enter the drawer, t / n the drawer's tag and note fields
 * (components/drawer-focus.ts), Esc closes — each key looked up in the
 * registry and run by its command's run (./commands.ts).
 *
 * Installed when the page's code first runs, before React draws anything (main.tsx): a key pressed
 * while the first view is still being drawn is not lost — the store takes it and the frame shows
 * its result when it is drawn (a busy machine can take seconds to draw the first frame).
 */
import { keyOf, keyTable, type CommandDef } from '../../shared/commands';
import { focusQuery, isTyping, keyRuns, type KeyedCommandId, type Run } from './commands';
import { useUi } from './stores/ui';

export { focusQuery, isTyping };

/** How long after `g` its second key still counts. */
const G_WINDOW_MS = 1200;

/** The key handler over some commands' runs: a keystroke → its command in the registry (sequences such as `g s` included). */
export function keyHandler(runs: Partial<Record<string, Run>>): { onKey: (e: KeyboardEvent) => void; dispose: () => void } {
  const table = keyTable();
  const prefixes = new Set([...table.keys()].filter((k) => k.includes(' ')).map((k) => k.split(' ')[0]));
  let pending: string | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const fire = (c: CommandDef | undefined, e: KeyboardEvent): boolean => {
    const run = c && c.runs === 'page' ? runs[c.id] : undefined;
    if (!run || run(e) === false) return false;
    e.preventDefault();
    return true;
  };
  const onKey = (e: KeyboardEvent): void => {
    const ui = useUi.getState();
    const key = keyOf(e);
    const c = table.get(key);
    if (c?.anywhere) {
      fire(c, e);
      return;
    }
    if (ui.confirm || ui.paletteOpen || ui.dialog || ui.helpOpen) return;
    if (key.startsWith('Alt+') && c) {
      fire(c, e);
      return;
    }
    if (isTyping(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
    if (pending !== null) {
      const seq = `${pending} ${e.key}`;
      pending = null;
      if (fire(table.get(seq), e)) return;
    }
    if (prefixes.has(e.key)) {
      pending = e.key;
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => (pending = null), G_WINDOW_MS);
      return;
    }
    fire(c, e);
  };
  return { onKey, dispose: () => void (timer && clearTimeout(timer)) };
}

/** The global key handler, for `target` (the window); returns its removal. */
export function installGlobalKeys(
  target: Pick<Window, 'addEventListener' | 'removeEventListener'> = window,
  runs: Record<KeyedCommandId, Run> = keyRuns(),
): () => void {
  const keys = keyHandler(runs);
  const onKey = (e: Event): void => keys.onKey(e as KeyboardEvent);
  target.addEventListener('keydown', onKey);
  return () => {
    keys.dispose();
    target.removeEventListener('keydown', onKey);
  };
}
