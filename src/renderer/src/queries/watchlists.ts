/** Watchlist writes: create, edit, pause, delete, mark seen, add a watch, import accounts, run now. */
import { useQueryClient } from '@tanstack/react-query';
import type { MethodInput } from '../../../shared/contract';
import { api } from '../lib/api';
import { useUi } from '../stores/ui';
import { invalidate } from './keys';

export function useWatchMutations() {
  const qc = useQueryClient();
  return {
    async create(input: MethodInput<'watchlists.create'>) {
      const w = await api.call('watchlists.create', input);
      invalidate(qc, 'watchlists');
      return w;
    },
    async addWatch(input: MethodInput<'watchlists.addWatch'>) {
      const w = await api.call('watchlists.addWatch', input);
      invalidate(qc, 'watchlists');
      return w;
    },
    /** what an import would add and its estimate (writes nothing) */
    planImport: (input: MethodInput<'watchlists.planImport'>) => api.call('watchlists.planImport', input),
    async importAccounts(input: MethodInput<'watchlists.import'>) {
      const r = await api.call('watchlists.import', input);
      invalidate(qc, 'watchlists');
      return r;
    },
    // edits and removals change what the library's watchlist filters cover
    async update(input: MethodInput<'watchlists.update'>) {
      const w = await api.call('watchlists.update', input);
      invalidate(qc, 'watchlists', 'library');
      return w;
    },
    async markSeen(id: string) {
      await api.call('watchlists.markSeen', { id });
      invalidate(qc, 'watchlists', 'library');
    },
    async remove(id: string) {
      await api.call('watchlists.remove', { id });
      invalidate(qc, 'watchlists', 'library');
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
