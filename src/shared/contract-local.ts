/**
 * The local doors' methods (issue 25): what only a door on this machine may ask of a composed app,
 * because it names a path to write or read — `loupe export --out FILE`, `loupe dataset export /
 * verify / import / rehydrate` (the command line). They are NOT in
 * contract.ts's method table, so `dispatch` (the web host's POST /api/<method>, the Electron
 * renderer's IPC) does not know them: a page can never name a path for the core to write. A local
 * door calls them on the composed app (`LoupeApp.local`), its input parsed by these schemas as every
 * contract method's is (`parseLocalInput`).
 *
 * The door keeps its own business: where its user's path points (`--out -`, a FIFO or a device is
 * written through by the command line from a staged file, a symbolic link is followed to its
 * target), whether a companion file may go beside it. The method writes one regular file at the
 * path it is given, under a temporary name beside it, renamed into place when complete.
 */
import { z } from 'zod';
import { exportStartInput } from './contract-library';
import {
  bundleExportInputSchema,
  bundleImportPathInputSchema,
  bundleVerifyPathInputSchema,
  rehydratePathInputSchema,
  type BundleSummary,
  type ImportReport,
  type RehydratePlan,
  type RehydrateReport,
  type VerifyReport,
} from './contract-datasets';
import { libraryQuerySchema } from './query';

/** `local.exportFile`: the library query to one file, in a format of the export registry. */
export const localExportInput = exportStartInput.omit({ query: true, items: true, watchlistId: true, fileName: true }).extend({
  query: libraryQuerySchema.default({}),
  /** the file to write: an absolute path (a regular file or nothing there yet; the door resolves links, pipes and devices) */
  file: z.string().min(1).max(4096),
});

export interface LocalExportResult {
  /** the file written */
  path: string;
  rows: number;
  /** one sentence: what the file holds, where */
  summary: string;
  /** the history and annotations files written beside it */
  files: Array<{ table: string; path: string; rows: number }>;
}

/** What a local method tells its door while it runs (`bundle-step`: a bundle file begun or `rows` more written into it). */
export type LocalEvent = { type: 'export-rows'; rows: number; total: number } | { type: 'bundle-step'; step: string; rows: number };

/** What a door hands a local method besides its input. */
export interface LocalDoor {
  onEvent?: (e: LocalEvent) => void;
  /** stops it (Ctrl-C): nothing is left at the path */
  signal?: AbortSignal;
}

/** Each method: its input schema and (phantom) output type, as contract.ts's table. */
function m<O>() {
  return <I extends z.ZodType>(input: I) => ({ input, output: null as O | null });
}

export const localMethods = {
  /** the library query as CSV, JSON, JSONL, XLSX, Parquet or a network file at a path on this machine (progress as `export-rows`) */
  'local.exportFile': m<LocalExportResult>()(localExportInput),
  /** a set or query as a bundle at a path (a new or empty folder, or a new .zip; written under a temporary name, renamed when complete) */
  'local.exportBundle': m<BundleSummary>()(bundleExportInputSchema),
  /** the bundle folder or .zip at a path against its manifest (and, asked, this archive) */
  'local.verifyBundle': m<VerifyReport>()(bundleVerifyPathInputSchema),
  /** the bundle at a path merged into this archive (it must verify; nothing paid) */
  'local.importBundle': m<ImportReport>()(bundleImportPathInputSchema),
  /** a dehydrated bundle at a path: its re-collection priced now (free, writes nothing) */
  'local.rehydratePlan': m<RehydratePlan>()(rehydratePathInputSchema),
  /** a dehydrated bundle at a path re-collected (approval or a budget first; resumes an unfinished one) */
  'local.rehydrate': m<RehydrateReport>()(rehydratePathInputSchema),
} as const;

export type LocalName = keyof typeof localMethods;
export type LocalInput<K extends LocalName> = z.input<(typeof localMethods)[K]['input']>;
export type LocalParsedInput<K extends LocalName> = z.output<(typeof localMethods)[K]['input']>;
export type LocalOutput<K extends LocalName> = NonNullable<(typeof localMethods)[K]['output']>;
export type LocalImpl = {
  [K in LocalName]: (input: LocalParsedInput<K>, door?: LocalDoor) => Promise<LocalOutput<K>>;
};

export function parseLocalInput<K extends LocalName>(method: K, input: unknown): LocalParsedInput<K> {
  return localMethods[method].input.parse(input ?? {}) as LocalParsedInput<K>;
}
