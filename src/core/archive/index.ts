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
export type { ItemDelivery, RehydratedItem, RehydratedState, RehydrationRow, RehydrationStore } from './rehydrations';
export type { AttritionRow, LastAttempt, Marks, RecheckRow } from './attrition';
export { mergeMarks } from './attrition';
export type { BundleAnnotation, BundleCall } from './bundle-rows';
export { COUNT_FIELDS, type CountField, type HistoryRow, type Reading } from './readings';
export { DAY_MS, DAY_SQL } from './days';
export { engagementSql, SUM_COLUMNS, type SumColumn } from './engagement-sql';
export { TERM_FN, registerTermFunctions, termClause } from './term-filter';
export { type AnalysisTables, type DirtyRow, type IndexItemRow, dayNumber, UNDATED } from './analysis-index';
export { type DayRow } from './chart-rows';
export { type AuthoredPost } from './compare-rows';
export { EXPORT_COLS, exportRowOf, type ExportTuple } from './export-row';
export { flattenLabels, type Json, type LabelScalar, readItems, RECORD_KINDS } from './extract';
export { type FactRow, type ParentAuthorRow } from './network-facts';
export { migrationPrinter, prepareArchive, type Prepared, type PrepareOptions } from './prepare';
export { snapshotArchive } from './snapshot';
/** check and recover of the archive file as it is (loaded when they run: src/core/methods/maintenance.ts) */
export const loadMaintenance = () => import('./maintenance');
export { parseQuery } from './sql-query';
export { sql, Statements } from './sql';
export { type AuthorCountRow, type TermIdsRow } from './term-counts';
export {
  type ChainKind,
  type PageItem,
  type RunRow,
  type RunStatus,
  type RunWatchRow,
  type ScheduleDef,
  type WatchlistRow,
  type WatchRow,
} from './watchlists';
export { type ReadItems } from './extract';
export { type AlertRow, type AlertItem, type AlertEmailState, type EmailState } from './watch-alerts';
