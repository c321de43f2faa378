/**
 * Writes of the archive domain (issue 24 #10): a consistent one-file copy of the archive, made in
 * the background while the app keeps working (the desktop app asks where to save it first).
 */
import type { SnapshotJob } from '../../../shared/contract';
import { api } from '../lib/api';

export const archiveWrites = {
  snapshot: (): Promise<SnapshotJob> => api.call('archive.snapshot', {}),
  get: (snapshotId: string): Promise<SnapshotJob | null> => api.call('archive.snapshotGet', { snapshotId }),
  cancel: (snapshotId: string): Promise<SnapshotJob | null> => api.call('archive.snapshotCancel', { snapshotId }),
};
