import type { Catalogue, CatalogueEndpoint, Envelope } from '../../shared/api-types';
import type { LabelEstimate } from '../../shared/contract-calls';
import type { CallTarget, ItemRef, Priority, WalkState, WalkStatus } from '../ports';
import type { ApiError } from './errors';
import type { PacerLimits, PacerStats } from './pacer';
import type { ValidationResult } from './catalogue';
import type { Emitter } from './events';

export type { CallTarget, Priority };

export interface CallOptions {
  /** where the call came from (ledger `source`): 'search', 'profile', 'watch:<id>', 'cli'... */
  source?: string;
  priority?: Priority;
  /** send Cache-Control: no-cache and skip the archive (always charged; ask the user first) */
  fresh?: boolean;
  /**
   * false: ask the service even when the archive holds the exact call inside its cache window
   * (a walk starting over after a rejected cursor needs the service's current cursors; the
   * service's own cache window still makes the repeat free)
   */
  archive?: boolean;
  signal?: AbortSignal;
  /**
   * Stable key of the logical operation (e.g. `walk:<walkId>:page:<n>`). A pending journal
   * entry with this key is reused, Idempotency-Key and all, so a restart replays for free.
   */
  opKey?: string;
  walkId?: string | null;
  /** per-call timeout (ms); default the core's timeoutMs */
  timeoutMs?: number;
}

export interface CallResult<D = Record<string, unknown>> {
  envelope: Envelope<D>;
  /** answered from the archive inside the endpoint's cache window: no request, no cost */
  fromArchive: boolean;
  callId: string;
  idempotencyKey: string | null;
  /** HTTP attempts made (0 from the archive) */
  attempts: number;
  /**
   * credits the service charged for this call, as the ledger records them: the answer's
   * credits_used (0 for archive answers, replays, dry runs, free results) plus any charge inferred
   * for an earlier attempt whose answer was lost (`creditsInferred`)
   */
  creditsUsed: number;
  /** the part of creditsUsed inferred for a lost answer the service had charged */
  creditsInferred: number;
  items: ItemRef[];
  newItems: number;
  /** list items Loupe could not read as records: kept raw in the stored answer, not archived as rows */
  unreadable: number;
  /** fit=goal stubs (rows the service held back) that were not archived as rows */
  heldBack: number;
}

export interface Quote {
  /** price range of this exact call (for label estimates: base + label range) */
  credits_min: number;
  credits_max: number;
  /** present on label-capable endpoints (`data.estimate`) */
  estimate?: LabelEstimate;
  requestId: string;
}

export interface WalkEstimate {
  creditsMin: number;
  creditsMax: number;
  requests: number;
  etaMs: number;
}

export interface WalkOptions {
  source?: string;
  priority?: Priority;
  /**
   * stop once the walk's position reaches this many pages of the list, counting pages already
   * done (a restarted walk re-reading pages it held is not there yet: re-read pages are not new)
   */
  maxPages?: number;
  /** stop (paused, page_limit) after this many page requests in this call, wherever the walk is (a watch's one page at a time) */
  maxRequests?: number;
  /**
   * after the service rejects the saved cursor, the walk starts over from the head; re-reading a
   * page it already held is free when that exact call was answered inside its cache window, and
   * otherwise costs a page: without this the walk stops before such a page (paused,
   * `restart_costs`, with a note of the cost) so the user can be asked; true approves it
   */
  payRestart?: boolean;
  /** stop BEFORE a page whose hold would take the walk's spending past this */
  maxCredits?: number;
  /**
   * pages asked per request where the endpoint accepts `max_pages` (1..5, default 5): one request
   * and one rate slot for up to 5 pages, each billed as a page; 1 turns it off
   */
  pagesPerRequest?: number;
  signal?: AbortSignal;
  fresh?: boolean;
  /** choose the walk id (default a uuid) */
  walkId?: string;
  /** force the paging parameter (default: native one the catalogue lists, else `cursor`) */
  cursorParam?: string;
  /**
   * called after every page with the page's result; a promise it returns is awaited before the
   * next request (backpressure: the CLI waits while a pipe's reader catches up, and stops the walk
   * there when the reader has left)
   */
  onPage?: (page: WalkPage) => unknown;
}

export interface WalkPage {
  walkId: string;
  pageNumber: number;
  result: CallResult;
}

export interface WalkResult {
  walkId: string;
  status: WalkStatus;
  /** 'end', 'since', 'known_id', 'max_pages', 'page_limit', 'credit_limit', 'cancelled', 'error:<TYPE>' */
  stopReason: string | null;
  pagesDone: number;
  creditsSpent: number;
  itemsSeen: number;
  newItems: number;
  /** the position to continue from (null when the list ended) */
  cursor: string | null;
  /** `pagination.stopped_at` of the last page (present when since / stop_at_id was sent) */
  stoppedAt: 'since' | 'known_id' | 'end' | null;
  /** `data.walk.stopped` of the last page (max_pages walks): end, max_pages, time_budget, page_error */
  walkStopped: string | null;
  /** list items that could not be read as records (kept raw in the stored answers) */
  unreadable: number;
  /** fit=goal stubs not archived (their full rows could not be recalled) */
  heldBack: number;
  /** things that happened on the way that the user should hear about (restarts, fallbacks) */
  notes: string[];
  /** while re-reading pages already held after a restart: the saved cursor's position (null otherwise; see WalkState.rewalkAt) */
  rewalkAt: number | null;
  /** the walk started over from the head during this call (a rejected cursor) */
  restarted: boolean;
  /** set when status is 'failed' (or 'cancelled') */
  error?: ApiError;
  state: WalkState;
}

export interface WalkProgress {
  walkId: string;
  platform: string;
  endpoint: string;
  pagesDone: number;
  maxPages: number | null;
  creditsSpent: number;
  itemsSeen: number;
  newItems: number;
  status: WalkStatus;
  stopReason: string | null;
  /** estimated ms until the walk's page limit is reached (null when open-ended) */
  etaMs: number | null;
  /** while re-reading pages already held after a restart: the saved cursor's position */
  rewalkAt?: number | null;
}

export interface AttemptEvent {
  callId: string;
  attempt: number;
  platform: string;
  endpoint: string;
  status: number | null;
  errorType: string | null;
  requestId: string | null;
  creditsUsed: number;
  durationMs: number;
  /** ms the core will wait before the next attempt; null when it will not retry */
  retryInMs: number | null;
  walkId: string | null;
}

export type ApiEvents = {
  balance: { creditsRemaining: number; at: number };
  'walk-progress': WalkProgress;
  'rate-limited': { type: string; retryAfterMs: number; until: number; platform: string; endpoint: string };
  attempt: AttemptEvent;
  warning: { code: string; message: string };
  /** the service refused a key (INVALID_API_KEY / API_KEY_REVOKED): it left the pool in this process */
  'key-refused': { name: string | null; type: string; message: string };
};

export interface CatalogueApi {
  /** GET /v1/endpoints (keyless, free); memory cache, then the catalogue file, then the network */
  load(opts?: { force?: boolean }): Promise<Catalogue>;
  /** GET /v1/openapi.json (keyless, free), cached in memory */
  openapi(opts?: { force?: boolean }): Promise<Record<string, unknown>>;
  /** needs a loaded catalogue (call load first); paths with or without /v1/ and platform prefix */
  find(platform: string, path: string): CatalogueEndpoint | undefined;
  list(platform?: string): CatalogueEndpoint[];
  /** ms since epoch of the loaded catalogue, or null */
  loadedAt(): number | null;
}

export interface PacerView {
  /** the pool's pacing together: limits are the sums over its keys (`keys`: how many; 0 before any is known) */
  stats(): PacerStats & { keys?: number };
  /** ms until `n` more requests of `priority` are done */
  eta(n: number, priority?: Priority): number;
}

/** one key of the pool as the doors may see it (never the key) */
export interface PoolMemberView {
  name: string | null;
  retiring: boolean;
  stats: PacerStats;
}

export interface ApiCore {
  readonly catalogue: CatalogueApi;
  validate(target: CallTarget): Promise<ValidationResult>;
  call<D = Record<string, unknown>>(target: CallTarget, opts?: CallOptions): Promise<CallResult<D>>;
  quote(target: CallTarget, opts?: Omit<CallOptions, 'fresh' | 'opKey'>): Promise<Quote>;
  estimateWalk(target: CallTarget, opts: { pages: number; maxPages?: number; priority?: Priority }): Promise<WalkEstimate>;
  /** what one call holds: the ceiling × every multiplier (max_pages, scan_pages, collect-until-N limit via the free quote) */
  hold(target: CallTarget): Promise<number>;
  walk(target: CallTarget, opts?: WalkOptions): Promise<WalkResult>;
  resumeWalk(walkId: string, opts?: Omit<WalkOptions, 'walkId' | 'cursorParam'>): Promise<WalkResult>;
  /** GET /v1/credits (free, not rate counted); updates the known balance when it reports one */
  credits(): Promise<Record<string, unknown>>;
  /** last known credits_remaining (memory, else the store), or null */
  balance(): number | null;
  readonly pacer: PacerView;
  setLimits(l: PacerLimits): void;
  /** the wait cap (longest single wait slept through) and the absolute deadline of one attempt */
  setWaits(w: { maxWaitMs?: number; timeoutMs?: number }): void;
  /** the keys in the pool (names and pacing), refused keys left out */
  readonly keys: { members(): Promise<PoolMemberView[]> };
  readonly events: Emitter<ApiEvents>;
  close(): Promise<void>;
}
