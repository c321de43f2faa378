/**
 * The archive's maintenance (src/shared/contract-maintenance.ts): check, recover and copy the
 * archive FILE as it is — damaged, or written by an older Loupe — where no app can be composed over
 * it. A door calls these over the archive's path (compose.ts hands them out beside composeApp);
 * the check and the recovery load when they run (src/core/archive/maintenance.ts).
 */
import type { MaintenanceEvent, MaintenanceImpl } from '../../shared/contract-maintenance';
import { loadMaintenance, snapshotArchive } from '../archive';

export interface MaintenanceDoor {
  /** a copy's progress */
  onEvent?: (e: MaintenanceEvent) => void;
  /** stops a copy (Ctrl-C): nothing is left behind */
  signal?: AbortSignal;
}

export function maintenanceImpl(archiveFile: string, door: MaintenanceDoor = {}): MaintenanceImpl {
  return {
    async 'maintenance.check'(i) {
      const { checkArchive } = await loadMaintenance();
      return checkArchive(archiveFile, { quick: i.quick });
    },
    async 'maintenance.recover'(i) {
      const { recoverArchive, RecoverError } = await loadMaintenance();
      try {
        return await recoverArchive(archiveFile, { out: i.out, force: i.force, engine: i.engine, sqlite3: i.sqlite3 });
      } catch (e) {
        // a healthy archive not forced: nothing to do, said in words (any other refusal carries its kind)
        if (e instanceof RecoverError && e.reason === 'healthy') return { healthy: true, message: e.message };
        throw e;
      }
    },
    async 'maintenance.copy'(i) {
      return snapshotArchive(archiveFile, i.file, {
        force: i.force,
        signal: door.signal,
        onProgress: ({ done, pages }) => door.onEvent?.({ type: 'copy-progress', done, pages }),
      });
    },
  };
}
