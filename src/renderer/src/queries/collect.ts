/** Collection plans' writes: check a design (free), save, run, cancel, remove (docs/collect.md). */
import { useQueryClient } from '@tanstack/react-query';
import type { CollectDesign, CollectStatus } from '../../../shared/contract';
import { api } from '../lib/api';
import { useUi } from '../stores/ui';
import { invalidate } from './keys';

export function useCollectMutations() {
  const qc = useQueryClient();
  return {
    /** the plan and its price (writes nothing, spends nothing) */
    preview: (design: CollectDesign) => api.call('collect.preview', design),
    async create(design: CollectDesign) {
      const p = await api.call('collect.create', design);
      invalidate(qc, 'collect', 'library');
      return p;
    },
    /** starts the run (answered once it has started); progress arrives as collect-progress events */
    run(id: string, approved: boolean, budget?: number | null): Promise<CollectStatus> {
      return api.call('collect.run', { id, approved, wait: false, ...(budget !== undefined ? { budget } : {}) }).then((st) => {
        useUi.getState().putPlan(st);
        invalidate(qc, 'collect', 'library', 'usage');
        return st;
      });
    },
    async cancel(id: string) {
      const st = await api.call('collect.cancel', { id });
      useUi.getState().putPlan(st);
      invalidate(qc, 'collect');
      return st;
    },
    async remove(id: string) {
      await api.call('collect.remove', { id });
      invalidate(qc, 'collect');
    },
  };
}
