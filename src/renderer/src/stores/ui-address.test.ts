/** Issue 30 "Opening": an address names the view the app opens on (`…?token=…#library`). */
import { describe, expect, it } from 'vitest';
import { VIEWS, viewOfAddress } from './ui';

describe('the view an address names', () => {
  it('every view by its id; anything else opens Search', () => {
    for (const v of VIEWS) expect(viewOfAddress(`#${v.id}`)).toBe(v.id);
    for (const h of ['', '#', '#Library', '#library/x', '#nope', 'library'])
      expect(viewOfAddress(h)).toBe(h === 'library' ? 'library' : 'search');
  });
});
