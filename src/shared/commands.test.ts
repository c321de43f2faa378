import { describe, expect, it } from 'vitest';
import { COMMANDS, commandById, helpLines, keyOf, keyTable, shownKey, VIEWS, type CommandDef } from './commands';
import { viewNumberKey } from './view-keys';

const all = COMMANDS as readonly CommandDef[];

describe('the one list of commands (src/shared/commands.ts)', () => {
  it('ids are unique and no key belongs to two commands', () => {
    expect(new Set(all.map((c) => c.id)).size).toBe(all.length);
    const keys = all.flatMap((c) => c.keys ?? []);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keyTable().size).toBe(keys.length);
  });

  it('every key is one the handler can read; a sequence never starts with a key of its own', () => {
    const singles = new Set(all.flatMap((c) => c.keys ?? []).filter((k) => !k.includes(' ')));
    for (const k of all.flatMap((c) => c.keys ?? [])) {
      expect(k, k).toMatch(/^(Mod\+[a-z]|Alt\+[0-9]|[^ ]+|[a-z] [^ ])$/);
      if (k.includes(' ')) expect(singles.has(k.split(' ')[0]), k).toBe(false);
    }
    expect(keyOf({ key: 'K', ctrlKey: true, metaKey: false, altKey: false })).toBe('Mod+k');
    expect(keyOf({ key: '3', ctrlKey: false, metaKey: false, altKey: true })).toBe('Alt+3');
    expect(keyOf({ key: '¡', code: 'Digit1', ctrlKey: false, metaKey: false, altKey: true })).toBe('Alt+1'); // macOS
    expect(keyOf({ key: '/', ctrlKey: false, metaKey: false, altKey: false })).toBe('/');
  });

  it('every view has a go command: g + its letter, and Alt + its number key (Alt+0 the tenth)', () => {
    VIEWS.forEach((v, i) => {
      const c = commandById(`go-${v.id}`);
      expect(c?.keys, v.id).toContain(`g ${v.key}`);
      if (i < 10) expect(c?.keys, v.id).toContain(`Alt+${viewNumberKey(i)}`);
      expect(c?.palette).toBe(true);
      expect(c?.menu?.place).toBe('view');
    });
  });

  it('every command with keys is in the `?` help, under the keys it has', () => {
    const help = helpLines();
    const text = help.map(([k]) => k).join('\n');
    for (const c of all) {
      for (const k of c.keys ?? []) {
        if (k.startsWith('Alt+')) {
          // a run of number keys is shown by its ends (`Alt 1 … Alt 9, Alt 0`)
          const [, lo, hi] = /Alt (\d) … Alt (\d)/.exec(text) ?? [];
          const d = Number(k.slice(4));
          expect(text.includes(`Alt ${d}`) || (d >= Number(lo) && d <= Number(hi)), k).toBe(true);
        } else expect(text, `${c.id}: ${k}`).toContain(shownKey(k));
      }
    }
    for (const k of ['Ctrl/⌘ K', '/', 'Esc', 'Enter', '?']) expect(text).toContain(k);
    // and the help lists nothing the registry does not
    expect(help.length).toBe(all.filter((c) => c.keys?.length && !c.id.startsWith('go-')).length + 2);
  });

  it('every menu item the page runs has keys to press (its own, or the command it goes through)', () => {
    for (const c of all.filter((x) => x.menu && x.runs === 'page')) {
      const via = c.menu?.via ? commandById(c.menu.via) : undefined;
      if (c.menu?.via) expect(via, c.id).toBeDefined();
      expect((c.keys ?? via?.keys ?? []).length, c.id).toBeGreaterThan(0);
    }
    // what the main process runs has a menu place (there is no other way to reach it) and is not in the palette
    for (const c of all.filter((x) => x.runs === 'main')) {
      expect(c.menu, c.id).toBeDefined();
      expect(c.palette, c.id).toBe(false);
    }
  });

  it('every command is reachable: in the palette, by a key, or from the menu', () => {
    for (const c of all) expect(c.palette || (c.keys?.length ?? 0) > 0 || c.menu !== undefined, c.id).toBe(true);
  });
});
