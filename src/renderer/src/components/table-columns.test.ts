/**
 * Issue 13: the table, cards and drawer show a row's extracted columns (the archive's, from
 * src/shared/record-fields.ts) — never their own reading of `record`. The record below says
 * something else in every field, so a cell that read it would show the wrong thing.
 */
import fc from 'fast-check';
import { createElement, Fragment, type ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { LibraryListRow, LibraryRow } from '../../../shared/query';
import { displayAuthor, displayText, displayTitle } from '../lib/records';
import { abbreviate, relative } from '../lib/format';
import {
  CELL_FONT_PX,
  CELL_PADDING_PX,
  FIT_STEP_PX,
  FIT_STEPS,
  fitClass,
  gridCell,
  sortRows,
  tableColumns,
  boundedGlyphs,
  glyphsWithinBounds,
  textWidthBound,
  toggleKey,
  unclippedRule,
  type CellCtx,
  type Column,
} from './table-columns';

/** a list row that still carries a record (a full row's), to show no cell reads it */
const row = (over: Partial<LibraryRow & LibraryListRow> = {}): LibraryRow & LibraryListRow => ({
  platform: 'forum_net',
  kind: 'post',
  id: '1',
  record: {
    content: { text: 'RECORD TEXT' },
    author: { username: 'record_user', followers: 1 },
    published_at: '2001-01-01T00:00:00Z',
    engagement: { likes: 1 },
    flags: {},
  },
  tags: [],
  note: null,
  overrides: {},
  firstSeenAt: 0,
  lastSeenAt: 0,
  seenCount: 1,
  publishedAt: Date.parse('2024-05-01T10:00:00Z'),
  author: { id: '9', username: null, displayName: 'Column Name' },
  text: 'Column text \u202Eevil',
  url: null,
  lang: null,
  postKind: null,
  parentId: null,
  engagement: { views: null, likes: 4321, comments: 0, shares: null, saves: null },
  hiddenCounts: ['views'],
  followers: 98765,
  title: 'Column title',
  labels: null,
  relevance: null,
  thumbnailUrl: null,
  ...over,
});

const ctx: CellCtx = {
  depth: 0,
  kids: 0,
  collapsed: false,
  selected: false,
  threaded: false,
  unavailable: undefined,
  onToggleReplies: () => {},
};
const html = (n: ReactNode) => renderToStaticMarkup(createElement(Fragment, null, n));
/** a row's grid cell of one column, as the table draws it */
const drawn = (c: Column, r: LibraryListRow, x: CellCtx = ctx) => html(gridCell(c, r, x));

describe('the table shows the row’s columns', () => {
  const cols = Object.fromEntries(tableColumns('library', false).map((c) => [c.id, c]));

  it('text, author, date, counts, hidden counts and followers', () => {
    const r = row();
    expect(drawn(cols.text, r)).toContain('Column text ⟨RLO⟩evil'); // bidi controls shown, at render time
    expect(drawn(cols.author, r)).toContain('Column Name');
    expect(drawn(cols.published, r)).toContain('title="2024-05-01 10:00 UTC"');
    expect(drawn(cols.likes, r)).toContain('title="4,321"');
    expect(drawn(cols.comments, r)).toContain('>0<'); // zero is a count
    expect(drawn(cols.views, r)).toContain('Hidden by the owner');
    expect(drawn(cols.shares, r)).not.toContain('Hidden by the owner');
    expect(drawn(cols.followers, r)).toContain('98,765');
    for (const c of Object.values(cols)) expect(drawn(c, r)).not.toMatch(/RECORD TEXT|record_user|2001-01-01/);
  });

  it('a cell of one piece of text is the grid cell alone, its width from the table (issue 30: cheap rows)', () => {
    const r = row({ tags: ['a', 'b'], note: 'n', labels: { sentiment: { label: 'positive', p: 0.9 } } });
    for (const id of ['text', 'platform', 'kind', 'published', 'likes', 'comments', 'views', 'shares', 'followers', 'tags', 'firstSeen']) {
      const h = drawn(cols[id], r);
      expect(h.match(/<[a-z]/g), id).toHaveLength(1); // one element: the cell
      expect(h, id).toMatch(new RegExp(`^<div class="td c-${id}[ "]`));
      expect(h, id).not.toContain('style=');
    }
    expect(drawn(cols.text, r)).toMatch(/^<div[^>]* dir="auto"/); // isolated, as a <bdi>
    expect(drawn(cols.views, r)).toContain('aria-label="Hidden by the owner"'); // "—" says why
    expect(drawn(cols.shares, r)).toContain('aria-label="Not provided by this network"');
    expect(drawn(cols.tags, r)).toContain('>a, b ✎<');
    // the label chips sit in their cell, no container around them, on one line of text (`chipline`, not flex items)
    expect(drawn(cols.labels, r)).toMatch(/^<div class="td c-labels chipline" role="gridcell"><span class="chip tone-pos"/);
    // threaded rows keep the twisty and the reply mark
    expect(drawn(cols.text, r, { ...ctx, threaded: true, kids: 2 })).toContain('Hide 2 replies');
    expect(drawn(cols.text, r, { ...ctx, depth: 1 })).toContain('↳');
  });

  it('a row’s checkbox is a role="checkbox" element, not an <input>: in the tab order, its state said, Space toggles it', () => {
    const select = tableColumns('library', true)[0];
    expect(select.id).toBe('select');
    for (const selected of [false, true]) {
      const h = drawn(select, row(), { ...ctx, selected });
      expect(h).not.toContain('<input');
      expect(h).toMatch(
        new RegExp(
          `^<div class="td c-select" role="gridcell"><span class="rowcheck" role="checkbox" aria-checked="${selected}" aria-label="Select row" tabindex="0" data-testid="row-select"></span></div>$`,
        ),
      );
    }
    const k = (key: string, more: Partial<Pick<KeyboardEvent, 'repeat' | 'ctrlKey' | 'metaKey' | 'altKey'>> = {}) =>
      toggleKey({ key, repeat: false, ctrlKey: false, metaKey: false, altKey: false, ...more });
    expect([k(' '), k('Enter'), k('x'), k(' ', { repeat: true }), k(' ', { ctrlKey: true }), k(' ', { altKey: true })]).toEqual([
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('no text: the placeholder; sorting compares the same columns', () => {
    expect(drawn(cols.text, row({ text: null }))).toContain('(no text)');
    const a = row({ id: 'a', publishedAt: 1, followers: null });
    const b = row({ id: 'b', publishedAt: 2, followers: 5 });
    expect(sortRows([a, b], cols.published, true).map((r) => r.id)).toEqual(['b', 'a']);
    expect(sortRows([b, a], cols.followers, false).map((r) => r.id)).toEqual(['b', 'a']); // unknown last
  });

  it('the drawer and cards read the same helpers', () => {
    const r = row();
    expect(displayText(r)).toBe('Column text ⟨RLO⟩evil');
    expect(displayAuthor(r)).toBe('Column Name');
    expect(displayAuthor(row({ author: { id: null, username: 'u', displayName: 'D' } }))).toBe('u');
    expect(displayTitle(r)).toBe('Column title');
    expect(displayTitle(row({ title: null }))).toBe('');
  });
});

describe('cells drawn without a clip only where their text surely fits (issue 30: cheap rows)', () => {
  const cols = Object.fromEntries(tableColumns('library', true).map((c) => [c.id, c]));
  /** the unclipped steps a column's rule names (`f<k>`), or 'all' */
  const steps = (c: Column, width: number): Set<number> | 'all' => {
    const rule = unclippedRule('rt1', c, width);
    if (c.fits) return rule.includes(`.rt1 .td.c-${c.id}{overflow:visible}`) ? 'all' : new Set();
    return new Set([...rule.matchAll(new RegExp(`\\.rt1 \\.td\\.c-${c.id}\\.f(\\d+)`, 'g'))].map((m) => Number(m[1])));
  };

  it('a text is bounded character by character; a longer text never has a smaller bound', () => {
    expect(textWidthBound('')).toBe(0);
    expect(textWidthBound('12.3k')).toBeCloseTo((0.7 * 4 + 0.5) * CELL_FONT_PX); // k is lower case
    expect(textWidthBound('—')).toBeCloseTo(1.05 * CELL_FONT_PX);
    expect(textWidthBound('MW')).toBeCloseTo(2.1 * CELL_FONT_PX);
    expect(textWidthBound('caf\u00e9')).toBe(Infinity); // outside the characters bounded here
    expect(textWidthBound('a\u202Eb')).toBe(Infinity);
    expect(textWidthBound('x'.repeat(400))).toBe(Infinity);
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.string({ maxLength: 4 }), (a, b) => {
        const ab = textWidthBound(a + b);
        expect(ab).toBeGreaterThanOrEqual(textWidthBound(a));
        const cls = fitClass(a);
        if (textWidthBound(a) === Infinity) expect(cls).toBe('');
        else expect(Number(cls.slice(2)) * FIT_STEP_PX).toBeGreaterThanOrEqual(textWidthBound(a));
      }),
    );
  });

  it('a column lifts the clip of exactly the steps its width holds beside the padding', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('platform', 'kind', 'published', 'views', 'likes', 'tags', 'text', 'author'),
        fc.integer({ min: 40, max: 600 }),
        (id, w) => {
          const s = steps(cols[id], w) as Set<number>;
          for (let k = 0; k <= FIT_STEPS + 2; k++)
            expect(s.has(k), `f${k} at ${w}px`).toBe(k <= FIT_STEPS && k * FIT_STEP_PX <= w - CELL_PADDING_PX);
        },
      ),
    );
    expect(steps(cols.select, 36)).toBe('all'); // a checkbox in a fixed 36 px
    expect(drawn(cols.author, row())).toMatch(/class="td c-author flat f\d+" role="gridcell" dir="auto"/); // flat, isolated, bounded
    expect(drawn(cols.labels, row())).not.toMatch(/ f\d/); // not a flat cell: no step class, so always clipped
    expect(unclippedRule('rt1', cols.views, 15)).toBe(''); // narrower than its padding
  });

  it('counts, dates and short words are drawn with their bound; a cell whose text may not fit has none', () => {
    const r = row({ engagement: { views: 1234, likes: 98_765, comments: 0, shares: null, saves: null }, hiddenCounts: [], tags: [] });
    expect(drawn(cols.likes, r)).toMatch(/class="td c-likes right flat num f\d+"/);
    expect(drawn(cols.shares, r)).toMatch(/class="td c-shares right flat null f\d+"/); // "—"
    expect(drawn(cols.tags, r)).toMatch(/class="td c-tags flat muted f0"/);
    expect(drawn(cols.text, r)).toMatch(/class="td c-text flat"/); // bidi controls: unbounded
    expect(drawn(cols.text, row({ text: 'x'.repeat(200) }))).toMatch(/class="td c-text flat"/);
    // every count and relative time fits its column at the column's own width
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999_999_999 }), fc.integer({ min: 0, max: 20 * 365 * 86_400_000 }), (n, ago) => {
        const count = textWidthBound(abbreviate(n));
        expect(count + CELL_PADDING_PX).toBeLessThanOrEqual(cols.views.size);
        expect(textWidthBound(relative(Date.now() - ago, Date.now()))).toBeLessThan(Infinity);
      }),
    );
  });
});

describe('the glyph bounds against the page font', () => {
  const glyphs = boundedGlyphs();
  const all = glyphs.flatMap((g) => g.chars);
  /** a font: each bounded character's advance in em, drawn up to `most` × its class's bound */
  const font = (most: number) =>
    fc.tuple(...all.map(() => fc.double({ min: 0.05, max: most, noNaN: true }))).map((ks) => {
      const em = new Map<string, number>();
      let i = 0;
      for (const g of glyphs) for (const ch of g.chars) em.set(ch, g.em * ks[i++]);
      return (ch: string): number | null => (em.get(ch) ?? 0) * CELL_FONT_PX;
    });

  it('a font within the bounds never draws a bounded text wider than textWidthBound says', () => {
    fc.assert(
      fc.property(font(1), fc.array(fc.constantFrom(...all), { maxLength: 60 }), (widthOf, chars) => {
        expect(glyphsWithinBounds(CELL_FONT_PX, widthOf)).toBe(true);
        const text = chars.join('');
        const drawn = chars.reduce((sum, ch) => sum + (widthOf(ch) ?? 0), 0);
        expect(drawn).toBeLessThanOrEqual(textWidthBound(text) + 1e-9);
      }),
    );
  });

  it('a font with one glyph past its bound, another size, or no measure keeps every clip', () => {
    fc.assert(
      fc.property(font(1), fc.constantFrom(...all), fc.double({ min: 1.001, max: 3, noNaN: true }), (base, wide, k) => {
        const g = glyphs.find((x) => x.chars.includes(wide))!;
        const widthOf = (ch: string) => (ch === wide ? g.em * k * CELL_FONT_PX : base(ch));
        expect(glyphsWithinBounds(CELL_FONT_PX, widthOf)).toBe(false);
        expect(glyphsWithinBounds(CELL_FONT_PX + 1, base)).toBe(false);
        expect(glyphsWithinBounds(CELL_FONT_PX, (ch) => (ch === wide ? null : base(ch)))).toBe(false);
      }),
    );
    // Verdana's '%' is ~1.076 em: past the 1.05 em bound of its class
    expect(glyphsWithinBounds(CELL_FONT_PX, (ch) => (ch === '%' ? 1.076 * CELL_FONT_PX : 0.3 * CELL_FONT_PX))).toBe(false);
  });

  it('where the page font is not within the bounds, only columns that always fit lose their clip', () => {
    for (const c of [...tableColumns('library', false), ...tableColumns('library', true)]) {
      const rule = unclippedRule('rt1', c, 400, false);
      expect(rule === '' || c.fits === true).toBe(true);
    }
  });
});
