/**
 * The whole surface between the UI and the core, as one declaration.
 *
 * Three doors implement the same thing:
 *   - Electron: main binds every method to ipcMain.handle generically; the preload exposes
 *     exactly these methods (and the event stream) through contextBridge as `window.loupe`.
 *   - Web host (src/host): POST /api/<method> with a JSON body, events over SSE (/api/events).
 *   - CLI: calls the core directly.
 * Every input is validated by the schema below at each door (zod), the same schemas everywhere.
 * Outputs are plain JSON (structured-clone safe). Ids are strings, always.
 *
 * The API key never crosses any door: inputs may carry a key only to `keys.add`, and no output
 * ever contains one (the renderer learns only whether a key is set and which is active).
 */
import { z } from 'zod';
import type { Catalogue, CatalogueEndpoint, Envelope } from './api-types';
import { libraryQuerySchema, type LibraryQuery } from './query';
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
  type Overperformance,
} from './analysis';
import { NETWORK_KINDS, networkBuildInputSchema, networkItemsInputSchema, type NetworkItem, type NetworkKindName, type NetworkView } from './contract-network';
import { watchImportInputSchema, type WatchImportPlan, type WatchImportResult } from './contract-watch-import';

// ───────────────────────────── shared input pieces ─────────────────────────────

export const paramsSchema = z.record(z.string(), z.string());
export const targetSchema = z.object({
  platform: z.string().min(1).max(64),
  /** path after the platform; `/v1/<platform>/` prefix tolerated */
  endpoint: z.string().min(1).max(200),
  params: paramsSchema.default({}),
});
export type Target = z.infer<typeof targetSchema>;

export const itemRefSchema = z.object({ platform: z.string(), kind: z.string(), id: z.string() });
export type ItemRefInput = z.infer<typeof itemRefSchema>;

/** Where a call or walk comes from; the Usage view groups spending by it. */
export const sourceSchema = z.string().min(1).max(120); // 'search' | 'profile' | 'comments' | 'explorer' | 'watch:<id>' | 'cli'

// ───────────────────────────── output types ─────────────────────────────

export interface AppInfo {
  version: string;
  /** true when talking to the built-in emulator (synthetic data) */
  sandbox: boolean;
  baseUrl: string;
  keySet: boolean;
  activeKeyName: string | null;
  /** where keys live: 'keyring' | 'safeStorage' | 'env' | 'memory' | 'unavailable' */
  secretBackend: string;
  /** human sentence when the OS keychain is unavailable (no plaintext fallback) */
  secretBackendMessage: string | null;
  dataDir: string;
  /** the door serving this UI */
  door: 'electron' | 'web';
}

export interface KeyInfo {
  name: string;
  active: boolean;
  addedAt: number;
  /** false when the value did not look like a service key when added */
  looksValid: boolean;
  /** 'live' | 'test' | 'unknown' — from the key's format, never the key itself */
  mode: string;
  /** rotation: gets no new work while another key can take it */
  retiring?: boolean;
  /** the service refused it (INVALID_API_KEY / API_KEY_REVOKED): out of the pool until replaced */
  refused?: string | null;
  /** when the ledger last recorded a call made with it (ms), or null */
  lastUsedAt?: number | null;
}

export interface Settings {
  /** null → sandbox (built-in emulator) unless a key is set, then the production base URL */
  baseUrl: string | null;
  rateLimit: { requests: number; windowSeconds: number };
  maxInFlight: number;
  /** ask for confirmation when a run's estimate exceeds this many credits */
  askAboveCredits: number;
  /** the longest single wait (the service's Retry-After or a backoff) sat through; beyond it work stops, resumable */
  maxWaitSeconds: number;
  /** absolute deadline of one attempt (headers and body); the spec asks for a minute or more on heavy endpoints */
  attemptTimeoutSeconds: number;
  theme: 'system' | 'light' | 'dark';
}

export interface BalanceInfo {
  creditsRemaining: number | null;
  freeCallsRemaining: number | null;
  at: number | null;
}

export interface Quote {
  creditsMin: number;
  creditsMax: number;
  /** label-capable endpoints: the service's estimate */
  estimate?: {
    rows_expected: number;
    rows_cached: number;
    label_credits_min: number;
    label_credits_max: number;
    base_credits: number;
  };
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
  /** why it stopped, in BridgeError terms (kind, the API's error.type), so the UI can offer the way out */
  errorKind?: string | null;
  errorType?: string | null;
  /** 'rate_wait': when the service's wait ends (ms since epoch); resume after it */
  retryAt?: number | null;
  etaMs: number | null;
  createdAt: number;
  updatedAt: number;
}

/** The in-process sandbox, as the Sandbox panel shows it (null when the app talks to a real service). */
export interface SandboxState {
  /** the emulator's address (its admin routes sit beside /v1 on it, loopback only) */
  url: string;
  /** the service's clock, ms since epoch, read at `at` (the app's clock) */
  now: number;
  at: number;
  /** sandbox seconds per real second */
  timeScale: number;
  /** the demo account's balance */
  balance: number | null;
  /** share of requests the sandbox answers with a fault (429/500/503/drop), 0 = off */
  faultRate: number;
  requests: number;
  creditsCharged: number;
}

export interface LibraryRow {
  platform: string;
  kind: string;
  id: string;
  /** the record as the API returned it (labels included) */
  record: Record<string, unknown>;
  tags: string[];
  note: string | null;
  overrides: Record<string, Record<string, unknown>>;
  firstSeenAt: number;
  lastSeenAt: number;
}

export interface LibraryPage {
  rows: LibraryRow[];
  next: string | null;
  total: number | null;
}

export interface ItemDetail extends LibraryRow {
  /** which calls returned it, when, at what cost */
  provenance: Array<{
    callId: string;
    requestId: string | null;
    at: number;
    source: string;
    endpoint: string;
    creditsUsed: number;
    cached: boolean;
    replay: boolean;
    freeCall: boolean;
  }>;
  /** field names the network did not provide (from the envelope's `unavailable`) */
  unavailable: string[];
}

export interface SeriesPoint {
  bucket: string; // ISO date (day or week start) or label value
  value: number;
}

export interface LedgerRow {
  id: number;
  at: number;
  platform: string;
  endpoint: string;
  params: Record<string, string>;
  status: number | null;
  errorType: string | null;
  requestId: string | null;
  creditsUsed: number;
  creditsRemaining: number | null;
  chargeReason: string | null;
  cached: boolean;
  freeCall: boolean;
  idempotentReplay: boolean;
  dryRun: boolean;
  fromArchive: boolean;
  source: string;
  durationMs: number;
  /** the name of the API key that made the attempt (never the key); null for an unnamed key */
  keyName?: string | null;
}

export interface UsageSummary {
  balance: BalanceInfo;
  charged: { requests: number; credits: number };
  /** what was not charged and why */
  notCharged: { cached: number; replay: number; freeCall: number; error: number; dryRun: number; empty: number; fromArchive: number };
  perDay: SeriesPoint[];
  perSource: SeriesPoint[];
  perEndpoint: SeriesPoint[];
}

export const EXPORT_FORMAT_NAMES = ['csv', 'json', 'jsonl', 'xlsx', 'parquet', 'gexf', 'graphml'] as const;
export type ExportFormatName = (typeof EXPORT_FORMAT_NAMES)[number];

export interface ExportJob {
  exportId: string;
  status: 'running' | 'done' | 'failed' | 'cancelled';
  rows: number;
  total: number | null;
  path: string | null;
  /** web door: a URL (with token) to download the finished file */
  downloadUrl: string | null;
  error: string | null;
  /** when done: what the file holds, in one sentence (e.g. a network's node and edge counts) */
  summary?: string | null;
}

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
}

export interface WatchRunInfo {
  runId: string;
  watchlistId: string;
  startedAt: number;
  finishedAt: number | null;
  status: 'running' | 'done' | 'failed' | 'cancelled' | 'over_budget';
  creditsSpent: number;
  newItems: number;
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

// ───────────────────────────── the methods ─────────────────────────────

const empty = z.object({}).default({});
const watchlistInput = z.object({
  name: z.string().min(1).max(120),
  schedule: z.object({ everyHours: z.number().positive().max(24 * 31).optional(), cron: z.string().max(120).optional() }).nullable().default(null),
  budgetPerRun: z.number().int().nonnegative().nullable().default(null),
  budgetPerMonth: z.number().int().nonnegative().nullable().default(null),
  alert: libraryQuerySchema.shape.labels.nullable().default(null),
  watches: z.array(targetSchema.extend({ label: z.string().max(200).optional() })).default([]),
  /** how deep a watch's first run reads (the baseline): 1 = the newest page; up to 100 */
  firstRunPages: z.number().int().min(1).max(100).optional(),
});

/** Each method: its input schema and (phantom) output type. */
function m<I extends z.ZodType, O>(input: I) {
  return { input, output: undefined as unknown as O };
}

export const methods = {
  'app.info': m<typeof empty, AppInfo>(empty),

  'keys.list': m<typeof empty, KeyInfo[]>(empty),
  /** the only input that ever carries a key; it goes straight to the secret store */
  'keys.add': m<z.ZodObject<{ name: z.ZodString; key: z.ZodString; activate: z.ZodDefault<z.ZodBoolean> }>, { name: string; warning: string | null }>(
    z.object({ name: z.string().min(1).max(64), key: z.string().min(1).max(512), activate: z.boolean().default(true) }),
  ),
  'keys.use': m<z.ZodObject<{ name: z.ZodString }>, KeyInfo[]>(z.object({ name: z.string().min(1).max(64) })),
  /** rotation (spec Authentication 9): a retiring key gets no new work while another key can take it */
  'keys.retire': m<z.ZodObject<{ name: z.ZodString; retiring: z.ZodDefault<z.ZodBoolean> }>, KeyInfo[]>(z.object({ name: z.string().min(1).max(64), retiring: z.boolean().default(true) })),
  'keys.remove': m<z.ZodObject<{ name: z.ZodString }>, KeyInfo[]>(z.object({ name: z.string().min(1).max(64) })),

  'settings.get': m<typeof empty, Settings>(empty),
  'settings.update': m<z.ZodType<Partial<Settings>>, Settings>(
    z
      .object({
        baseUrl: z.string().url().nullable(),
        rateLimit: z.object({ requests: z.number().int().min(1).max(60), windowSeconds: z.number().int().min(1).max(3600) }),
        maxInFlight: z.number().int().min(1).max(10),
        askAboveCredits: z.number().int().min(0),
        maxWaitSeconds: z.number().int().min(1).max(86_400),
        attemptTimeoutSeconds: z.number().int().min(5).max(600),
        theme: z.enum(['system', 'light', 'dark']),
      })
      .partial(),
  ),

  'credits.get': m<typeof empty, BalanceInfo>(empty),
  /** GET /v1/credits (free) */
  'credits.refresh': m<typeof empty, BalanceInfo>(empty),

  'catalogue.get': m<z.ZodObject<{ force: z.ZodDefault<z.ZodBoolean> }>, Catalogue>(z.object({ force: z.boolean().default(false) })),
  'catalogue.endpoint': m<z.ZodObject<{ platform: z.ZodString; endpoint: z.ZodString }>, CatalogueEndpoint | null>(
    z.object({ platform: z.string(), endpoint: z.string() }),
  ),

  /** free: dry_run=1 (or the archive already holds it) */
  'api.quote': m<typeof targetSchema, Quote>(targetSchema),
  'api.estimateWalk': m<z.ZodType<{ target: Target; pages: number }>, WalkEstimate>(
    z.object({ target: targetSchema, pages: z.number().int().min(1).max(10_000) }),
  ),
  /** one call (explorer, profile card): may spend credits; the UI asks first above the threshold */
  'api.call': m<z.ZodType<{ target: Target; source: string; fresh?: boolean; save?: boolean }>, CallResult>(
    z.object({ target: targetSchema, source: sourceSchema, fresh: z.boolean().default(false), save: z.boolean().default(true) }),
  ),

  'walks.start': m<z.ZodType<{ target: Target; source: string; maxPages?: number; maxCredits?: number }>, WalkInfo>(
    z.object({
      target: targetSchema,
      source: sourceSchema,
      maxPages: z.number().int().min(1).max(10_000).optional(),
      maxCredits: z.number().int().min(0).optional(),
    }),
  ),
  'walks.cancel': m<z.ZodObject<{ walkId: z.ZodString }>, WalkInfo>(z.object({ walkId: z.string() })),
  'walks.resume': m<z.ZodType<{ walkId: string; maxPages?: number; maxCredits?: number }>, WalkInfo>(
    z.object({ walkId: z.string(), maxPages: z.number().int().min(1).optional(), maxCredits: z.number().int().min(0).optional() }),
  ),
  'walks.get': m<z.ZodObject<{ walkId: z.ZodString }>, WalkInfo | null>(z.object({ walkId: z.string() })),
  'walks.list': m<typeof empty, WalkInfo[]>(empty),

  'library.query': m<typeof libraryQuerySchema, LibraryPage>(libraryQuerySchema),
  'library.count': m<typeof libraryQuerySchema, number>(libraryQuerySchema),
  'library.item': m<typeof itemRefSchema, ItemDetail | null>(itemRefSchema),
  'library.volume': m<z.ZodType<{ query: LibraryQuery; bucket: 'day' | 'week' }>, SeriesPoint[]>(
    z.object({ query: libraryQuerySchema, bucket: z.enum(['day', 'week']) }),
  ),
  'library.engagement': m<z.ZodType<{ query: LibraryQuery; bucket: 'day' | 'week'; field: string }>, SeriesPoint[]>(
    z.object({ query: libraryQuerySchema, bucket: z.enum(['day', 'week']), field: z.enum(['views', 'likes', 'comments', 'shares', 'saves']) }),
  ),
  'library.labelDistribution': m<z.ZodType<{ query: LibraryQuery; family: string; field: string }>, SeriesPoint[]>(
    z.object({ query: libraryQuerySchema, family: z.string(), field: z.string() }),
  ),
  'library.topAuthors': m<z.ZodType<{ query: LibraryQuery; limit: number }>, SeriesPoint[]>(
    z.object({ query: libraryQuerySchema, limit: z.number().int().min(1).max(100).default(10) }),
  ),
  'library.tags': m<typeof empty, Array<{ tag: string; count: number }>>(empty),
  'library.tag': m<z.ZodType<{ items: ItemRefInput[]; tag: string; remove?: boolean }>, void>(
    z.object({ items: z.array(itemRefSchema).min(1), tag: z.string().min(1).max(80), remove: z.boolean().default(false) }),
  ),
  'library.tagQuery': m<z.ZodType<{ query: LibraryQuery; tag: string }>, number>(
    z.object({ query: libraryQuerySchema, tag: z.string().min(1).max(80) }),
  ),
  'library.note': m<z.ZodType<{ item: ItemRefInput; note: string | null }>, void>(
    z.object({ item: itemRefSchema, note: z.string().max(20_000).nullable() }),
  ),
  'library.override': m<z.ZodType<{ item: ItemRefInput; family: string; field: string; value: string | number | boolean | null; clear?: boolean }>, void>(
    z.object({
      item: itemRefSchema,
      family: z.string(),
      field: z.string(),
      value: z.union([z.string(), z.number(), z.boolean(), z.null()]),
      clear: z.boolean().default(false),
    }),
  ),
  'library.saveResultSet': m<z.ZodType<{ name: string; query: LibraryQuery; note?: string }>, { id: string }>(
    z.object({ name: z.string().min(1).max(120), query: libraryQuerySchema, note: z.string().max(20_000).optional() }),
  ),
  'library.resultSets': m<typeof empty, Array<{ id: string; name: string; query: LibraryQuery; note: string | null; createdAt: number }>>(empty),

  /** issue 16 analysis (src/shared/analysis.ts, docs/analysis.md) */
  'analysis.frequency': m<typeof frequencyInputSchema, FrequencyTable>(frequencyInputSchema),
  'analysis.compare': m<typeof compareInputSchema, Comparison>(compareInputSchema),
  'analysis.overperformance': m<typeof overperformanceInputSchema, Overperformance>(overperformanceInputSchema),
  'analysis.volumeBy': m<typeof volumeByInputSchema, ChartSeries>(volumeByInputSchema),
  'analysis.labelShare': m<typeof labelShareInputSchema, ChartSeries>(labelShareInputSchema),
  'analysis.engagementDistribution': m<typeof engagementDistributionInputSchema, ChartSeries>(engagementDistributionInputSchema),

  'export.start': m<
    z.ZodType<{ query?: LibraryQuery; items?: ItemRefInput[]; watchlistId?: string; format: ExportFormatName; network?: NetworkKindName; pseudonymise?: boolean; columns?: string[]; bom?: boolean; fileName?: string }>,
    ExportJob
  >(
    z.object({
      query: libraryQuerySchema.optional(),
      items: z.array(itemRefSchema).optional(),
      watchlistId: z.string().optional(),
      format: z.enum(EXPORT_FORMAT_NAMES),
      /** gexf / graphml: which network (docs/analysis.md) */
      network: z.enum(NETWORK_KINDS).optional(),
      /** identities replaced by keyed hashes (docs/export.md "Pseudonymised exports") */
      pseudonymise: z.boolean().default(false),
      columns: z.array(z.string()).optional(),
      bom: z.boolean().default(true),
      fileName: z
        .string()
        .max(200)
        .regex(/^[^/\\]+$/, 'a file name, not a path')
        .optional(),
    }),
  ),
  'export.get': m<z.ZodObject<{ exportId: z.ZodString }>, ExportJob | null>(z.object({ exportId: z.string() })),
  'export.cancel': m<z.ZodObject<{ exportId: z.ZodString }>, ExportJob | null>(z.object({ exportId: z.string() })),
  'export.columns': m<typeof empty, string[]>(empty),

  /** the network view (src/shared/contract-network.ts) */
  'network.build': m<typeof networkBuildInputSchema, NetworkView>(networkBuildInputSchema),
  'network.items': m<typeof networkItemsInputSchema, NetworkItem[]>(networkItemsInputSchema),

  'usage.summary': m<z.ZodType<{ since?: number }>, UsageSummary>(z.object({ since: z.number().optional() })),
  'usage.ledger': m<z.ZodType<{ limit: number; beforeId?: number }>, LedgerRow[]>(
    z.object({ limit: z.number().int().min(1).max(1000).default(200), beforeId: z.number().int().optional() }),
  ),

  'watchlists.list': m<typeof empty, WatchlistInfo[]>(empty),
  'watchlists.create': m<typeof watchlistInput, WatchlistInfo>(watchlistInput),
  'watchlists.update': m<z.ZodType<{ id: string; patch: Partial<z.infer<typeof watchlistInput>> & { paused?: boolean } }>, WatchlistInfo>(
    z.object({ id: z.string(), patch: watchlistInput.partial().extend({ paused: z.boolean().optional() }) }),
  ),
  'watchlists.remove': m<z.ZodObject<{ id: z.ZodString }>, void>(z.object({ id: z.string() })),
  'watchlists.addWatch': m<z.ZodType<{ id: string; watch: Target & { label?: string } }>, WatchlistInfo>(
    z.object({ id: z.string(), watch: targetSchema.extend({ label: z.string().max(200).optional() }) }),
  ),
  'watchlists.estimate': m<z.ZodObject<{ id: z.ZodString }>, WalkEstimate>(z.object({ id: z.string() })),
  /** approved: the user confirmed a run whose estimate exceeds its budget threshold */
  'watchlists.run': m<z.ZodType<{ id: string; approved?: boolean }>, WatchRunInfo>(z.object({ id: z.string(), approved: z.boolean().default(false) })),
  'watchlists.history': m<z.ZodObject<{ id: z.ZodString }>, WatchRunInfo[]>(z.object({ id: z.string() })),
  'watchlists.markSeen': m<z.ZodObject<{ id: z.ZodString }>, void>(z.object({ id: z.string() })),
  /** bulk watches (src/shared/contract-watch-import.ts): what an import would add, and its estimate — writes nothing */
  'watchlists.planImport': m<typeof watchImportInputSchema, WatchImportPlan>(watchImportInputSchema),
  'watchlists.import': m<typeof watchImportInputSchema, WatchImportResult<WatchlistInfo>>(watchImportInputSchema),

  /** the Sandbox panel (only on the built-in sandbox; 'not_available' otherwise) */
  'sandbox.state': m<typeof empty, SandboxState | null>(empty),
  'sandbox.advance': m<z.ZodObject<{ seconds: z.ZodNumber }>, SandboxState>(z.object({ seconds: z.number().int().min(1).max(365 * 86_400) })),
  'sandbox.setBalance': m<z.ZodObject<{ balance: z.ZodNumber }>, SandboxState>(z.object({ balance: z.number().int().min(0).max(1_000_000_000) })),
  'sandbox.faults': m<z.ZodObject<{ rate: z.ZodNumber }>, SandboxState>(z.object({ rate: z.number().min(0).max(0.9) })),
  /** faults off, scripted faults cleared, balance back to its start (the clock only moves forward) */
  'sandbox.reset': m<typeof empty, SandboxState>(empty),
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
  | { type: 'rate-limited'; retryInMs: number; message: string }
  | { type: 'export-progress'; job: ExportJob }
  | { type: 'watch-run'; run: WatchRunInfo; alerts: number }
  | { type: 'notice'; level: 'info' | 'warning' | 'error'; message: string };

export type Unsubscribe = () => void;

/** The full surface a door exposes to the renderer. */
export interface LoupeBridge {
  call<K extends MethodName>(method: K, input?: MethodInput<K>): Promise<MethodOutput<K>>;
  onEvent(listener: (e: LoupeEvent) => void): Unsubscribe;
}

/** Errors cross doors as this shape (never a stack, never a key). */
export interface BridgeError {
  kind: string; // 'api' | 'network' | 'validation' | 'local_budget' | 'insufficient_local' | 'cancelled' | 'gave_up' | 'rate_wait' | 'storage' | 'internal'
  type?: string; // the API's error.type
  message: string;
  requestId?: string;
}

export function parseInput<K extends MethodName>(method: K, input: unknown): MethodParsedInput<K> {
  return methods[method].input.parse(input ?? {}) as MethodParsedInput<K>;
}

export function isMethodName(s: string): s is MethodName {
  return Object.prototype.hasOwnProperty.call(methods, s);
}
