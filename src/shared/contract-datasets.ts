/**
 * Datasets (issue 29, docs/datasets.md): re-checking a set's items and the attrition report.
 * Bundles have their own piece of the contract below.
 */
import { z } from 'zod';
import { libraryQuerySchema } from './query';
import type { CollectPlan, CollectStatus, CollectStatusWord } from './contract-collect';

/** A saved set (by name or id) or a Library query: what a dataset method reads. */
export const datasetTargetSchema = z
  .object({
    set: z.string().trim().min(1).max(200).optional(),
    query: libraryQuerySchema.optional(),
  })
  .refine((t) => (t.set === undefined) !== (t.query === undefined), { message: 'Give a saved set or a query, one of them.' });
export type DatasetTarget = z.input<typeof datasetTargetSchema>;

export const recheckInputSchema = z.object({
  target: datasetTargetSchema,
  /** one ceiling for the re-check (null or absent: none, and the ask-above rule applies to the plan as one spend; continuing a plan: absent keeps its budget, null lifts it) */
  budget: z.number().int().min(0).max(1_000_000_000_000).nullable().optional(),
  /** the user confirmed a plan whose ceiling is above the ask-above threshold */
  approved: z.boolean().default(false),
  /** continue an unfinished re-check plan (its name or id) instead of starting a new one */
  plan: z.string().trim().min(1).max(200).optional(),
});
export type RecheckInput = z.input<typeof recheckInputSchema>;

export interface NotRecheckable {
  /** `platform/kind/id` */
  key: string;
  reason: string;
}

/** What a re-check would do, priced as one plan (nothing written, nothing spent). */
export interface RecheckPlan {
  /** items the target holds */
  items: number;
  /** the collection plan of their single-item calls (figures, approval, problems) */
  plan: CollectPlan;
  /** items no single-item endpoint can read again (a comment, a network without one, no address); the first 200 */
  notRecheckable: NotRecheckable[];
  notRecheckableCount: number;
}

/** Availability of the target's items, by network and publication month (month null: no publication time). */
export interface AttritionRow {
  platform: string;
  month: string | null;
  available: number;
  unavailable: number;
  notRechecked: number;
}

export interface RecheckResult {
  /** the collection plan's final status (its name continues an unfinished re-check) */
  status: CollectStatus;
  /** items the service answered this time (available), answered not found (unavailable), or not read (failed, skipped, not re-checkable) */
  found: number;
  missing: number;
  notRead: number;
  attrition: AttritionRow[];
}

// ───────────────────────────── bundles ─────────────────────────────

/**
 * The bundle methods that name a path on this machine (export to `out`, verify / import /
 * rehydrate the bundle at `dir`) are the local doors' only (src/shared/contract-local.ts: the
 * command line): a page of the web door, or the renderer, can never name a path to write or read.
 * The contract's methods name a bundle inside the data folder instead (`BundleRef`): one the
 * renderer sent (`datasets.upload`) or one this app wrote as an export job (`datasets.bundleJob`).
 */
export const bundleExportInputSchema = z.object({
  target: datasetTargetSchema,
  /** a new or empty folder, or a new file ending in .zip (one zip of the same files) */
  out: z.string().trim().min(1).max(4096),
  /** the manifest only: item keys and the calls to re-collect them, with today's quote */
  dehydrated: z.boolean().default(false),
  /** the spec variants this build is tested under (the door that knows them fills it in) */
  variants: z.array(z.string().max(80)).max(100).default([]),
});

/** An upload's id: chosen by the core, never a path. */
export const uploadIdSchema = z.string().regex(/^[0-9a-f]{32}$/, 'an upload id as datasets.upload answered it');

/** A bundle inside the data folder: a .zip the renderer sent (`datasets.upload`), or a bundle export job this app wrote. */
export const bundleRefSchema = z.union([
  z.object({ upload: uploadIdSchema }).strict(),
  z.object({ export: z.string().trim().min(1).max(200) }).strict(),
]);
export type BundleRef = z.input<typeof bundleRefSchema>;

/** One part of a bundle .zip sent by the renderer, in order (base64, at most 1 MiB of bytes a part). */
export const bundleUploadInputSchema = z.object({
  /** absent on the first part: a new upload; then the id the first answer gave */
  upload: uploadIdSchema.optional(),
  /** where this part starts: the bytes received so far */
  offset: z.number().int().min(0),
  data: z
    .string()
    .max(1_398_104)
    .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'base64'),
});
export interface BundleUpload {
  upload: string;
  /** bytes received so far */
  bytes: number;
}

const verifyOptions = {
  /** the root hash a methods section cites */
  root: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  /** also check every answer and item against this archive */
  withArchive: z.boolean().default(false),
};
export const bundleVerifyInputSchema = z.object({ bundle: bundleRefSchema, ...verifyOptions });
/** the local doors': the bundle folder or .zip at a path */
export const bundleVerifyPathInputSchema = z.object({ dir: z.string().trim().min(1).max(4096), ...verifyOptions });
/** A bundle written by the app as an export job (into the exports folder; a .zip downloads on the web door). */
export const bundleJobInputSchema = z.object({
  target: datasetTargetSchema,
  zip: z.boolean().default(true),
  dehydrated: z.boolean().default(false),
  /** a file or folder name (no path); default loupe-bundle-<time> */
  name: z
    .string()
    .trim()
    .min(1)
    .max(120)
    .regex(/^[^/\\]+$/, 'a name, not a path')
    .optional(),
});
export const bundleImportInputSchema = z.object({ bundle: bundleRefSchema });
export const bundleImportPathInputSchema = z.object({ dir: z.string().trim().min(1).max(4096) });

export interface BundleSummary {
  out: string;
  root: string;
  items: number;
  calls: number;
  files: Array<{ path: string; sha256: string; bytes: number }>;
  dehydrated: boolean;
  /** priced for the recipient: as an empty archive would pay today (`priced_as`; absent in bundles written before 2026-11-28) */
  rehydrationQuote: RehydrationQuote | null;
}

export interface VerifyReport {
  ok: boolean;
  root: string;
  /** each problem in words, naming the file, row or call */
  problems: string[];
  /** what is not a problem but worth saying: items the archive re-checked after the bundle was written */
  notes: string[];
  items: number;
  calls: number;
  files: number;
}

export interface ImportReport {
  root: string;
  calls: { stored: number; alreadyHeld: number };
  items: { before: number; after: number; inBundle: number };
  readings: number;
  /** items whose re-check marks (checked_at, missing_since) the bundle's changed here (docs/datasets.md "Import") */
  rechecks: number;
  annotations: { added: number; same: number };
  /** annotations this archive already has with another value: left as they are */
  conflicts: string[];
}

// ───────────────────────────── rehydration ─────────────────────────────

/** Re-collect a dehydrated bundle's items (docs/datasets.md "Rehydrate"): priced as one plan first. */
const rehydrateOptions = {
  /** one ceiling for the re-collection in credits (it is the approval); null or absent: none */
  budget: z.number().int().min(0).max(1_000_000_000_000).nullable().optional(),
  /** the user approved the plan's price */
  approved: z.boolean().default(false),
  /** pages per list walk (default: as deep as the bundle's walks went; deeper reaches items newer posts pushed down) */
  pages: z.number().int().min(1).max(100).optional(),
};
export const rehydrateInputSchema = z.object({
  /** the dehydrated bundle: one the renderer sent, or one this app wrote */
  bundle: bundleRefSchema,
  ...rehydrateOptions,
});
/** the local doors': the dehydrated bundle folder or .zip at a path */
export const rehydratePathInputSchema = z.object({ dir: z.string().trim().min(1).max(4096), ...rehydrateOptions });
export type RehydrateInput = z.input<typeof rehydrateInputSchema>;

export interface RehydrationQuote {
  credits_min: number;
  credits_likely: number;
  credits_max: number;
  requests: number;
  quoted_at: string;
  /** how it was priced (since 2026-11-28): as a recipient with an empty archive would pay */
  priced_as?: string;
}

/** What rehydrating a bundle would do now (nothing written, nothing spent). */
export interface RehydratePlan {
  root: string;
  /** item keys the bundle names */
  items: number;
  /** the bundle's calls, and the walks they make again (a walk's pages are one input) */
  calls: number;
  /** the quote written into the bundle when it was made (stale: prices and the archive change) */
  quoted: RehydrationQuote | null;
  /** today's plan of the calls still to make (null: nothing to collect, every item held or unplannable) */
  plan: CollectPlan | null;
  /** items this archive already holds inside their cache window: free, no call */
  held: number;
  /** items no call can re-collect (a bulk load kept no call), the first 200 */
  cannot: NotRecheckable[];
  cannotCount: number;
  /** an unfinished (or finished) rehydration of this bundle in this archive: running it continues that one */
  resume: { name: string; status: CollectStatusWord } | null;
}

export type RehydratedItemState = 'pending' | 'recollected' | 'held' | 'unavailable' | 'missing' | 'failed';

export interface RehydrateReport {
  root: string;
  /** the collection plan that re-collects it (Collect view; its saved set holds what came back) */
  plan: string | null;
  status: CollectStatus | null;
  items: number;
  /** recollected: from this rehydration's calls; held: already in the archive inside its cache window (free);
   * unavailable: the service answered not found; missing: the call answered without it; failed: not read */
  counts: Record<RehydratedItemState, number>;
  /** the items not re-collected, with why: the first 200 */
  notRecollected: Array<{ key: string; state: RehydratedItemState; reason: string | null }>;
  /** afterwards, every key of the bundle looked up in the archive: the keys it does not hold are named (the first 200) */
  verify: { ok: boolean; present: number; absent: number; absentKeys: string[] };
}
