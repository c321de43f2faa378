/** The local SQLite archive (see docs/archive.md). */
export { Archive, ArchiveError, openArchive, QueryError, ArchiveVersionError } from './archive';
export type { IngestRow, IngestProvenance, OpenArchiveOptions } from './archive';
export type { WatchStore } from './watchlists';
export type { CollectStore, CollectInputRow, CollectPlanRow, CollectRunRow, NewCollectInput, WalkLength } from './collect';
export { migrate, openDb, latestVersion } from './db';
export type { Db } from './db';
export { MIGRATIONS } from './migrations/index';
export type { Migration } from './migrations/index';
export { ftsExpression } from './sql-query';
export { openArchiveForReading, openArchiveForWriting, openArchiveIn } from './open';
export type { ArchiveMode } from './open';
export { currentOwner, ownerAlive } from './owner';
export type { AccountPost, AnnotationRow, DatasetStore } from './datasets';
export type { AttritionRow, LastAttempt, RecheckRow } from './attrition';
export { COUNT_FIELDS, type CountField, type HistoryRow, type Reading } from './readings';
