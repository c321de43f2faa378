/**
 * Datasets (issue 29, docs/datasets.md): re-checking a set's items and the attrition report.
 * Bundles have their own piece of the contract below.
 */
import { z } from 'zod';
import { libraryQuerySchema } from './query';
import type { CollectPlan, CollectStatus } from './contract-collect';

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

export const bundleExportInputSchema = z.object({
  target: datasetTargetSchema,
  /** a new or empty folder, or a new file ending in .zip (one zip of the same files) */
  out: z.string().trim().min(1).max(4096),
  /** the manifest only: item keys and the calls to re-collect them, with today's quote */
  dehydrated: z.boolean().default(false),
  /** the spec variants this build is tested under (the door that knows them fills it in) */
  variants: z.array(z.string().max(80)).max(100).default([]),
});
export const bundleVerifyInputSchema = z.object({
  dir: z.string().trim().min(1).max(4096),
  /** the root hash a methods section cites */
  root: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  /** also check every answer and item against this archive */
  withArchive: z.boolean().default(false),
});
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
export const bundleImportInputSchema = z.object({ dir: z.string().trim().min(1).max(4096) });

export interface BundleSummary {
  out: string;
  root: string;
  items: number;
  calls: number;
  files: Array<{ path: string; sha256: string; bytes: number }>;
  dehydrated: boolean;
  rehydrationQuote: { credits_min: number; credits_likely: number; credits_max: number; requests: number; quoted_at: string } | null;
}

export interface VerifyReport {
  ok: boolean;
  root: string;
  /** each problem in words, naming the file, row or call */
  problems: string[];
  items: number;
  calls: number;
  files: number;
}

export interface ImportReport {
  root: string;
  calls: { stored: number; alreadyHeld: number };
  items: { before: number; after: number; inBundle: number };
  readings: number;
  annotations: { added: number; same: number };
  /** annotations this archive already has with another value: left as they are */
  conflicts: string[];
}
