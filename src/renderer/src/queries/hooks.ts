/** react-query hooks over the contract: one generic hook, plus the spend flow (price → confirm → run). */
import { useEffect, useState } from 'react';
import {
  infiniteQueryOptions,
  keepPreviousData,
  useInfiniteQuery,
  useQuery,
  useQueryClient,
  type QueryClient,
} from '@tanstack/react-query';
import type { BalanceInfo, MethodInput, MethodName, MethodOutput, Target } from '../../../shared/contract';
import type { LibraryListRow, LibraryPage, LibraryQuery } from '../../../shared/query';
import { spendStop } from '../../../shared/spend-policy';
import { api } from '../lib/api';
import { spendBalanceLines } from '../lib/balance';
import { creditRange, fmtExact } from '../lib/format';
import { useUi } from '../stores/ui';
import { queryKeys } from './keys';

export function useLoupe<K extends MethodName>(
  method: K,
  input: MethodInput<K>,
  opts: {
    enabled?: boolean;
    staleTime?: number;
    refetchInterval?: number | false | ((q: { state: { data: MethodOutput<K> | undefined } }) => number | false);
    keepPrevious?: boolean;
  } = {},
) {
  return useQuery<MethodOutput<K>>({
    queryKey: queryKeys.method(method, input),
    queryFn: () => api.call(method, input),
    enabled: opts.enabled ?? true,
    staleTime: opts.staleTime ?? 5_000,
    refetchInterval: opts.refetchInterval,
    placeholderData: opts.keepPrevious ? keepPreviousData : undefined,
  });
}

export const useInfo = () => useLoupe('app.info', {}, { staleTime: 30_000 });
export const useSettings = () => useLoupe('settings.get', {}, { staleTime: 60_000 });
export const useCatalogue = () => useLoupe('catalogue.get', { force: false }, { staleTime: Infinity });

/**
 * Keyset pages of library rows ("load more"), lean: no raw record per row (most of a page's bytes,
 * parsed on this thread while the table scrolls and kept for every loaded row); the drawer reads
 * the full record through `library.item`.
 */
export function useLibraryRows(query: LibraryQuery | null, pageSize = 200) {
  return useInfiniteQuery({ ...libraryRowsOptions(query, pageSize), enabled: query !== null, placeholderData: keepPreviousData });
}

/** The pages of useLibraryRows (the same key and request), for a prefetch. */
export function libraryRowsOptions(query: LibraryQuery | null, pageSize = 200) {
  return infiniteQueryOptions({
    queryKey: queryKeys.libraryRows(query, pageSize),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => listPage({ ...(query ?? {}), limit: pageSize, after: pageParam }),
    getNextPageParam: (last) => last.next ?? undefined,
    staleTime: 2_000,
  });
}

/**
 * An app opened on the Library (its address: `…#library`) asks for the first rows at once, while
 * the view's code is fetched and drawn (issue 30: the request went out only once the view was up).
 */
export function prefetchFirstView(qc: QueryClient, view: string, query: LibraryQuery): void {
  if (view === 'library') void qc.prefetchInfiniteQuery(libraryRowsOptions(query));
}

/** One lean page of `library.query` (`lean: true` answers LibraryListRow rows). */
export function listPage(query: LibraryQuery): Promise<LibraryPage<LibraryListRow>> {
  return api.call('library.query', { ...query, lean: true }) as Promise<LibraryPage<LibraryListRow>>;
}

export function useDebounced<T>(value: T, ms = 350): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

/** The price of a walk of `pages` pages, shown on the button before it is pressed. */
export function useWalkPrice(target: Target | null, pages: number) {
  const t = useDebounced(target);
  const q = useQuery({
    // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- the query runs only with a target (enabled); its key is built either way
    queryKey: queryKeys.method('api.estimateWalk', { target: t!, pages }),
    queryFn: () => api.call('api.estimateWalk', { target: t ?? noTarget(), pages }),
    enabled: !!t,
    staleTime: 60_000,
    retry: false,
  });
  return { ...q, text: q.data ? creditRange(q.data.creditsMin, q.data.creditsMax) : q.isError ? 'price unknown' : t ? 'pricing…' : '' };
}

/** The price of one call (free: dry_run or the archive). */
export function useCallPrice(target: Target | null) {
  const t = useDebounced(target);
  const q = useQuery({
    // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- the query runs only with a target (enabled); its key is built either way
    queryKey: queryKeys.method('api.quote', t!),
    queryFn: () => api.call('api.quote', t ?? noTarget()),
    enabled: !!t,
    staleTime: 60_000,
    retry: false,
  });
  const text = q.data
    ? q.data.servedFromArchive
      ? 'free (held in Loupe)'
      : creditRange(q.data.creditsMin, q.data.creditsMax)
    : q.isError
      ? 'price unknown'
      : t
        ? 'pricing…'
        : '';
  return { ...q, text };
}

export interface SpendEstimate {
  what: string;
  creditsMin: number;
  creditsMax: number;
  balance: number | null;
  needsConfirmation?: boolean;
  servedFromArchive?: boolean;
}

/**
 * Ask before spending when the estimate's ceiling exceeds settings.askAboveCredits, the core says
 * so, or it may not fit the balance (the spend policy's order). The balance is read again first
 * (GET /v1/credits, free): a top-up, or another process spending, since the estimate was made must
 * not be acted on stale (issue 24 #7). The dialog states the estimate, the balance after — or the
 * shortfall in words — and what is free. Resolves true to go ahead.
 */
export function useApproveSpend() {
  const qc = useQueryClient();
  const ask = useUi((s) => s.ask);
  return async (e: SpendEstimate): Promise<boolean> => {
    if (e.servedFromArchive) return true;
    const settings = await qc.ensureQueryData({
      queryKey: queryKeys.method('settings.get', {}),
      queryFn: () => api.call('settings.get', {}),
    });
    let bal: BalanceInfo | null = useUi.getState().balance;
    try {
      bal = await api.call('credits.refresh', {});
      useUi.getState().setBalance(bal);
    } catch {
      /* not answered: the last known figure, or the estimate's */
    }
    const balance = bal?.creditsRemaining ?? e.balance ?? null;
    const free = bal?.freeCallsRemaining ?? null;
    const stop = spendStop(e.creditsMax, { balance, askAbove: settings.askAboveCredits });
    if (!stop && !e.needsConfirmation) return true;
    const lines = [
      `Estimate: ${creditRange(e.creditsMin, e.creditsMax)} (your threshold: ask above ${fmtExact(settings.askAboveCredits)}).`,
    ];
    lines.push(...spendBalanceLines(balance, e.creditsMin, e.creditsMax));
    lines.push(
      `Free: pages Loupe already holds inside the cache window, repeats and replays, empty pages and errors${free ? `; ${free} introductory free call${free === 1 ? '' : 's'} left cover calls priced 100 credits or less` : ''}.`,
    );
    return ask({ title: e.what, lines, okLabel: `Spend up to ${creditRange(e.creditsMax, e.creditsMax)}` });
  };
}

/** a price query started without its target: it is enabled only with one */
function noTarget(): never {
  throw new Error('Internal error: a price was asked for without a target.');
}
