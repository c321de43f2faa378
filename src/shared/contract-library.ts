/**
 * The contract's library part: listing, charting, tagging and exporting archived items.
 * A library row is the archive's own (src/shared/query.ts: the record plus the columns the archive
 * extracts — text, author, engagement, dates, labels); inputs as zod schemas (their types by
 * z.infer), outputs as types. Re-exported by contract.ts.
 */
import { z } from 'zod';
import { ENGAGEMENT_FIELDS, libraryQuerySchema, type ArchivedItem, type LibraryListRow, type LibraryPage, type LibraryRow } from './query';
import { EXPORT_FORMAT_NAMES, NETWORK_KINDS } from './contract-constants';

export type { LibraryListRow, LibraryPageInput, LibraryRow, LibraryRowFields, LibraryPage, SeriesPoint } from './query';
export { libraryPageInputSchema } from './query';

/**
 * What `library.query` answers: full rows (with the raw `record`: the CLI, scripts), or lean rows
 * when asked with `lean: true` (the renderer's list pages; the record is one `library.item` away).
 */
export type LibraryQueryAnswer = LibraryPage<LibraryRow | LibraryListRow>;

export const itemRefSchema = z.object({ platform: z.string(), kind: z.string(), id: z.string() });
export type ItemRefInput = z.infer<typeof itemRefSchema>;

/** One item with which calls returned it, when, at what cost, and what the network did not provide. */
export type ItemDetail = ArchivedItem;

const bucket = z.enum(['day', 'week']);
const tagName = z.string().min(1).max(80);
export const volumeInput = z.object({ query: libraryQuerySchema, bucket });
export const engagementInput = z.object({ query: libraryQuerySchema, bucket, field: z.enum(ENGAGEMENT_FIELDS) });
export const labelDistributionInput = z.object({ query: libraryQuerySchema, family: z.string(), field: z.string() });
export const topAuthorsInput = z.object({ query: libraryQuerySchema, limit: z.number().int().min(1).max(100).default(10) });
export const tagInput = z.object({ items: z.array(itemRefSchema).min(1), tag: tagName, remove: z.boolean().default(false) });
export const tagQueryInput = z.object({ query: libraryQuerySchema, tag: tagName });
export const noteInput = z.object({ item: itemRefSchema, note: z.string().max(20_000).nullable() });
export const overrideInput = z.object({
  item: itemRefSchema,
  family: z.string(),
  field: z.string(),
  value: z.union([z.string(), z.number(), z.boolean(), z.null()]),
  clear: z.boolean().default(false),
});
/** a watchlist named by a person: its name, or its id */
export const watchlistNameInput = z.object({ name: z.string().trim().min(1).max(200) });
export const saveResultSetInput = z.object({
  name: z.string().min(1).max(120),
  query: libraryQuerySchema,
  note: z.string().max(20_000).optional(),
});

export interface ResultSetInfo {
  id: string;
  name: string;
  query: z.infer<typeof libraryQuerySchema>;
  note: string | null;
  createdAt: number;
  /** who saved it and when it last changed (issue 29); author null for sets saved before Loupe kept it */
  author?: string | null;
  updatedAt?: number;
}

export { EXPORT_FORMAT_NAMES, EXPORT_FORMAT_TRAITS, type ExportFormatName } from './contract-constants';

export const exportStartInput = z.object({
  query: libraryQuerySchema.optional(),
  items: z.array(itemRefSchema).optional(),
  watchlistId: z.string().optional(),
  format: z.enum(EXPORT_FORMAT_NAMES),
  /** gexf / graphml: which network (docs/analysis.md) */
  network: z.enum(NETWORK_KINDS).optional(),
  /** identities replaced by keyed hashes (docs/export.md "Pseudonymised exports") */
  pseudonymise: z.boolean().default(false),
  columns: z.array(z.string()).optional(),
  bom: z.boolean().default(true),
  /** table formats: the items' metric history and annotations beside the rows (files, or XLSX sheets) */
  history: z.boolean().default(true),
  fileName: z
    .string()
    .max(200)
    .regex(/^[^/\\]+$/, 'a file name, not a path')
    .optional(),
});
export const exportIdInput = z.object({ exportId: z.string() });

export interface ExportJob {
  exportId: string;
  status: 'running' | 'done' | 'failed' | 'cancelled';
  rows: number;
  total: number | null;
  path: string | null;
  /** web door: a URL (with token) to download the finished file */
  downloadUrl: string | null;
  error: string | null;
  /** when done: what the file holds, in one sentence (e.g. a network's node and edge counts) */
  summary?: string | null;
  /** when done: the history / annotations files written beside it (web door: each with its download URL) */
  files?: Array<{ table: string; path: string; rows: number; downloadUrl: string | null }>;
}
