/**
 * The page's global keys without a browser: `g` + a view's letter and Alt + its number go to every
 * view of the rail (the number keys the native menu shows). That they are installed before React
 * draws the first frame: src/main/units.test.ts (it reads the renderer's sources).
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { viewNumberKey } from '../../shared/view-keys';
import { installGlobalKeys } from './keys';
import { useUi, VIEWS } from './stores/ui';

type Listener = (e: unknown) => void;
let listeners: Listener[] = [];
let remove: () => void = () => {};
const target = {
  addEventListener: (_t: string, l: Listener) => void listeners.push(l),
  removeEventListener: (_t: string, l: Listener) => void (listeners = listeners.filter((x) => x !== l)),
} as unknown as Window;
const press = (key: string, mods: { alt?: boolean; code?: string } = {}): void => {
  const e = { key, code: mods.code ?? '', altKey: !!mods.alt, ctrlKey: false, metaKey: false, target: null, preventDefault: () => {} };
  for (const l of listeners) l(e);
};

beforeEach(() => {
  useUi.setState({ view: 'search', paletteOpen: false, helpOpen: false, confirm: null, dialog: null });
  remove = installGlobalKeys(target);
});
afterEach(() => remove());

describe('global keys', () => {
  it('`g` then a view’s letter, and Alt with its number, go to every view of the rail', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: VIEWS.length - 1 }), fc.integer({ min: 0, max: VIEWS.length - 1 }), (from, to) => {
        useUi.setState({ view: VIEWS[from].id });
        press('g');
        press(VIEWS[to].key);
        expect(useUi.getState().view).toBe(VIEWS[to].id);
        useUi.setState({ view: VIEWS[from].id });
        press(viewNumberKey(to)!, { alt: true });
        expect(useUi.getState().view).toBe(VIEWS[to].id);
      }),
    );
  });

  it('Collect is `g o` and Alt+5; Settings, the tenth, Alt+0 (also where Alt changes the character)', () => {
    press('g');
    press('o');
    expect(useUi.getState().view).toBe('collect');
    press('0', { alt: true });
    expect(useUi.getState().view).toBe('settings');
    press('¡', { alt: true, code: 'Digit5' });
    expect(useUi.getState().view).toBe('collect');
  });

  it('a letter without `g` before it goes nowhere; nor do keys while a dialog is open', () => {
    press('o');
    expect(useUi.getState().view).toBe('search');
    useUi.setState({ helpOpen: true });
    press('g');
    press('o');
    expect(useUi.getState().view).toBe('search');
  });
});
