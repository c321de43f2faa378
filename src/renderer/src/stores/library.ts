/** The Library's query (its filter bar's state): shared by the Library and the views that open it with a query (Analysis click-throughs). */
import { create } from 'zustand';
import type { LibraryQuery } from '../../../shared/query';

interface LibState {
  q: LibraryQuery;
  set: (q: LibraryQuery) => void;
}
export const useLibrary = create<LibState>((set) => ({ q: { sort: { field: 'first_seen_at', dir: 'desc' } }, set: (q) => set({ q }) }));

/** The query without paging and sort: what a count, a chart or an analysis takes. */
export function withoutPaging(q: LibraryQuery): LibraryQuery {
  const { after: _a, limit: _l, sort: _s, ...rest } = q;
  return rest;
}
