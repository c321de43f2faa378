/**
 * One-off spending and jobs: a single call (Explorer, a profile card, a forum comment search) with
 * its quote, an export started, the ledger's pages.
 */
import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import type { CallResult, MethodInput, Quote, Target } from '../../../shared/contract';
import { api } from '../lib/api';
import { useUi } from '../stores/ui';
import { queryKeys } from './keys';

/** the price of one call now (free: dry_run, or the archive holds it) */
/** How long a quote on screen (the price on a button) stands in for a new one: the price queries' staleTime. */
export const QUOTE_FRESH_MS = 60_000;

/**
 * A quote for `target` before spending (issue 27 #15): quotes are free but each takes a rate slot,
 * so the one the button already shows is used when it is under QUOTE_FRESH_MS old, and one asked
 * for meanwhile is shared — one quote per distinct input. A "held in Loupe" quote is asked again:
 * it is answered locally (no service request) and a hold may have ended since.
 */
export function useQuoteNow(): (target: Target) => Promise<Quote> {
  const qc = useQueryClient();
  return async (target) => {
    const key = queryKeys.method('api.quote', target);
    const shown = qc.getQueryData<Quote>(key);
    return qc.fetchQuery({
      queryKey: key,
      queryFn: () => api.call('api.quote', target),
      staleTime: shown?.servedFromArchive ? 0 : QUOTE_FRESH_MS,
      retry: false,
    });
  };
}

/** one call: may spend credits (the caller asks first above the threshold) */
/** One call; its quote is then out of date (the answer is held now): asked again when next shown. */
export function useSingleCall() {
  const qc = useQueryClient();
  return async (target: Target, source: string, opts: { save?: boolean } = {}): Promise<CallResult> => {
    try {
      return await api.call('api.call', { target, source, ...opts });
    } finally {
      void qc.invalidateQueries({ queryKey: queryKeys.method('api.quote', target) });
    }
  };
}

/** Exports: the job goes to the exports store (live progress arrives as events). */
export function useExportWrites() {
  return {
    async start(input: MethodInput<'export.start'>) {
      const j = await api.call('export.start', input);
      useUi.getState().putExport(j);
      return j;
    },
    async cancel(exportId: string) {
      const j = await api.call('export.cancel', { exportId });
      if (j) useUi.getState().putExport(j);
      return j;
    },
  };
}

/** The ledger, newest first, 200 attempts a page. */
export function useLedgerPages() {
  return useInfiniteQuery({
    queryKey: queryKeys.ledgerPages(),
    initialPageParam: undefined as number | undefined,
    queryFn: ({ pageParam }) => api.call('usage.ledger', { limit: 200, beforeId: pageParam }),
    getNextPageParam: (last) => (last.length === 200 ? last[last.length - 1].id : undefined),
  });
}
