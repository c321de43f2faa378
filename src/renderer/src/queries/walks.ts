/** Walk writes: start, cancel, resume — the answer goes to the walks store and the walk queries refresh. */
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { Target, WalkInfo } from '../../../shared/contract';
import { api } from '../lib/api';
import { useUi } from '../stores/ui';
import { invalidate } from './keys';

export function walkWrites(qc: QueryClient) {
  const put = (w: WalkInfo) => {
    useUi.getState().putWalk(w);
    invalidate(qc, 'walks');
    return w;
  };
  return {
    /** the price of `pages` pages (free) */
    estimate: (target: Target, pages: number) => api.call('api.estimateWalk', { target, pages }),
    start: (target: Target, source: string, maxPages: number) => api.call('walks.start', { target, source, maxPages }).then(put),
    cancel: (walkId: string) => api.call('walks.cancel', { walkId }).then(put),
    resume: (walkId: string, maxPages: number, o: { payRestart?: boolean } = {}) =>
      api.call('walks.resume', { walkId, maxPages, ...o }).then(put),
  };
}

export const useWalkWrites = () => walkWrites(useQueryClient());
