/**
 * The contract's watchlists part (docs/watchlists.md). Inputs as zod schemas (their types by
 * z.infer), outputs as types. Re-exported by contract.ts; bulk imports are in contract-watch-import.ts.
 */
import { z } from 'zod';
import { libraryQuerySchema, type LibraryQuery } from './query';
import { targetSchema } from './contract-calls';
import { patchOf } from './patch';

export interface WatchDef {
  watchId: string;
  platform: string;
  endpoint: string;
  params: Record<string, string>;
  label: string;
}

export interface WatchlistInfo {
  id: string;
  name: string;
  /** every N hours or a cron expression */
  schedule: { everyHours?: number; cron?: string } | null;
  budgetPerRun: number | null;
  budgetPerMonth: number | null;
  paused: boolean;
  alert: LibraryQuery['labels'] | null;
  watches: WatchDef[];
  lastRunAt: number | null;
  nextRunAt: number | null;
  newSinceSeen: number;
  forecast: { perRunCredits: number; perMonthCredits: number; basis: string } | null;
  /** why there is no forecast yet (null when there is one) */
  forecastNote?: string | null;
  /** pages a watch's first run reads as its baseline */
  firstRunPages?: number;
  /**
   * Set when the schedule cannot run by itself as configured: scheduled without a per-run budget
   * (the standing approval), so a run above the confirmation threshold is skipped (issue 27 #20).
   */
  scheduleNote?: string | null;
}

export interface WatchRunInfo {
  runId: string;
  watchlistId: string;
  startedAt: number;
  finishedAt: number | null;
  status: 'running' | 'done' | 'failed' | 'cancelled' | 'over_budget';
  creditsSpent: number;
  newItems: number;
  /** of the new items, how many match the list's alert (issue 27 #1) */
  alerts?: number;
  /** who started it: 'manual' (the app), 'schedule', 'cli' */
  trigger?: string;
  /** every watch complete */
  complete?: boolean;
  /** one sentence: why the run did not run, or what it stopped on */
  message?: string | null;
  /** while running: pages fetched so far and an honest ETA from the pacer */
  pagesDone?: number;
  etaMs?: number | null;
  watches: Array<{
    watchId: string;
    pages: number;
    credits: number;
    newItems: number;
    stopReason: string | null;
    complete: boolean;
    /** when not complete: the exact gap and how to fill it */
    gap: string | null;
  }>;
}

export const watchInput = targetSchema.extend({ label: z.string().max(200).optional() });
export const watchlistInput = z.object({
  name: z.string().min(1).max(120),
  schedule: z
    .object({
      everyHours: z
        .number()
        .positive()
        .max(24 * 31)
        .optional(),
      cron: z.string().max(120).optional(),
    })
    .nullable()
    .default(null),
  budgetPerRun: z.number().int().nonnegative().nullable().default(null),
  budgetPerMonth: z.number().int().nonnegative().nullable().default(null),
  alert: libraryQuerySchema.shape.labels.nullable().default(null),
  watches: z.array(watchInput).default([]),
  /** how deep a watch's first run reads (the baseline): 1 = the newest page; up to 100 */
  firstRunPages: z.number().int().min(1).max(100).optional(),
});
/**
 * A watchlist's patch: any of its fields (and `paused`), each only when named — no defaults, no
 * unknown field (src/shared/patch.ts). `{ paused: true }` pauses and changes nothing else.
 */
export const watchlistPatch = patchOf(watchlistInput.extend({ paused: z.boolean() }));
export const watchlistUpdateInput = z.object({ id: z.string(), patch: watchlistPatch });
export const watchlistIdInput = z.object({ id: z.string() });
export const addWatchInput = z.object({ id: z.string(), watch: watchInput });
/** approved: the user confirmed a run whose estimate exceeds its budget threshold */
export const watchlistRunInput = z.object({
  id: z.string(),
  approved: z.boolean().default(false),
  /** who starts it, as the run's history records it: the app ('manual') or the command line */
  trigger: z.enum(['manual', 'cli']).default('manual'),
});

/** One alert in the inbox (issue 27 #1): what matched, in which run of which list, read or not. */
export interface AlertInfo {
  alertId: string;
  watchlistId: string;
  /** the list's name now ('' when the list is gone) */
  watchlistName: string;
  runId: string;
  /** labels: new items matched the list's alert conditions; spike: far more new items than expected */
  kind: 'labels' | 'spike';
  at: number;
  /** labels: the matching items; spike: the run's new items */
  items: number;
  /** spike: the new items the list's history expected */
  expected: number | null;
  summary: string;
  read: boolean;
  /** the items the alert is about, as a library query (the run's matches, or its new items) */
  query: LibraryQuery;
  /** e-mail delivery (issue 27 #1): null when none was set when it was raised; a failure's cause in words, retried on the next run */
  email?: { state: 'pending' | 'sending' | 'sent' | 'failed'; error: string | null; tries: number } | null;
}
export const alertsListInput = z.object({ unreadOnly: z.boolean().default(false), limit: z.number().int().min(1).max(500).default(200) });
/** ids: these alerts; all: every unread one; read: false marks them unread again */
export const alertsReadInput = z.object({
  ids: z.array(z.string()).max(1000).optional(),
  all: z.boolean().optional(),
  read: z.boolean().default(true),
});
