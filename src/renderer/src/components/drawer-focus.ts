/**
 * The keyboard into and out of the item drawer (issue 27 #6). Opening the drawer moves focus into
 * it (the drawer itself, so j / k keep moving through the rows); `t` focuses the tag field and `n`
 * the note (opening the drawer on the cursor's row first when it is closed); Esc in one of the
 * drawer's fields goes back to the drawer (what was typed stays), Esc on the drawer closes it and
 * focus returns to the row it showed — or, without a table, to what opened it.
 */
import { useUi, type DrawerField } from '../stores/ui';

const FIELD: Record<DrawerField, string> = { tag: '[data-testid="drawer-tag"]', note: '[data-testid="drawer-note"]' };

export function drawerElement(): HTMLElement | null {
  return typeof document === 'undefined' ? null : document.querySelector<HTMLElement>('[data-testid="drawer"]');
}

/** Focuses a field of the drawer on screen; false when the drawer (or its body) is not drawn yet. */
export function focusDrawerField(field: DrawerField): boolean {
  const el = drawerElement()?.querySelector<HTMLElement>(FIELD[field]);
  if (!el) return false;
  el.focus();
  return true;
}

/**
 * `t` / `n` outside a text field: the drawer's tag or note field. With the drawer closed, the
 * cursor's row opens first and the field takes focus once the item is drawn (ui `drawerField`).
 * Returns whether the key was used.
 */
export function drawerFieldKey(key: string): boolean {
  const field: DrawerField | null = key === 't' ? 'tag' : key === 'n' ? 'note' : null;
  if (!field) return false;
  const ui = useUi.getState();
  if (ui.drawer) {
    if (!focusDrawerField(field)) ui.wantDrawerField(field);
    return true;
  }
  const row = ui.tableRows[ui.cursor];
  if (!row) return false;
  ui.openDrawer(row);
  ui.wantDrawerField(field);
  return true;
}

/** Esc typed in one of the drawer's fields: back to the drawer itself (the draft stays). */
export function escapeInsideDrawer(target: EventTarget | null): boolean {
  const drawer = drawerElement();
  if (!drawer || !(target instanceof Node) || target === drawer || !drawer.contains(target)) return false;
  drawer.focus();
  return true;
}

/** After the drawer closed: focus the table's cursor row, else what had focus when it opened. */
export function returnFocus(opener: Element | null): void {
  const row = document.querySelector<HTMLElement>('[data-testid="results-table"] [data-testid="result-row"].cursor');
  if (row) row.focus();
  else if (opener instanceof HTMLElement && opener.isConnected && opener !== document.body) opener.focus();
}
