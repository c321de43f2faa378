/**
 * The archive's maintenance through the contract's types (issue 25): what `loupe archive check`,
 * `recover` and `snapshot` do. They read or copy the archive FILE as it is — damaged, or written
 * by an older Loupe — where no app can be composed over it (composing would migrate it first), so
 * they are not methods of a composed app: src/core/methods/maintenance.ts implements them over the
 * archive's path, behind these schemas and types (a door parses the input with them, as every
 * contract method's). A copy's progress goes to the door as `copy-progress` events.
 */
import { z } from 'zod';
import type { SnapshotCountsInfo } from './contract-archive';

export const RECOVER_ENGINES = ['auto', 'sqlite3', 'copy'] as const;
export type RecoverEngine = (typeof RECOVER_ENGINES)[number];

export const archiveCheckInput = z.object({
  /** quick_check instead of the full integrity_check */
  quick: z.boolean().default(false),
});
export const archiveRecoverInput = z.object({
  /** write the recovered archive here and leave the damaged one where it is */
  out: z.string().min(1).optional(),
  engine: z.enum(RECOVER_ENGINES).default('auto'),
  /** recover even when the archive passes the check */
  force: z.boolean().default(false),
  /** the sqlite3 program to use (LOUPE_SQLITE3), else `sqlite3` on PATH */
  sqlite3: z.string().min(1).nullable().default(null),
});
export const archiveCopyInput = z.object({
  /** where to write the copy */
  file: z.string().min(1),
  /** replace the file if it exists */
  force: z.boolean().default(false),
});

export interface ArchiveCheckReport {
  path: string;
  exists: boolean;
  healthy: boolean;
  /** one line each; empty when healthy */
  problems: string[];
  /** PRAGMA user_version of the file, null when unreadable */
  schema: number | null;
  latest: number;
  items: number | null;
  ledgerRows: number | null;
  walks: number | null;
  quick: boolean;
  /** checked on a temporary copy (a read-only folder) */
  snapshot: boolean;
}

export interface ArchiveRecoverReport {
  /** the damaged archive */
  path: string;
  /** where the recovered archive is now (the archive's path when put in place) */
  recovered: string;
  /** where the damaged file was moved, null with `out` */
  aside: string | null;
  inPlace: boolean;
  /** the engine that produced the recovered archive */
  engine: 'sqlite3' | 'copy';
  items: number;
  ledgerRows: number;
  walks: number;
  /** rows found but not placed in a table (dropped; they stay in the damaged file) */
  unplaced: number;
}

/** `maintenance.recover` when the archive is healthy and not forced: nothing done, in words. */
export interface ArchiveHealthy {
  healthy: true;
  message: string;
}

export interface ArchiveCopyReport {
  /** the archive copied */
  source: string;
  /** the copy (absolute) */
  path: string;
  bytes: number;
  pages: number;
  schema: number;
  counts: SnapshotCountsInfo;
  ms: number;
}

export type MaintenanceEvent = { type: 'copy-progress'; done: number; pages: number };

/** Each method: its input schema and (phantom) output type, as contract.ts's table. */
function m<O>() {
  return <I extends z.ZodType>(input: I) => ({ input, output: null as O | null });
}

/** The maintenance methods. */
export const maintenanceMethods = {
  /** SQLite's integrity_check (quick_check) of the archive file as it is: nothing written */
  'maintenance.check': m<ArchiveCheckReport>()(archiveCheckInput),
  /** what can be read of a damaged archive into a new one, put in place only when it checks out */
  'maintenance.recover': m<ArchiveRecoverReport | ArchiveHealthy>()(archiveRecoverInput),
  /** a consistent one-file copy of the archive as it is (SQLite's backup API), progress as events */
  'maintenance.copy': m<ArchiveCopyReport>()(archiveCopyInput),
} as const;

export type MaintenanceName = keyof typeof maintenanceMethods;
export type MaintenanceInput<K extends MaintenanceName> = z.input<(typeof maintenanceMethods)[K]['input']>;
export type MaintenanceOutput<K extends MaintenanceName> = NonNullable<(typeof maintenanceMethods)[K]['output']>;
export type MaintenanceImpl = {
  [K in MaintenanceName]: (input: z.output<(typeof maintenanceMethods)[K]['input']>) => Promise<MaintenanceOutput<K>>;
};

export function parseMaintenanceInput<K extends MaintenanceName>(
  method: K,
  input: unknown,
): z.output<(typeof maintenanceMethods)[K]['input']> {
  return maintenanceMethods[method].input.parse(input ?? {}) as z.output<(typeof maintenanceMethods)[K]['input']>;
}
