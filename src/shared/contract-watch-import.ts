/**
 * Bulk watches (issue 16): many accounts added to a watchlist from a pasted list or a CSV of
 * handles / profile addresses, with one estimate for the whole import before anything is created.
 * Inputs as zod schemas, outputs as types; imported by contract.ts. Implemented in
 * src/core/watch/import.ts (docs/watchlists.md "Importing accounts").
 */
import { z } from 'zod';
import type { WalkEstimate } from './contract-calls';

export const watchImportInputSchema = z.object({
  /** the pasted list or the file's text: one account per line, or a CSV with a handle / username / url column */
  text: z.string().max(5_000_000),
  platform: z.string().min(1).max(60),
  /** a list endpoint of that network, e.g. profile/posts */
  endpoint: z.string().min(1).max(200),
  /** an existing watchlist, or the name of a new one */
  list: z.union([z.object({ id: z.string().min(1) }), z.object({ name: z.string().trim().min(1).max(120) })]),
  /** a new list's first-run depth (pages each watch reads as its baseline; default 1) */
  firstRunPages: z.number().int().min(1).max(100).optional(),
  /** fixed parameters every imported watch carries besides its account (e.g. a sort) */
  params: z.record(z.string(), z.string().max(500)).default({}),
});
export type WatchImportInput = z.input<typeof watchImportInputSchema>;

/** One account the import adds: the line it came from, the parameter it fills and the watch's label. */
export interface WatchImportAccount {
  line: number;
  account: string;
  param: string;
  params: Record<string, string>;
  label: string;
}

/** A line that is not an account, or that the endpoint refuses: said in words, never dropped. */
export interface WatchImportProblem {
  line: number;
  text: string;
  reason: string;
}

/** A line naming an account already on an earlier line (`sameAs`), or already in the watchlist (null). */
export interface WatchImportDuplicate {
  line: number;
  text: string;
  account: string;
  sameAs: number | null;
}

/** The contract's WalkEstimate fields, plus what the import adds. */
export interface WatchImportEstimate extends WalkEstimate {
  /** why it needs a look before running (budget, threshold, balance), null when nothing stands out */
  reason: string | null;
  /** pages each new watch reads on its first run, and why */
  pagesPerAccount: number;
  basis: string;
}

export interface WatchImportPlan {
  platform: string;
  endpoint: string;
  /** the CSV column the accounts were read from (null: one account per line) */
  column: string | null;
  /** lines read (blank lines and # comments are not counted) */
  lines: number;
  list: { id: string | null; name: string; watches: number };
  accounts: WatchImportAccount[];
  duplicates: WatchImportDuplicate[];
  problems: WatchImportProblem[];
  /** the first run of the imported watches (nothing is spent by importing) */
  estimate: WatchImportEstimate;
}

/** `L`: the watchlist as the contract describes it (WatchlistInfo). */
export interface WatchImportResult<L> {
  plan: WatchImportPlan;
  watchlist: L;
  added: number;
}
