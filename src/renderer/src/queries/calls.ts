/**
 * One-off spending and jobs: a single call (Explorer, a profile card, a forum comment search) with
 * its quote, an export started, the ledger's pages.
 */
import { useInfiniteQuery } from '@tanstack/react-query';
import type { CallResult, MethodInput, Quote, Target } from '../../../shared/contract';
import { api } from '../lib/api';
import { useUi } from '../stores/ui';
import { queryKeys } from './keys';

/** the price of one call now (free: dry_run, or the archive holds it) */
export const quoteNow = (target: Target): Promise<Quote> => api.call('api.quote', target);

/** one call: may spend credits (the caller asks first above the threshold) */
export function useSingleCall() {
  return (target: Target, source: string, opts: { save?: boolean } = {}): Promise<CallResult> => api.call('api.call', { target, source, ...opts });
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
