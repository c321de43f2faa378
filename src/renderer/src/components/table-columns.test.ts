/**
 * Issue 13: the table, cards and drawer show a row's extracted columns (the archive's, from
 * src/shared/record-fields.ts) — never their own reading of `record`. The record below says
 * something else in every field, so a cell that read it would show the wrong thing.
 */
import { createElement, Fragment, type ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { LibraryListRow, LibraryRow } from '../../../shared/query';
import { displayAuthor, displayText, displayTitle } from '../lib/records';
import { sortRows, tableColumns, type CellCtx } from './table-columns';

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
  onSelect: () => {},
  onToggleReplies: () => {},
};
const html = (n: ReactNode) => renderToStaticMarkup(createElement(Fragment, null, n));

describe('the table shows the row’s columns', () => {
  const cols = Object.fromEntries(tableColumns('library', false).map((c) => [c.id, c]));

  it('text, author, date, counts, hidden counts and followers', () => {
    const r = row();
    expect(html(cols.text.cell(r, ctx))).toContain('Column text ⟨RLO⟩evil'); // bidi controls shown, at render time
    expect(html(cols.author.cell(r, ctx))).toContain('Column Name');
    expect(html(cols.published.cell(r, ctx))).toContain('2024-05-01T10:00:00.000Z');
    expect(html(cols.likes.cell(r, ctx))).toContain('title="4,321"');
    expect(html(cols.comments.cell(r, ctx))).toContain('>0<'); // zero is a count
    expect(html(cols.views.cell(r, ctx))).toContain('Hidden by the owner');
    expect(html(cols.shares.cell(r, ctx))).not.toContain('Hidden by the owner');
    expect(html(cols.followers.cell(r, ctx))).toContain('98,765');
    for (const c of Object.values(cols)) expect(html(c.cell(r, ctx))).not.toMatch(/RECORD TEXT|record_user|2001-01-01/);
  });

  it('no text: the placeholder; sorting compares the same columns', () => {
    expect(html(cols.text.cell(row({ text: null }), ctx))).toContain('(no text)');
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
