/** The Library's query (its filter bar's state): shared by the Library and the views that open it with a query (Analysis click-throughs). */
import { create } from 'zustand';
import type { LibraryQuery } from '../../../shared/query';

interface LibState {
  q: LibraryQuery;
  set: (q: LibraryQuery) => void;
}
/**
 * The Library's order when none is chosen: newest published first, as the archive and
 * `loupe library` sort by default (docs/archive.md "sort"), shown on the Published column.
 */
export const DEFAULT_LIBRARY_SORT: NonNullable<LibraryQuery['sort']> = { field: 'published_at', dir: 'desc' };

export const useLibrary = create<LibState>((set) => ({ q: { sort: DEFAULT_LIBRARY_SORT }, set: (q) => set({ q }) }));

/** The query without paging and sort: what a count, a chart or an analysis takes. */
export function withoutPaging(q: LibraryQuery): LibraryQuery {
  const { after: _a, limit: _l, sort: _s, ...rest } = q;
  return rest;
}
