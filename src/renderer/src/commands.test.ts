/** The page's keys and palette come from the one list of commands (src/shared/commands.ts). */
import { beforeEach, describe, expect, it } from 'vitest';
import { COMMANDS, type CommandDef, type PageCommandId } from '../../shared/commands';
import { keyRuns, paletteCommands, type Run } from './commands';
import { keyHandler } from './keys';
import { useUi } from './stores/ui';

const pageIds = (COMMANDS as readonly CommandDef[]).filter((c) => c.runs === 'page').map((c) => c.id as PageCommandId);

function spies(): { runs: Record<PageCommandId, Run>; ran: string[] } {
  const ran: string[] = [];
  const runs = Object.fromEntries(pageIds.map((id) => [id, () => void ran.push(id)])) as Record<PageCommandId, Run>;
  return { runs, ran };
}

const key = (k: string, mods: Partial<Pick<KeyboardEvent, 'ctrlKey' | 'metaKey' | 'altKey'>> = {}, tagName = 'DIV') => {
  const e = {
    key: k,
    ctrlKey: false,
    metaKey: false,
    altKey: false,
    ...mods,
    target: { tagName },
    defaultPrevented: false,
    preventDefault() {
      e.defaultPrevented = true;
    },
  };
  return e as unknown as KeyboardEvent & { defaultPrevented: boolean };
};

describe('the page’s keys, from the registry', () => {
  beforeEach(() => useUi.setState({ paletteOpen: false, helpOpen: false, dialog: null, confirm: null }));

  it('a key runs its command; a sequence runs its command; Alt+N and Ctrl/⌘ K too', () => {
    const { runs, ran } = spies();
    const { onKey, dispose } = keyHandler(runs);
    for (const e of [
      key('g'),
      key('s'),
      key('Alt+3'.slice(4), { altKey: true }),
      key('k', { metaKey: true }),
      key('?'),
      key('/'),
      key('j'),
      key('Escape'),
    ])
      onKey(e);
    dispose();
    expect(ran).toEqual(['go-search', 'go-comments', 'palette', 'keys-help', 'focus-query', 'cursor-down', 'close']);
  });

  it('over the palette or a dialog only the keys that work anywhere run; typing keeps plain keys', () => {
    const { runs, ran } = spies();
    const { onKey, dispose } = keyHandler(runs);
    useUi.setState({ paletteOpen: true });
    onKey(key('?'));
    onKey(key('Escape'));
    useUi.setState({ paletteOpen: false });
    onKey(key('j', {}, 'INPUT'));
    onKey(key('k', { ctrlKey: true }, 'INPUT'));
    // a results row's checkbox (role="checkbox", not an <input>) keeps them as the <input> did
    const box = key('j', {}, 'SPAN');
    Object.assign(box.target!, { getAttribute: (a: string) => (a === 'role' ? 'checkbox' : null) });
    onKey(box);
    dispose();
    expect(ran).toEqual(['close', 'palette']);
  });

  it('a command with nothing to do keeps the key’s default', () => {
    const { runs } = spies();
    const quiet = { ...runs, 'cursor-down': () => false } as Record<PageCommandId, Run>;
    const { onKey, dispose } = keyHandler(quiet);
    const e = key('j');
    onKey(e);
    const f = key('/');
    onKey(f);
    dispose();
    expect([e.defaultPrevented, f.defaultPrevented]).toEqual([false, true]);
  });

  it('every page command with keys has a run the keys reach before React draws (keyRuns)', () => {
    const keyed = (COMMANDS as readonly CommandDef[]).filter((c) => c.runs === 'page' && c.keys?.length).map((c) => c.id);
    expect(Object.keys(keyRuns()).sort()).toEqual([...keyed].sort());
  });

  it('the palette lists every palette command of the registry, with its keys as a hint', () => {
    const { runs, ran } = spies();
    const p = paletteCommands(runs);
    expect(p.map((c) => c.id)).toEqual((COMMANDS as readonly CommandDef[]).filter((c) => c.palette).map((c) => c.id));
    expect(p.find((c) => c.id === 'go-library')?.hint).toBe('g l · Alt 6');
    p.find((c) => c.id === 'theme-dark')?.run();
    expect(ran).toEqual(['theme-dark']);
  });
});
