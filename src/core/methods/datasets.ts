/**
 * The contract's `datasets.*` methods (docs/datasets.md): re-checks priced and run as collection
 * plans (over the collect job's service), and the attrition report.
 */
import { planRecheck, resolveTarget, runRecheck, type RecheckDeps } from '../datasets';
import type { CollectJob } from './collect';
import type { AppParts, Slice } from './parts';

export function datasetMethods(parts: AppParts, collect: CollectJob): Slice<'datasets'> {
  const deps = (): RecheckDeps => ({
    archive: parts.archive,
    collect: collect.service(),
    clock: parts.clock,
    catalogue: async () => {
      const api = await parts.api();
      await api.catalogue.load();
      return api.catalogue;
    },
  });
  return {
    'datasets.recheckPlan': (i) => planRecheck(deps(), i.target, i.budget ?? null),
    'datasets.recheck': (i) => runRecheck(deps(), i),
    'datasets.attrition': async (i) => parts.archive.datasets.attrition(resolveTarget(parts.archive, i.target).query),
  };
}
