/**
 * What the renderer the host serves must not do, checked on its sources (issue 14 #5): no
 * browser prompt()/alert()/confirm() — Electron does not implement prompt(), so such buttons do
 * nothing in the desktop app — and the Library's six asking actions use the in-app dialog.
 */
import { commandById } from '../shared/commands';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(__dirname, '..', 'renderer', 'src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f) ? [p] : [];
  });
}
const code = (f: string) => readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');

describe('renderer sources', () => {
  it('no prompt(), alert() or window.confirm() of the browser', () => {
    // a call, not the word in a sentence ("no alert (spikes are still flagged)")
    const offenders = files(SRC).filter((f) => /\b(window\.)?(prompt|alert)\(|window\.confirm\s*\(/.test(code(f)));
    expect(offenders).toEqual([]);
  });

  it('the Library asks through the in-app dialog: save set, tag all, tag, untag, note, override', () => {
    const lib = code(join(SRC, 'features', 'LibraryView.tsx'));
    // each action's dialog: asked directly, or through withTag (Tag and Untag share its askText)
    const asks = [...lib.matchAll(/(?:\.askText\(|\.askLabel\(|withTag\()\s*\{\s*title: [`']([^`'\n]*)/g)].map((m) => m[1]);
    for (const title of ['Save result set', 'Tag all ${', 'Tag ${n}', 'Remove a tag from', 'Note on', 'Override a label on'])
      expect(
        asks.some((t) => t.startsWith(title)),
        title,
      ).toBe(true);
    expect(lib).toMatch(/const withTag =\s*\([^\n]*\n\s*async \(\) => \{\n\s*const tag = await useUi\.getState\(\)\.askText\(/);
  });
});

describe('accessibility of the served renderer (issue 14 #11)', () => {
  it('each view gets one level-one heading (App)', () => {
    const app = readFileSync(join(SRC, 'App.tsx'), 'utf8');
    expect(app.match(/<h1 /g)?.length).toBe(1);
    // `?` opens the shortcuts (the one list of commands, src/shared/commands.ts; the page's keys run it)
    expect(commandById('keys-help')?.keys).toContain('?');
  });
});

function lum(h: string): number {
  const x = h.replace('#', '');
  const [r, g, b] = [0, 2, 4]
    .map((i) => parseInt(x.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
function contrast(a: string, b: string): number {
  const [x, y] = [lum(a), lum(b)].sort((m, n) => n - m);
  return (x + 0.05) / (y + 0.05);
}
/**
 * The palette's two themes: styles.css sets each colour once on :root, its light value then its dark
 * one (`var(--theme-light, #…) var(--theme-dark, #…)`), and the rules that turn dark on — the OS's
 * (unless Settings says light) and Settings' — turn on the same switch, so they get the same colours.
 */
function themes(): Array<Record<string, string>> {
  const css = readFileSync(join(SRC, 'styles.css'), 'utf8');
  const root = /:root\s*\{([^}]*)\}/.exec(css)?.[1] ?? '';
  const pairs = [...root.matchAll(/--([\w-]+):\s*var\(--theme-light, (#[0-9a-f]{6})\) var\(--theme-dark, (#[0-9a-f]{6})\);/gi)];
  const darkOn = /\{\s*--theme-light: ;\s*--theme-dark: initial;\s*color-scheme: dark;\s*\}/.source;
  expect(css).toMatch(new RegExp(`@media \\(prefers-color-scheme: dark\\)\\s*\\{\\s*:root:not\\(\\[data-theme='light'\\]\\)\\s*${darkOn}`));
  expect(css).toMatch(new RegExp(`:root\\[data-theme='dark'\\]\\s*${darkOn}`));
  return [Object.fromEntries(pairs.map((m) => [m[1], m[2]])), Object.fromEntries(pairs.map((m) => [m[1], m[3]]))];
}

describe('colour contrast (WCAG AA, 4.5:1)', () => {
  it('text, muted text and the active navigation label on every surface, light and dark', () => {
    const all = themes();
    expect(all.length).toBe(2); // light, dark (the OS's or chosen in Settings: one set of colours)
    for (const t of all) expect(Object.keys(t).length).toBeGreaterThan(20);
    const fails: string[] = [];
    for (const t of all) {
      const check = (fg: string, bg: string) => {
        if (!t[fg] || !t[bg]) return;
        const c = contrast(t[fg], t[bg]);
        if (c < 4.5) fails.push(`${fg} on ${bg}: ${c.toFixed(2)}`);
      };
      for (const bg of ['bg', 'panel', 'panel-2', 'cursor', 'selected']) for (const fg of ['text', 'muted']) check(fg, bg);
      // the active navigation label (was 4.43:1): its own colour, or the accent where none is set
      check(t['accent-strong'] ? 'accent-strong' : 'accent', 'accent-bg');
      check('neg', 'neg-bg');
      check('muted', 'neg-bg'); // the message under an error's cause
      check('on-strong', 'sandbox'); // the SANDBOX badge
      check('on-strong', 'neg'); // a danger button
      check('warn', 'warn-bg');
      check('pos', 'pos-bg');
      check('info', 'info-bg');
    }
    // every rule drawing on the accent background names a text colour that reads on it (issue 27 #16:
    // the Table/Cards toggle, the active watchlist and the chosen Explorer endpoint were 4.43:1)
    const css = readFileSync(join(SRC, 'styles.css'), 'utf8');
    for (const rule of css.matchAll(/([^{}]+)\{([^}]*background:\s*var\(--accent-bg\)[^}]*)\}/g)) {
      const color = /(?:^|;)\s*color:\s*var\(--([\w-]+)\)/.exec(rule[2])?.[1];
      for (const t of all)
        if (color && t[color] && t['accent-bg'] && contrast(t[color], t['accent-bg']) < 4.5)
          fails.push(`${rule[1].trim()}: ${color} on accent-bg ${contrast(t[color], t['accent-bg']).toFixed(2)}`);
    }
    expect(fails).toEqual([]);
  });
});

describe('speed an analyst feels (issue 14)', () => {
  it('the Library applies a select, a date or a column sort at once (no debounce on discrete controls); typed fields commit through DraftInput', () => {
    const lib = code(join(SRC, 'features', 'LibraryView.tsx'));
    expect(lib).not.toMatch(/useDebounced\(/);
    expect(lib).toMatch(/<DraftInput\s+value=\{q\.text(?:(?!\/>)[\s\S])*data-testid="library-text"/);
    expect(lib).not.toMatch(/<input\s(?:(?!\/>)[\s\S])*data-testid="library-text"/);
  });
});
