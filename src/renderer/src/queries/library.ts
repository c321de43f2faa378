/** Library writes: tags, notes, label overrides, saved result sets — each refreshes the library's queries. */
import { useQueryClient } from '@tanstack/react-query';
import type { ItemRefInput, MethodInput } from '../../../shared/contract';
import type { LibraryQuery } from '../../../shared/query';
import { api } from '../lib/api';
import { invalidate } from './keys';

/** an override without its item: the same value set on every item given */
export type OverrideValue = Omit<MethodInput<'library.override'>, 'item'>;

export function useLibraryWrites() {
  const qc = useQueryClient();
  const done = <T>(p: Promise<T>): Promise<T> =>
    p.then((v) => {
      invalidate(qc, 'library');
      return v;
    });
  return {
    tagItems: (items: ItemRefInput[], tag: string) => done(api.call('library.tag', { items, tag })),
    untagItems: (items: ItemRefInput[], tag: string) => done(api.call('library.tag', { items, tag, remove: true })),
    /** every row matching the query (not only the loaded ones) */
    tagQuery: (query: LibraryQuery, tag: string) => done(api.call('library.tagQuery', { query, tag })),
    setNote: (items: ItemRefInput[], note: string | null) =>
      done(Promise.all(items.map((item) => api.call('library.note', { item, note })))),
    override: (items: ItemRefInput[], o: OverrideValue) =>
      done(Promise.all(items.map((item) => api.call('library.override', { item, ...o })))),
    saveResultSet: (name: string, query: LibraryQuery) => done(api.call('library.saveResultSet', { name, query })),
  };
}
