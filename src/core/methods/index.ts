/**
 * The contract's implementation, merged from its domain slices in one place. `wholeContract`
 * makes the type system fail when a method of the contract is missing or a slice brings one the
 * contract does not have.
 */
import type { LoupeImpl } from '../../shared/contract';
import { networkMethods } from '../analysis';
import { accountMethods } from './account';
import { analysisMethods } from './analysis';
import { callMethods } from './calls';
import type { CollectJob } from './collect';
import { datasetLocalMethods, datasetMethods } from './datasets';
import { localImpl } from './export-file';
import type { LocalImpl } from '../../shared/contract-local';
import type { QueryNames } from '../query-names';
import type { Exports } from './exports';
import type { Snapshots } from './snapshots';
import { libraryMethods } from './library';
import { tagMethods } from './tags';
import { wholeContract, type AppParts } from './parts';
import { sandboxMethods } from './sandbox';
import { usageMethods } from './usage';
import { savedWalkMethods } from './walks';
import type { AllWalks } from './walk-stream';
import { watchlistMethods, type WatchService } from './watchlists';

export function contractImpl(
  parts: AppParts,
  jobs: { walks: AllWalks; exports: Exports; watch: WatchService | null; collect: CollectJob; snapshots: Snapshots },
): LoupeImpl {
  return wholeContract({
    ...accountMethods(parts),
    ...usageMethods(parts),
    ...callMethods(parts),
    ...jobs.walks.methods,
    ...savedWalkMethods(parts.archive),
    ...libraryMethods(parts.archive),
    ...tagMethods(parts.archive),
    ...jobs.exports.methods,
    ...jobs.snapshots.methods,
    ...sandboxMethods(parts),
    ...analysisMethods(parts.archive, parts.door, parts.emit),
    ...networkMethods({ archive: parts.archive, dataDir: parts.dataDir }),
    ...watchlistMethods(jobs.watch),
    ...jobs.collect.methods,
    ...datasetMethods(parts, jobs.collect, jobs.exports),
  });
}
/** The local doors' methods (src/shared/contract-local.ts): what names a path; never on the web host's or the renderer's door. */
export function localDoors(parts: AppParts, collect: CollectJob, checkQuery: (q: QueryNames) => Promise<void>): LocalImpl {
  return {
    ...localImpl({ archive: parts.archive, dataDir: parts.dataDir, checkQuery }),
    ...datasetLocalMethods(parts, collect, checkQuery),
  };
}
export { createCollect } from './collect';
export { createExports } from './exports';
export { type AppParts } from './parts';
export { createSnapshots } from './snapshots';
export { createWalks } from './walk-stream';
export { type WatchDeps, type WatchMethodName, type WatchService } from './watchlists';
export { onDemandWatchFactory } from './watch-on-demand';
export { maintenanceImpl, type MaintenanceDoor } from './maintenance';
