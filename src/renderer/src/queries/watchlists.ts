/** Watchlist writes: create, edit, pause, delete, mark seen, add a watch, import accounts, run now. */
import { useQueryClient } from '@tanstack/react-query';
import type { MethodInput } from '../../../shared/contract';
import { api } from '../lib/api';
import { useUi } from '../stores/ui';
import { invalidate, type Domain } from './keys';

export function useWatchMutations() {
  const qc = useQueryClient();
  /** a write's answer, once it has marked these domains stale */
  const andRefresh = <T>(write: Promise<T>, ...domains: Domain[]): Promise<T> =>
    write.then((v) => {
      invalidate(qc, ...domains);
      return v;
    });
  return {
    create: (input: MethodInput<'watchlists.create'>) => andRefresh(api.call('watchlists.create', input), 'watchlists'),
    addWatch: (input: MethodInput<'watchlists.addWatch'>) => andRefresh(api.call('watchlists.addWatch', input), 'watchlists'),
    /** what an import would add and its estimate (writes nothing) */
    planImport: (input: MethodInput<'watchlists.planImport'>) => api.call('watchlists.planImport', input),
    importAccounts: (input: MethodInput<'watchlists.import'>) => andRefresh(api.call('watchlists.import', input), 'watchlists'),
    // edits and removals change what the library's watchlist filters cover
    update: (input: MethodInput<'watchlists.update'>) => andRefresh(api.call('watchlists.update', input), 'watchlists', 'library'),
    async markSeen(id: string) {
      await andRefresh(api.call('watchlists.markSeen', { id }), 'watchlists', 'library');
    },
    async remove(id: string) {
      await andRefresh(api.call('watchlists.remove', { id }), 'watchlists', 'library');
    },
    /** the estimate of a run now (free) */
    estimate: (id: string) => api.call('watchlists.estimate', { id }),
    /** runs now; `approved`: the user saw an estimate above a threshold and said yes */
    async run(id: string, approved: boolean) {
      const r = await api.call('watchlists.run', { id, approved });
      useUi.getState().putRun(r);
      invalidate(qc, 'watchlists', 'library', 'usage');
      return r;
    },
  };
}
