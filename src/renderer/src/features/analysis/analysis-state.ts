/**
 * The Analysis view's state and words: what it analyses (the scope: the Library's filters, a
 * saved result set, a watchlist, or everything), the open tab, the analyst's words for the
 * frequency fields (API names on hover), and the way back to the Library with a query.
 */
import { create } from 'zustand';
import type { FrequencyField, FrequencySort } from '../../../../shared/analysis';
import type { LibraryQuery } from '../../../../shared/query';
import { DEFAULT_LIBRARY_SORT, useLibrary, withoutPaging } from '../../stores/library';
import { useUi } from '../../stores/ui';
import { utc } from '../../lib/format';

export type Scope = { kind: 'library' } | { kind: 'all' } | { kind: 'set'; id: string } | { kind: 'watchlist'; id: string };
export const TABS = [
  { id: 'frequency', label: 'Frequency' },
  { id: 'compare', label: 'Compare' },
  { id: 'overperformance', label: 'Overperformance' },
  { id: 'charts', label: 'Charts' },
] as const;
export type TabId = (typeof TABS)[number]['id'];

interface AnalysisState {
  scope: Scope;
  setScope: (s: Scope) => void;
  tab: TabId;
  setTab: (t: TabId) => void;
  field: FrequencyField;
  setField: (f: FrequencyField) => void;
  sort: { by: FrequencySort; dir: 'asc' | 'desc' };
  setSort: (s: { by: FrequencySort; dir: 'asc' | 'desc' }) => void;
}

export const useAnalysis = create<AnalysisState>((set) => ({
  scope: { kind: 'library' },
  setScope: (scope) => set({ scope }),
  tab: 'frequency',
  setTab: (tab) => set({ tab }),
  field: 'hashtags',
  setField: (field) => set({ field }),
  sort: { by: 'count', dir: 'desc' },
  setSort: (sort) => set({ sort }),
}));

/** Frequency fields in an analyst's words; the API's name on hover. */
export const FIELD_WORDS: Record<FrequencyField, { label: string; term: string; hint: string }> = {
  hashtags: { label: 'Hashtags', term: 'Hashtag', hint: '#tags written in the text (field: hashtags)' },
  mentions: { label: 'Mentions', term: 'Mention', hint: '@accounts named in the text (field: mentions)' },
  authors: { label: 'Accounts', term: 'Account', hint: 'who posted: one row per account and network (field: authors)' },
  domains: { label: 'Linked sites', term: 'Site', hint: 'domains of the links written in the text (field: domains)' },
  emoji: { label: 'Emoji', term: 'Emoji', hint: 'emoji in the text (field: emoji)' },
  words: { label: 'Words', term: 'Word', hint: 'words, without stop words of the item’s language (field: words)' },
  bigrams: { label: 'Two-word phrases', term: 'Phrase', hint: 'two consecutive words (field: bigrams)' },
  trigrams: { label: 'Three-word phrases', term: 'Phrase', hint: 'three consecutive words (field: trigrams)' },
};
export const FIELD_ORDER = Object.keys(FIELD_WORDS) as FrequencyField[];

/** Opens the Library showing exactly the items of `query` (a row's or a mark's click-through). */
export function openInLibrary(query: LibraryQuery): void {
  const lib = useLibrary.getState();
  lib.set({ ...withoutPaging(query), sort: lib.q.sort ?? DEFAULT_LIBRARY_SORT });
  useUi.getState().setView('library');
}

/** Analyse the Library's current filters (the Library's "Analyse…" action). */
export function analyseLibrary(): void {
  useAnalysis.getState().setScope({ kind: 'library' });
  useUi.getState().setView('analysis');
}

const when = (v: string | number): string => {
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v)) return v;
  const ms = typeof v === 'number' ? v : Date.parse(v);
  return Number.isFinite(ms) ? utc(ms) : String(v);
};

/** A short description of what a query selects, in words (the scope line, a series' hover). */
export function describeQuery(q: LibraryQuery): string {
  const parts: string[] = [];
  if (q.platforms?.length) parts.push(q.platforms.join(' or '));
  if (q.kinds?.length) parts.push(q.kinds.map((k) => `${k}s`).join(' or '));
  if (q.languages?.length) parts.push(`in ${q.languages.join(' or ')}`);
  if (q.author) parts.push(`by ${q.author}`);
  if (q.text) parts.push(`text “${q.text}”`);
  if (q.since !== undefined) parts.push(`from ${when(q.since)}`);
  if (q.until !== undefined) parts.push(`before ${when(q.until)}`);
  if (q.labels?.length) parts.push(`${q.labels.length} label condition${q.labels.length === 1 ? '' : 's'}`);
  if (q.engagement?.length)
    parts.push(
      q.engagement
        .map((e) => `${e.field}${e.min !== undefined ? ` ≥ ${e.min}` : ''}${e.max !== undefined ? ` ≤ ${e.max}` : ''}`)
        .join(', '),
    );
  if (q.tags?.length) parts.push(`tagged ${q.tags.join(', ')}`);
  if (q.terms?.length) parts.push(`containing ${q.terms.map((t) => t.value).join(', ')}`);
  if (q.source) parts.push(`from ${q.source.type} ${q.source.id}`);
  if (q.relevanceMin !== undefined) parts.push(`relevance ≥ ${q.relevanceMin}`);
  if (q.hasNote !== undefined) parts.push(q.hasNote ? 'with a note' : 'without a note');
  if (q.thread) parts.push(`comments under ${q.thread.platform} post ${q.thread.id}`);
  return parts.length ? parts.join(' · ') : 'everything in the library';
}

/** Saves text as a file through the browser's download (Electron asks where to save it); the bytes as given. */
export function downloadText(name: string, text: string, type = 'text/csv;charset=utf-8'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export const pct = (x: number | null | undefined, digits = 1): string =>
  x === null || x === undefined ? '—' : `${(x * 100).toFixed(digits)} %`;
