/**
 * The number keys that go to a view with Alt, shared by the page (src/renderer/src/keys.ts, the
 * palette's hints, the rail's titles) and the native menu (src/main/menu.ts), so both mean the
 * same view: Alt+1 … Alt+9 for the first nine views of the rail, Alt+0 for the tenth.
 */

/** The number key (with Alt) for the view at `index` in the rail, or null past the tenth. */
export function viewNumberKey(index: number): string | null {
  if (!Number.isInteger(index) || index < 0 || index > 9) return null;
  return index === 9 ? '0' : String(index + 1);
}

/** The index in the rail of the view a number key goes to (Alt+1 → 0 … Alt+0 → 9), or -1. */
export function viewIndexOfNumberKey(key: string): number {
  if (!/^[0-9]$/.test(key)) return -1;
  return key === '0' ? 9 : Number(key) - 1;
}
