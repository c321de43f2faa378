/**
 * Streaming exports of archived items to CSV, JSON (one array) or JSONL (docs/export.md).
 *
 * - Rows are pulled one at a time from a (possibly async) iterable, rendered into chunks of
 *   ~64 KiB and written through a file stream that is awaited on backpressure: memory stays flat
 *   whatever the row count.
 * - The file is written to a temporary name in the destination directory and renamed onto the
 *   final name only after every byte was flushed. On failure or cancel the temporary file is
 *   removed; whatever already sits at the final name is untouched until the rename.
 */
export { CSV_COLUMNS, flattenForCsv, LABEL_FIELDS, POST_LABEL_FIELDS, COMMENT_LABEL_FIELDS, extraOf } from './columns';
export { neutraliseCell, unneutraliseCell, formatNumber, csvRecord } from './cells';
export {
  exportRows,
  toEnvelope,
  envelopeJson,
  type ExportFormat,
  type ExportOptions,
  type ExportResult,
  type ExportEnvelope,
} from './rows';
export { companionsOf, writeCompanions, type CompanionSource } from './companions';
export type { BundleTablesResult } from './bundle-tables';
/** the bundle's tables writer, with the Parquet encoder: loaded on use, not with every command (docs/cli.md "Start-up") */
export const bundleTables = () => import('./bundle-tables');
export type { AttritionCount, TablesPart } from './bundle-render';
export { exportAny, exportOptionsError, type AnyExportOptions } from './formats';
export { mark as timelineMark } from './timeline';
