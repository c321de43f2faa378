/**
 * The watch service's types: its public surface (what `createWatchService` returns and takes,
 * re-exported by service.ts and index.ts) and `WatchParts`, the parts its modules share.
 */
import type { LoupeEvent, WalkEstimate as ContractWalkEstimate, WatchlistInfo, WatchRunInfo } from '../../shared/contract';
import type { LabelCondition } from '../../shared/query';
import type { Clock, JournalEntry, WalkState } from '../ports';
import type { ApiCore } from '../api';
import type { IngestProvenance, IngestRow } from '../archive';
import type { ScheduleDef, WatchStore } from '../archive';
import type { AlertRow } from '../archive';

/** A raised alert (alerts.ts) with what a delivery says about it. */
export interface RaisedAlert extends AlertRow {
  listName: string;
  /** up to 3 snippets of the items it is about */
  sample: string[];
}

/** What the service needs from the archive: the watchlist tables, and the walk/journal rows. */
export interface WatchArchive {
  readonly watchlists: WatchStore;
  getWalk(walkId: string): WalkState | undefined;
  saveWalk(w: WalkState): void;
  findJournal(opKey: string): JournalEntry | undefined;
  /**
   * Links items to a source and walk without a request (a page answered from the archive): the
   * library's watchlist and walk views then list them. Absent → such pages are not linked.
   */
  ingestItems?(rows: IngestRow[], provenance?: IngestProvenance): unknown;
}

export interface WatchServiceOptions {
  /** the request core, or (in the app) a function giving the current one */
  api: ApiCore | (() => Promise<ApiCore>);
  archive: WatchArchive;
  clock?: Clock;
  /** desktop notification (main process); called after scheduled runs with alerts */
  notify?: (title: string, body: string) => void;
  emit?: (event: LoupeEvent) => void;
  /** the user's "ask above N credits" threshold, used when a watchlist has no per-run budget */
  askAboveCredits?: () => number | null;
  /** pages one watch may fetch in one run before it stops (resumable); default 50 */
  maxPagesPerWatch?: number;
  /** watches walked at once; default the pacer's in-flight limit */
  concurrency?: number;
  log?: (line: string) => void;
  /**
   * Brings the clock up to date before a run and a schedule tick (the app: the service clock,
   * read from the sandbox when on it; issue 27 #3). Its failure is logged and the run goes on.
   */
  syncClock?: () => Promise<void>;
  /** sends a finished run's alerts where the user asked (webhook, e-mail: src/core/watch/alert-delivery.ts); they are in the inbox already */
  deliver?: (alerts: RaisedAlert[]) => Promise<void>;
  /** true when alerts raised now are to be e-mailed (an SMTP server is set); they are kept pending until sent */
  willEmail?: () => boolean;
}

export interface WatchlistCreate {
  name: string;
  schedule?: ScheduleDef | null;
  budgetPerRun?: number | null;
  budgetPerMonth?: number | null;
  alert?: LabelCondition[] | null;
  watches?: Array<{ platform: string; endpoint: string; params?: Record<string, string>; label?: string }>;
  /** Loupe-side: pages a watch's first run fetches (default 1) */
  firstRunPages?: number;
}

export type WatchlistPatch = Partial<WatchlistCreate> & { paused?: boolean };

/** The contract's WatchlistInfo plus why there is no forecast yet. */
export interface WatchlistDetail extends WatchlistInfo {
  forecastNote: string | null;
  firstRunPages: number;
  scheduleNote: string | null;
}

/** The contract's WatchRunInfo plus what the UI and CLI print. */
export interface WatchRunDetail extends WatchRunInfo {
  trigger: string;
  alerts: number;
  /** every watch complete */
  complete: boolean;
  /** one sentence: why the run did not run, or what it stopped on */
  message: string | null;
  /** while running: pages fetched so far and an honest ETA from the pacer */
  pagesDone: number;
  etaMs: number | null;
}

export interface WatchEstimate extends ContractWalkEstimate {
  /** why confirmation is needed (null when it is not) */
  reason: string | null;
  perWatch: Array<{ watchId: string; pages: number; creditsMin: number; creditsMax: number; basis: string }>;
  /** credits still allowed this month (null = no month budget) */
  monthRemaining: number | null;
}

export interface RunOptions {
  approved?: boolean;
  signal?: AbortSignal;
  /** 'manual' (app), 'schedule', 'cli' */
  trigger?: string;
}

export interface WatchService {
  list(): Promise<WatchlistDetail[]>;
  get(id: string): Promise<WatchlistDetail>;
  create(input: WatchlistCreate): Promise<WatchlistDetail>;
  update(id: string, patch: WatchlistPatch): Promise<WatchlistDetail>;
  remove(id: string): Promise<void>;
  addWatch(
    id: string,
    watch: { platform: string; endpoint: string; params?: Record<string, string>; label?: string },
  ): Promise<WatchlistDetail>;
  /** appends watches (after the list's last); the list's other watches and fields stay as they are */
  addWatches(id: string, watches: NonNullable<WatchlistCreate['watches']>): Promise<WatchlistDetail>;
  estimate(id: string): Promise<WatchEstimate>;
  run(id: string, opts?: RunOptions): Promise<WatchRunDetail>;
  /** cancels the run in progress (its chains resume next time) and waits for it; false when none was running */
  cancel(id: string): Promise<boolean>;
  history(id: string): Promise<WatchRunDetail[]>;
  markSeen(id: string): Promise<void>;
  /** every watchlist that is not paused, one after the other (CLI `loupe watch run --all`) */
  runAll(opts?: RunOptions): Promise<WatchRunDetail[]>;
  /** run every scheduled watchlist that is due now; returns the runs started */
  tick(): Promise<WatchRunDetail[]>;
  startScheduler(opts?: { tickMs?: number }): void;
  stop(): void;
  /** stop the scheduler, cancel runs in progress (they resume next time) and wait for them */
  close(): Promise<void>;
}

/** What the service's modules share: built once by createWatchService (service.ts). */
export interface WatchParts {
  opts: WatchServiceOptions;
  archive: WatchArchive;
  store: WatchStore;
  clock: Clock;
  /** pages one watch may fetch in one run (opts.maxPagesPerWatch, default 50) */
  maxPagesPerWatch: number;
  log: (line: string) => void;
  /** the request core with its catalogue loaded */
  apiCore: () => Promise<ApiCore>;
}

/** Runs in progress, one per watchlist at a time. */
export interface Runner {
  /** runs in progress by watchlist id: cancel with `abort`, wait on `done` */
  readonly running: Map<string, { abort: AbortController; done: Promise<WatchRunDetail> }>;
  /** start a run (throws when the watchlist is unknown or already running) */
  startRun(id: string, o: RunOptions): Promise<WatchRunDetail>;
}
