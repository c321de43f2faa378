/**
 * A walk read page by page by its caller (the command line's `loupe call` and `loupe resume`):
 * `walks.stream` / `walks.streamResume` start it, `walks.next` answers its next page (or its end),
 * `walks.cancel` stops it. The walk asks the service for its next page only once the caller has
 * asked for it with `walks.next` — backpressure: a reader that is slow (a pipe) holds the walk, and
 * a caller that cancels between two pages stops it before its next request, every charge already
 * made recorded (docs/cli.md "Pipes"). Also the free checks a caller makes first: the target's
 * validation and the service's own dry-run quote. Re-exported by contract.ts.
 */
import { z } from 'zod';
import type { Envelope } from './api-types';
import type { LabelEstimate, WalkStatus } from './contract-calls';
import { sourceSchema, targetSchema } from './contract-calls';

/** `api.validate`: the target against the catalogue (free, nothing sent). */
export interface TargetCheck {
  ok: boolean;
  /** why not (ok false), in words */
  message: string | null;
  /** things worth telling that do not stop the call */
  warnings: string[];
}

/** `api.dryRun`: the service's own `dry_run=1` answer, its fields as the service names them. */
export interface ServiceQuote {
  credits_min: number;
  credits_max: number;
  estimate?: LabelEstimate;
  requestId: string;
}

export const dryRunInput = z.object({ target: targetSchema, source: sourceSchema });

/** A walk read page by page; interactive priority (its reader waits). */
export const walkStreamInput = z.object({
  target: targetSchema,
  source: sourceSchema,
  /** pages in all (none: until the list ends) */
  maxPages: z.number().int().min(1).max(1_000_000).optional(),
  /** never spend more than this (stops before a page that could exceed it) */
  maxCredits: z.number().int().min(0).optional(),
  /** bypass caches: always charged */
  fresh: z.boolean().default(false),
});

/** A saved walk read on page by page; its limits count MORE pages / credits, as walks.resume's. */
export const walkStreamResumeInput = z.object({
  walkId: z.string().min(1).max(200),
  maxPages: z.number().int().min(1).optional(),
  maxCredits: z.number().int().min(0).optional(),
  /** the service rejected the saved position: approve re-reading held pages at a price */
  payRestart: z.boolean().default(false),
});

/** How a walk read page by page ended. */
export interface WalkOutcome {
  walkId: string;
  status: WalkStatus;
  /** 'end', 'since', 'known_id', 'max_pages', 'page_limit', 'credit_limit', 'cancelled', 'restart_costs', 'error:<TYPE>' */
  stopReason: string | null;
  pagesDone: number;
  creditsSpent: number;
  itemsSeen: number;
  newItems: number;
  /** list items without an id of their own (kept raw in the stored answers) */
  unreadable: number;
  /** what happened on the way the user should hear about (restarts, fallbacks) */
  notes: string[];
  /**
   * why it failed or paused: the error model's SerializedError (src/shared/errors.ts: kind,
   * message, the API's type and request id) and, for a refusal, its HTTP status
   */
  error: {
    kind: string;
    message: string;
    type?: string;
    requestId?: string;
    details?: Record<string, unknown>;
    status?: number;
  } | null;
  /** the balance after the walk, when known */
  balance: number | null;
}

/** `walks.next`: the walk's next page as the service answered it, or its end. */
export type WalkStep =
  | {
      kind: 'page';
      walkId: string;
      pageNumber: number;
      envelope: Envelope;
      /** ms until the walk's page limit is reached (null when open-ended) */
      etaMs: number | null;
    }
  | { kind: 'end'; outcome: WalkOutcome };
