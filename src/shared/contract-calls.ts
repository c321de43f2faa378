/**
 * The contract's spending part: quotes, single calls, walks and the usage ledger.
 * Inputs as zod schemas (their types by z.infer), outputs as types. Re-exported by contract.ts.
 */
import { z } from 'zod';
import type { Envelope } from './api-types';
import type { BalanceInfo } from './contract-account';
import type { SeriesPoint } from './query';

export const paramsSchema = z.record(z.string(), z.string());
export const targetSchema = z.object({
  platform: z.string().min(1).max(64),
  /** path after the platform; `/v1/<platform>/` prefix tolerated */
  endpoint: z.string().min(1).max(200),
  params: paramsSchema.default({}),
});
export type Target = z.infer<typeof targetSchema>;

/** Where a call or walk comes from; the Usage view groups spending by it. */
export const sourceSchema = z.string().min(1).max(120); // 'search' | 'profile' | 'comments' | 'explorer' | 'watch:<id>' | 'cli'

/** A label-capable endpoint's estimate, as the service gives it (`data.estimate`). */
export interface LabelEstimate {
  rows_expected: number;
  rows_cached: number;
  label_credits_min: number;
  label_credits_max: number;
  base_credits: number;
}

export interface Quote {
  creditsMin: number;
  creditsMax: number;
  /** label-capable endpoints: the service's estimate */
  estimate?: LabelEstimate;
  /** true when Loupe already holds this exact answer inside its cache window (costs nothing) */
  servedFromArchive: boolean;
  balance: number | null;
}

export interface WalkEstimate {
  creditsMin: number;
  creditsMax: number;
  requests: number;
  etaMs: number;
  balance: number | null;
  /** whether it needs confirmation under the user's threshold */
  needsConfirmation: boolean;
}

export interface CallResult {
  envelope: Envelope;
  fromArchive: boolean;
  callId: string;
  newItems: number;
  /** what the service charged for it (0 when served from the archive or a cache) */
  creditsUsed?: number;
  /** rows of the answer without an id of their own: kept raw in the stored answer, not in the library */
  unreadable?: number;
}

export interface WalkInfo {
  walkId: string;
  platform: string;
  endpoint: string;
  params: Record<string, string>;
  source: string;
  status: 'running' | 'paused' | 'done' | 'failed' | 'cancelled';
  pagesDone: number;
  itemsSeen: number;
  newItems: number;
  creditsSpent: number;
  stopReason: string | null;
  error: string | null;
  /** why it stopped, in the error model's terms (src/shared/errors.ts: kind, the API's error.type), so the UI can offer the way out */
  errorKind?: string | null;
  errorType?: string | null;
  /** 'rate_wait': when the service's wait ends (ms since epoch); resume after it */
  retryAt?: number | null;
  etaMs: number | null;
  /** list rows without an id of their own met by this walk in this session: kept raw in the stored answers, not archived as items */
  unreadable?: number;
  /**
   * after the service rejected the saved position the walk started over: while it re-reads the
   * pages it already held, the position it has reached (pages rewalkAt+1 .. pagesDone are still to
   * re-read; with stop reason `restart_costs`, what re-reading costs is waiting for approval)
   */
  rewalkAt?: number | null;
  /** what happened on the way that the user should hear about (a restart, rows kept raw) */
  notes?: string[];
  createdAt: number;
  updatedAt: number;
}

export const estimateWalkInput = z.object({ target: targetSchema, pages: z.number().int().min(1).max(1_000_000) });
/** one call (explorer, profile card): may spend credits; the UI asks first above the threshold */
export const callInput = z.object({
  target: targetSchema,
  source: sourceSchema,
  fresh: z.boolean().default(false),
  save: z.boolean().default(true),
  /** the caller's name for this call, for `api.cancel` (e.g. the command line's Ctrl-C) */
  callId: z.string().min(1).max(200).optional(),
});
export const walkStartInput = z.object({
  target: targetSchema,
  source: sourceSchema,
  maxPages: z.number().int().min(1).max(10_000).optional(),
  maxCredits: z.number().int().min(0).optional(),
});
export const walkIdInput = z.object({ walkId: z.string() });
export const walkResumeInput = z.object({
  walkId: z.string(),
  maxPages: z.number().int().min(1).optional(),
  maxCredits: z.number().int().min(0).optional(),
  /** the service rejected the saved position: approve re-reading (and paying for) the pages already held outside their free window (stop reason `restart_costs`) */
  payRestart: z.boolean().optional(),
});

export type { LedgerEntry } from './ledger';

export interface UsageSummary {
  balance: BalanceInfo;
  charged: { requests: number; credits: number };
  /** what was not charged and why */
  notCharged: { cached: number; replay: number; freeCall: number; error: number; dryRun: number; empty: number; fromArchive: number };
  perDay: SeriesPoint[];
  perSource: SeriesPoint[];
  perEndpoint: SeriesPoint[];
}

export const usageSummaryInput = z.object({ since: z.number().optional() });
export const usageLedgerInput = z.object({ limit: z.number().int().min(1).max(1000).default(200), beforeId: z.number().int().optional() });

// ── a walk as the archive saves it (core/ports.ts re-exports these for the core) ──

export type WalkStatus = 'running' | 'paused' | 'done' | 'failed' | 'cancelled' | 'interrupted';

/** The process that last saved a walk (recorded by the archive, not by the caller). */
export interface WalkOwner {
  pid: number;
  host: string;
  /** tells this process apart from a later one with the same pid (boot id + start time) */
  start: string;
}

/** Saved after every page so an interrupted walk resumes where it stopped. */
export interface WalkState {
  walkId: string;
  platform: string;
  endpoint: string;
  /** the walk's fixed params (no cursor) as canonical JSON */
  params: string;
  /** the param that carries the position: 'cursor' or the native one */
  cursorParam: string;
  /** position to send on the next page; null before the first page */
  cursor: string | null;
  pagesDone: number;
  creditsSpent: number;
  itemsSeen: number;
  status: WalkStatus;
  stopReason: string | null; // 'end', 'since', 'known_id', 'max_pages', 'page_limit', 'credit_limit', 'cancelled', 'error:<TYPE>'
  source: string;
  createdAt: number;
  updatedAt: number;
  error: string | null;
  /**
   * Times the walk started over from the head after the service rejected its saved cursor; pages
   * read after the n-th restart are the logical operations `walk:<id>:r<n>:page:<p>` (0 or absent:
   * `walk:<id>:page:<p>`). docs/request-core.md "Rejected cursor".
   */
  restarts?: number;
  /**
   * While a restarted walk re-reads pages it already held: the position of the saved cursor
   * (pages from the head), so pages rewalkAt+1 .. pagesDone are held pages to read again; null
   * (or absent) otherwise. `pagesDone` never counts a page twice.
   */
  rewalkAt?: number | null;
  /**
   * Read back from the archive: the process that last saved the walk (null when not recorded).
   * Ignored by saveWalk, which always records the calling process.
   */
  owner?: WalkOwner | null;
}

/** `walks.saved`: one saved walk by id, or every saved walk (newest first). */
export const walksSavedInput = z.object({ walkId: z.string().min(1).max(200).optional() });
