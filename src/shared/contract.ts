/**
 * The whole surface between the UI and the core, as one declaration.
 *
 * Three doors implement the same thing:
 *   - Electron: main binds every method to ipcMain.handle generically; the preload exposes
 *     exactly these methods (and the event stream) through contextBridge as `window.loupe`.
 *   - Web host (src/host): POST /api/<method> with a JSON body, events over SSE (/api/events).
 *   - CLI: calls the core directly.
 * Every input is validated by the schema below at each door (zod), the same schemas everywhere;
 * input types are the schemas' own (z.input / z.output), never restated by hand.
 * Outputs are plain JSON (structured-clone safe). Ids are strings, always.
 *
 * The API key never crosses any door: inputs may carry a key only to `keys.add`, and no output
 * ever contains one (the renderer learns only whether a key is set and which is active).
 *
 * The pieces live by domain (contract-account, -calls, -library, -watch, -network, -watch-import);
 * this file is the one import path: it re-exports them and holds the method table.
 */
import { z } from 'zod';
import type { Catalogue, CatalogueEndpoint } from './api-types';
import type { ReconcileAnswer } from './ledger';
import { libraryPageInputSchema, libraryQuerySchema } from './query';
import {
  compareInputSchema,
  engagementDistributionInputSchema,
  frequencyInputSchema,
  labelShareInputSchema,
  overperformanceInputSchema,
  volumeByInputSchema,
  type ChartSeries,
  type Comparison,
  type FrequencyTable,
  type IndexBuild,
  type IndexStatus,
  type Overperformance,
} from './analysis';
import { networkBuildInputSchema, networkItemsInputSchema, type NetworkItem, type NetworkView } from './contract-network';
import { archiveSnapshotInput, snapshotIdInput, type SnapshotJob } from './contract-archive';
import { watchImportInputSchema, type WatchImportPlan, type WatchImportResult } from './contract-watch-import';
import { emailPasswordInput, type EmailPasswordState, type EmailTestResult } from './alert-email';
import {
  collectDesignSchema,
  collectIdInput,
  collectInputsInput,
  collectRunInput,
  type CollectInputsPage,
  type CollectPlan,
  type CollectStatus,
} from './contract-collect';
import {
  bundleJobInputSchema,
  bundleImportInputSchema,
  bundleUploadInputSchema,
  bundleVerifyInputSchema,
  datasetTargetSchema,
  recheckInputSchema,
  rehydrateInputSchema,
  type AttritionRow,
  type BundleUpload,
  type ImportReport,
  type RecheckPlan,
  type RecheckResult,
  type RehydratePlan,
  type RehydrateReport,
  type VerifyReport,
} from './contract-datasets';
import {
  emptyInput,
  keyNameInput,
  keysAddInput,
  keysRetireInput,
  sandboxAdvanceInput,
  sandboxBalanceInput,
  sandboxFaultsInput,
  settingsUpdateInput,
  type AppInfo,
  type BalanceInfo,
  type KeyInfo,
  type SandboxState,
  type Settings,
} from './contract-account';
import {
  callInput,
  estimateWalkInput,
  targetSchema,
  usageLedgerInput,
  usageSummaryInput,
  walkIdInput,
  walksSavedInput,
  type WalkState,
  walkResumeInput,
  walkStartInput,
  type CallResult,
  type LedgerEntry,
  type Quote,
  type UsageSummary,
  type WalkEstimate,
  type WalkInfo,
} from './contract-calls';
import {
  engagementInput,
  exportIdInput,
  exportStartInput,
  itemRefSchema,
  labelDistributionInput,
  noteInput,
  overrideInput,
  saveResultSetInput,
  tagInput,
  tagQueryInput,
  topAuthorsInput,
  volumeInput,
  watchlistNameInput,
  type ExportJob,
  type ItemDetail,
  type LibraryQueryAnswer,
  type ResultSetInfo,
  type SeriesPoint,
} from './contract-library';
import {
  dryRunInput,
  walkStreamInput,
  walkStreamResumeInput,
  type ServiceQuote,
  type TargetCheck,
  type WalkStep,
} from './contract-walk-stream';
import { tagsColorInput, tagsDeleteInput, tagsMergeInput, tagsRenameInput, type TagChange, type TagInfo } from './contract-tags';
import {
  addWatchInput,
  alertsListInput,
  alertsReadInput,
  type AlertInfo,
  watchlistIdInput,
  watchlistInput,
  watchlistRunInput,
  watchlistUpdateInput,
  type WatchlistInfo,
  type WatchRunInfo,
} from './contract-watch';

export * from './contract-account';
export * from './contract-calls';
export * from './contract-library';
export * from './contract-watch';
export * from './contract-collect';
export * from './contract-archive';
export * from './contract-datasets';
export * from './contract-tags';
export * from './contract-walk-stream';

// ───────────────────────────── the methods ─────────────────────────────

/** Each method: its input schema and (phantom) output type — `m<Output>()(inputSchema)`. */
function m<O>() {
  return <I extends z.ZodType>(input: I) => ({ input, output: undefined as O });
}
const empty = emptyInput;

export const methods = {
  'app.info': m<AppInfo>()(empty),

  'keys.list': m<KeyInfo[]>()(empty),
  /** the only input that ever carries a key; it goes straight to the secret store */
  /** `backend`: where the key went (the OS keychain's name, Electron's safeStorage…) */
  'keys.add': m<{ name: string; warning: string | null; backend: string }>()(keysAddInput),
  'keys.use': m<KeyInfo[]>()(keyNameInput),
  /** rotation (spec Authentication 9): a retiring key gets no new work while another key can take it */
  'keys.retire': m<KeyInfo[]>()(keysRetireInput),
  'keys.remove': m<KeyInfo[]>()(keyNameInput),

  'settings.get': m<Settings>()(empty),
  'settings.update': m<Settings>()(settingsUpdateInput),
  /** the SMTP password of e-mailed alerts: stored in the OS keychain (a string), removed (null), or only asked about */
  'settings.emailPassword': m<EmailPasswordState>()(emailPasswordInput),
  /** one test message through the saved SMTP settings; the result in words (never throws for a send that failed) */
  'settings.testEmail': m<EmailTestResult>()(empty),

  'credits.get': m<BalanceInfo>()(empty),
  /** GET /v1/credits (free) */
  'credits.refresh': m<BalanceInfo>()(empty),
  /**
   * the ledger against the balance's movement (from `since`, ms), then the last reading against
   * GET /v1/credits (free): every gap, the expected and the live balance, whether all agree
   */
  'credits.reconcile': m<ReconcileAnswer>()(z.object({ since: z.number().optional() })),
  /** GET /v1/credits (free), the service's answer as it gave it (`loupe credits`) */
  'credits.answer': m<Record<string, unknown>>()(empty),

  'catalogue.get': m<Catalogue>()(z.object({ force: z.boolean().default(false) })),
  'catalogue.endpoint': m<CatalogueEndpoint | null>()(z.object({ platform: z.string(), endpoint: z.string() })),

  /** free: dry_run=1 (or the archive already holds it) */
  'api.quote': m<Quote>()(targetSchema),
  'api.estimateWalk': m<WalkEstimate>()(estimateWalkInput),
  /** one call (explorer, profile card): may spend credits; the UI asks first above the threshold */
  'api.call': m<CallResult>()(callInput),
  /**
   * stops the call started with this `callId` as a cancelled walk stops: before its next request
   * (a retry, a wait); a request in flight is not aborted — its answer is awaited for the grace and
   * recorded, else left pending in the journal. true when such a call was running.
   */
  'api.cancel': m<boolean>()(z.object({ callId: z.string().min(1).max(200) })),
  /** the target against the catalogue: free, nothing sent */
  'api.validate': m<TargetCheck>()(targetSchema),
  /** the service's own dry_run=1 answer (free), its fields as the service names them */
  'api.dryRun': m<ServiceQuote>()(dryRunInput),

  'walks.start': m<WalkInfo>()(walkStartInput),
  'walks.cancel': m<WalkInfo>()(walkIdInput),
  'walks.resume': m<WalkInfo>()(walkResumeInput),
  'walks.get': m<WalkInfo | null>()(walkIdInput),
  'walks.list': m<WalkInfo[]>()(empty),
  /**
   * the saved walks as the archive holds them (one by id, or all, newest first), each in the state
   * its process left it: `running` (that process is alive), `interrupted` (it is gone: resumable),
   * `paused`, `done`, `failed`, `cancelled` — what `loupe walks` and `loupe resume` read
   */
  'walks.saved': m<WalkState[]>()(walksSavedInput),
  /**
   * a walk its caller reads page by page (src/shared/contract-walk-stream.ts): answers its id at
   * once; each `walks.next` answers a page, and the walk asks for the next one only when the caller
   * asks `walks.next` again (backpressure); `walks.cancel` stops it before its next request
   */
  'walks.stream': m<{ walkId: string }>()(walkStreamInput),
  /** a saved walk (interrupted, paused, limited) read on page by page from its saved cursor */
  'walks.streamResume': m<{ walkId: string }>()(walkStreamResumeInput),
  'walks.next': m<WalkStep>()(walkIdInput),

  'library.query': m<LibraryQueryAnswer>()(libraryPageInputSchema),
  'library.count': m<number>()(libraryQuerySchema),
  'library.item': m<ItemDetail | null>()(itemRefSchema),
  'library.volume': m<SeriesPoint[]>()(volumeInput),
  'library.engagement': m<SeriesPoint[]>()(engagementInput),
  'library.labelDistribution': m<SeriesPoint[]>()(labelDistributionInput),
  'library.topAuthors': m<SeriesPoint[]>()(topAuthorsInput),
  'library.tags': m<Array<{ tag: string; count: number }>>()(empty),
  'library.tag': m<void>()(tagInput),
  'library.tagQuery': m<number>()(tagQueryInput),
  'library.note': m<void>()(noteInput),
  'library.override': m<void>()(overrideInput),
  'library.saveResultSet': m<{ id: string }>()(saveResultSetInput),
  'library.resultSets': m<ResultSetInfo[]>()(empty),
  /** the id of the watchlist with this name (or this id), null when there is none: a query's watchlist source named by a person (the CLI's --watchlist) */
  'library.watchlistId': m<string | null>()(watchlistNameInput),

  /** tag management (src/shared/contract-tags.ts, issue 27 #7): a change touches only what it names; `dryRun` says what it would touch */
  'tags.list': m<TagInfo[]>()(empty),
  'tags.rename': m<TagChange>()(tagsRenameInput),
  'tags.merge': m<TagChange>()(tagsMergeInput),
  'tags.delete': m<TagChange>()(tagsDeleteInput),
  'tags.color': m<TagInfo>()(tagsColorInput),

  /** issue 16 analysis (src/shared/analysis.ts, docs/analysis.md) */
  'analysis.frequency': m<FrequencyTable>()(frequencyInputSchema),
  'analysis.compare': m<Comparison>()(compareInputSchema),
  'analysis.overperformance': m<Overperformance>()(overperformanceInputSchema),
  'analysis.volumeBy': m<ChartSeries>()(volumeByInputSchema),
  'analysis.labelShare': m<ChartSeries>()(labelShareInputSchema),
  'analysis.engagementDistribution': m<ChartSeries>()(engagementDistributionInputSchema),
  'analysis.indexStatus': m<IndexStatus>()(empty),
  /** builds the analysis index now, in the foreground, its progress as index-progress events (`loupe archive index`) */
  'analysis.buildIndex': m<IndexBuild>()(empty),

  'export.start': m<ExportJob>()(exportStartInput),
  'export.get': m<ExportJob | null>()(exportIdInput),
  'export.cancel': m<ExportJob | null>()(exportIdInput),
  'export.columns': m<string[]>()(empty),

  /** a consistent one-file copy of the archive while Loupe works (src/shared/contract-archive.ts) */
  'archive.snapshot': m<SnapshotJob>()(archiveSnapshotInput),
  'archive.snapshotGet': m<SnapshotJob | null>()(snapshotIdInput),
  'archive.snapshotCancel': m<SnapshotJob | null>()(snapshotIdInput),

  /** the network view (src/shared/contract-network.ts) */
  'network.build': m<NetworkView>()(networkBuildInputSchema),
  'network.items': m<NetworkItem[]>()(networkItemsInputSchema),

  'usage.summary': m<UsageSummary>()(usageSummaryInput),
  'usage.ledger': m<LedgerEntry[]>()(usageLedgerInput),

  'watchlists.list': m<WatchlistInfo[]>()(empty),
  'watchlists.create': m<WatchlistInfo>()(watchlistInput),
  'watchlists.update': m<WatchlistInfo>()(watchlistUpdateInput),
  'watchlists.remove': m<void>()(watchlistIdInput),
  'watchlists.addWatch': m<WatchlistInfo>()(addWatchInput),
  'watchlists.estimate': m<WalkEstimate>()(watchlistIdInput),
  /** approved: the user confirmed a run whose estimate exceeds its budget threshold */
  'watchlists.run': m<WatchRunInfo>()(watchlistRunInput),
  'watchlists.history': m<WatchRunInfo[]>()(watchlistIdInput),
  /**
   * stops the watchlist's run in progress in this process as a cancelled walk stops (before the
   * next request; a page in flight awaited and recorded; its chains resume next time) and waits
   * for it to end; true when one was running
   */
  'watchlists.cancel': m<boolean>()(watchlistIdInput),
  'watchlists.markSeen': m<void>()(watchlistIdInput),
  /** bulk watches (src/shared/contract-watch-import.ts): what an import would add, and its estimate — writes nothing */
  'watchlists.planImport': m<WatchImportPlan>()(watchImportInputSchema),
  'watchlists.import': m<WatchImportResult<WatchlistInfo>>()(watchImportInputSchema),
  /** the alert inbox, newest first, and how many are unread (issue 27 #1) */
  'watchlists.alerts': m<{ alerts: AlertInfo[]; unread: number }>()(alertsListInput),
  'watchlists.alertsRead': m<{ changed: number; unread: number }>()(alertsReadInput),

  /** collection plans (src/shared/contract-collect.ts, docs/collect.md): a design priced as one plan — writes nothing */
  'collect.preview': m<CollectPlan>()(collectDesignSchema),
  /** saves the plan (spends nothing); a plan of the same name gets the new inputs only */
  'collect.create': m<CollectPlan>()(collectDesignSchema),
  /** runs (or continues) the plan; answers when the run ends — progress as collect-progress events */
  'collect.run': m<CollectStatus>()(collectRunInput),
  'collect.cancel': m<CollectStatus>()(collectIdInput),
  'collect.get': m<CollectStatus | null>()(collectIdInput),
  'collect.list': m<CollectStatus[]>()(empty),
  'collect.inputs': m<CollectInputsPage>()(collectInputsInput),
  /** forgets the plan (its archived items and saved set stay) */
  'collect.remove': m<void>()(collectIdInput),

  /** datasets (src/shared/contract-datasets.ts, docs/datasets.md): a set's re-check priced as one plan — writes nothing */
  'datasets.recheckPlan': m<RecheckPlan>()(recheckInputSchema),
  /** re-reads a set's posts through single-item endpoints (approval or budget first); marks found / not found */
  'datasets.recheck': m<RecheckResult>()(recheckInputSchema),
  /** available / unavailable / not re-checked, by network and publication month */
  'datasets.attrition': m<AttritionRow[]>()(z.object({ target: datasetTargetSchema })),
  /** a set or query as a bundle (items, history, annotations, answers, manifest with checksums and a root hash; dehydrated: keys, calls, a quote)
   * written as an export job (progress events, export.get, export.cancel): a .zip or a folder in the exports folder. A bundle at a path of
   * the door's choosing is the local doors' (src/shared/contract-local.ts) */
  'datasets.bundleJob': m<ExportJob>()(bundleJobInputSchema),
  /** one part of a bundle .zip the renderer sends (in order, base64): kept in the data folder under an id the core chooses, for verify, import and rehydrate */
  'datasets.upload': m<BundleUpload>()(bundleUploadInputSchema),
  /** every file, row and answer of a bundle (an upload or an export job's) against its manifest (and, asked, the archive) */
  'datasets.verifyBundle': m<VerifyReport>()(bundleVerifyInputSchema),
  /** merges a bundle that verifies into this archive: each item and answer once, nothing paid, annotation conflicts listed */
  'datasets.importBundle': m<ImportReport>()(bundleImportInputSchema),
  /** a dehydrated bundle's re-collection priced now as one plan, beside the bundle's own quote — writes nothing, spends nothing */
  'datasets.rehydratePlan': m<RehydratePlan>()(rehydrateInputSchema),
  /** re-collects a dehydrated bundle's items (approval or a budget first; resumes an unfinished one); the report and a key check */
  'datasets.rehydrate': m<RehydrateReport>()(rehydrateInputSchema),

  /** the Sandbox panel (only on the built-in sandbox; 'not_available' otherwise) */
  'sandbox.state': m<SandboxState | null>()(empty),
  'sandbox.advance': m<SandboxState>()(sandboxAdvanceInput),
  'sandbox.setBalance': m<SandboxState>()(sandboxBalanceInput),
  'sandbox.faults': m<SandboxState>()(sandboxFaultsInput),
  /** faults off, scripted faults cleared, balance back to its start (the clock only moves forward) */
  'sandbox.reset': m<SandboxState>()(empty),
} as const;

export type MethodName = keyof typeof methods;
export const METHOD_NAMES = Object.keys(methods) as MethodName[];
export type MethodInput<K extends MethodName> = z.input<(typeof methods)[K]['input']>;
export type MethodParsedInput<K extends MethodName> = z.output<(typeof methods)[K]['input']>;
export type MethodOutput<K extends MethodName> = (typeof methods)[K]['output'];

/** What the renderer calls (window.loupe in Electron, the HTTP client in a browser). */
export type LoupeApi = {
  [K in MethodName]: (input?: MethodInput<K>) => Promise<MethodOutput<K>>;
};

/** What the core implements: inputs already validated by the door. */
export type LoupeImpl = {
  [K in MethodName]: (input: MethodParsedInput<K>) => Promise<MethodOutput<K>>;
};

// ───────────────────────────── events ─────────────────────────────

export type LoupeEvent =
  | { type: 'walk-progress'; walk: WalkInfo }
  | { type: 'balance'; balance: BalanceInfo }
  /** another process (the CLI, a cron `loupe watch run`) wrote the ledger of this data folder: Usage is stale; a `balance` follows */
  | { type: 'ledger-changed' }
  | { type: 'rate-limited'; retryInMs: number; message: string }
  | { type: 'export-progress'; job: ExportJob }
  | { type: 'snapshot-progress'; job: SnapshotJob }
  /** analysis.buildIndex: of `total` items and authors waiting, `done` taken in */
  | { type: 'index-progress'; done: number; total: number }
  | {
      type: 'watch-run';
      run: WatchRunInfo;
      alerts: number;
      /** the list's name */ list?: string;
      /** what the finished run raised, in words (the alert inbox) */ raised?: string[];
    }
  | { type: 'collect-progress'; plan: CollectStatus }
  | { type: 'notice'; level: 'info' | 'warning' | 'error'; message: string };

export type Unsubscribe = () => void;

/** The full surface a door exposes to the renderer. */
export interface LoupeBridge {
  call<K extends MethodName>(method: K, input?: MethodInput<K>): Promise<MethodOutput<K>>;
  onEvent(listener: (e: LoupeEvent) => void): Unsubscribe;
}

// Errors cross doors as the error model's SerializedError (src/shared/errors.ts): never a stack, never a key.

export function parseInput<K extends MethodName>(method: K, input: unknown): MethodParsedInput<K> {
  return methods[method].input.parse(input ?? {}) as MethodParsedInput<K>;
}

export function isMethodName(s: string): s is MethodName {
  return Object.prototype.hasOwnProperty.call(methods, s);
}
