/**
 * Watchlists: monitoring over time that never silently misses data and never overspends.
 * See docs/watchlists.md for the rules; the short version:
 *
 * - A watch is one catalogue endpoint call. Each run walks it newest-first from the head of
 *   the list down to what the watch already holds: on endpoints that accept `stop_at_id`
 *   the service stops the walk (stop_at_id = the marker, since = the marker's time as a safety
 *   net), elsewhere the walk stops after the first page that contains an item the watch
 *   already held before this walk. A watch's first run fetches `firstRunPages` pages (default
 *   1) as its baseline, not the whole history.
 * - The marker (newest non-pinned item held) advances ONLY when a walk chain completes. A chain
 *   cut short (budget, cancel, error, page cap) stays pending and is resumed FIRST on the next
 *   run with its original params (old stop_at_id) from its saved cursor, filling the gap down to
 *   the old marker; only then a new head walk starts (stop_at_id = the newest item the finished
 *   chain saw). So a newest-first walk cut short never leaves a hole between old and new items.
 * - Pages are driven one at a time through the request core (`walk`/`resumeWalk` with
 *   maxPages = pagesDone + 1), all at background priority through the key's shared pacer; each
 *   page first reserves its hold from the run's shared budget (per-run budget and what is left of
 *   the month's), so no page is ever sent whose hold could take spending past a budget.
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { Cron } from 'croner';
import type { CatalogueEndpoint, Envelope } from '../../shared/api-types';
import type { LoupeEvent, WalkEstimate as ContractWalkEstimate, WatchDef, WatchlistInfo, WatchRunInfo } from '../../shared/contract';
import type { LabelCondition } from '../../shared/query';
import type { Clock, JournalEntry, WalkState } from '../ports';
import { ApiError } from '../api/errors';
import { holdOf, maxPagesOf, priceOf } from '../api/catalogue';
import { normalizeEndpoint } from '../api/canonical';
import type { ApiCore, CallResult, WalkResult } from '../api/types';
import { buildWhere } from '../archive/sql-query';
import { readItems } from '../archive/extract';
import type { IngestProvenance, IngestRow } from '../archive/archive';
import type { Database } from 'better-sqlite3';
import { SharedBudget } from './budget';
import { WatchStore, type ChainKind, type PageItem, type RunRow, type RunStatus, type RunWatchRow, type ScheduleDef, type WatchlistRow, type WatchRow } from './store';

const HOUR = 3_600_000;
const DAY = 86_400_000;

/** What the service needs from the archive: its connection, and the walk/journal rows. */
export interface WatchArchive {
  readonly db: Database;
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
  addWatch(id: string, watch: { platform: string; endpoint: string; params?: Record<string, string>; label?: string }): Promise<WatchlistDetail>;
  estimate(id: string): Promise<WatchEstimate>;
  run(id: string, opts?: RunOptions): Promise<WatchRunDetail>;
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

/** Params a watch must not carry: the service owns paging and the incremental boundary. */
const MANAGED_PARAMS = new Set(['cursor', 'dry_run', 'stop_at_id', 'continuationToken', 'max_cursor', 'next_page_id', 'pagination_token', 'next_max_id', 'max_id', 'after', 'page']);

function invalid(message: string): ApiError {
  return new ApiError({ kind: 'validation', message });
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function isoOf(ms: number): string {
  return new Date(ms).toISOString();
}

function parseTime(v: string | undefined): number | null {
  if (!v) return null;
  const t = /^\d{4}-\d{2}-\d{2}$/.test(v) ? Date.parse(`${v}T00:00:00Z`) : Date.parse(v);
  return Number.isFinite(t) ? t : null;
}

/** Items of a list answer, in page order: (kind, id, pinned, published time). */
function pageItems(platform: string, env: Envelope, endpoint: string): Array<PageItem & { pinned: boolean; at: number | null; record: Record<string, unknown> }> {
  // the archive's own reading of a page (record kinds — comments are `comment` —, judgments beside
  // the record, stubs left out), so watch_items join the archive's rows on the same (kind, id)
  return readItems(env.data, endpoint).items.map((it) => {
    const flags = it.record.flags as { pinned?: unknown } | null | undefined;
    const pub = typeof it.record.published_at === 'string' ? Date.parse(it.record.published_at) : NaN;
    return { platform, kind: it.kind, id: it.id, record: it.record, pinned: flags?.pinned === true, at: Number.isFinite(pub) ? pub : null };
  });
}

/** A watch's result within a run: what is stored per run (RunWatchRow) plus what the run needs. */
interface WatchOutcome extends Omit<RunWatchRow, 'runId'> {
  expectedPages: number;
  finished: boolean;
  /** walks restarted from the head because their saved cursor had expired */
  restarts: number;
}

interface RunCtx {
  api: ApiCore;
  list: WatchlistRow;
  run: RunRow;
  budget: SharedBudget;
  budgetLabel: string;
  signal: AbortSignal;
  outcomes: Map<string, WatchOutcome>;
  progress: () => void;
}

export function createWatchService(opts: WatchServiceOptions): WatchService {
  const archive = opts.archive;
  const store = new WatchStore(archive.db);
  const clock: Clock = opts.clock ?? { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };
  const maxPagesPerWatch = opts.maxPagesPerWatch ?? 50;
  const log = (l: string) => opts.log?.(l);
  const running = new Map<string, { abort: AbortController; done: Promise<WatchRunDetail> }>();
  let timer: ReturnType<typeof setInterval> | null = null;
  let ticking: Promise<WatchRunDetail[]> | null = null;

  // a run left 'running' by a process that stopped did not finish; its chains resume next time
  store.closeStaleRuns(clock.now(), 'Interrupted: Loupe stopped during this run; the next run resumes each unfinished walk from its saved cursor.');

  async function apiCore(): Promise<ApiCore> {
    const a = typeof opts.api === 'function' ? await opts.api() : opts.api;
    await a.catalogue.load();
    return a;
  }

  function endpointOf(api: ApiCore, w: { platform: string; endpoint: string }): CatalogueEndpoint {
    const ep = api.catalogue.find(w.platform, w.endpoint);
    if (!ep) throw invalid(`${w.platform}/${w.endpoint} is not in the catalogue.`);
    return ep;
  }

  const accepts = (ep: CatalogueEndpoint, name: string) => ep.params.some((p) => p.name === name);

  function mustList(id: string): WatchlistRow {
    const l = store.list(id);
    if (!l) throw invalid(`No watchlist with id ${id}.`);
    return l;
  }

  // ───────────────────────── validation ─────────────────────────

  function checkSchedule(s: ScheduleDef | null | undefined): ScheduleDef | null {
    if (!s) return null;
    const out: ScheduleDef = {};
    if (s.everyHours !== undefined) {
      if (!(s.everyHours > 0) || s.everyHours > 24 * 31) throw invalid('A schedule runs every 0–744 hours.');
      out.everyHours = s.everyHours;
    }
    if (s.cron !== undefined && s.cron.trim() !== '') {
      try {
        new Cron(s.cron.trim(), { paused: true }).stop();
      } catch (e) {
        throw invalid(`The cron expression '${s.cron}' is not valid: ${e instanceof Error ? e.message : String(e)}.`);
      }
      out.cron = s.cron.trim();
    }
    if (out.everyHours !== undefined && out.cron !== undefined) throw invalid('Give a schedule as every N hours or as a cron expression, not both.');
    return out.everyHours === undefined && out.cron === undefined ? null : out;
  }

  async function checkWatch(w: { platform: string; endpoint: string; params?: Record<string, string> }): Promise<{ platform: string; endpoint: string; params: Record<string, string> }> {
    const params = { ...(w.params ?? {}) };
    const managed = Object.keys(params).filter((k) => MANAGED_PARAMS.has(k));
    if (managed.length) throw invalid(`A watch manages paging and the incremental boundary itself; leave out ${managed.map((m) => `'${m}'`).join(', ')}.`);
    let endpoint = w.endpoint;
    try {
      const api = await apiCore();
      const ep = endpointOf(api, w);
      if (!ep.paginates) throw invalid(`${w.platform}/${normalizeEndpoint(w.platform, ep.path)} returns a single answer, not a list; a watch needs a list endpoint.`);
      const v = await api.validate({ platform: w.platform, endpoint: w.endpoint, params });
      if (!v.ok) throw invalid(v.message);
      endpoint = normalizeEndpoint(w.platform, ep.path);
    } catch (e) {
      if (e instanceof ApiError && e.kind === 'validation') throw e;
      // catalogue unreachable: accept as given; the run reports any problem
      log(`watch: could not validate ${w.platform}/${w.endpoint} now: ${e instanceof Error ? e.message : String(e)}`);
      endpoint = normalizeEndpoint(w.platform, w.endpoint);
    }
    return { platform: w.platform, endpoint, params };
  }

  // ───────────────────────── info ─────────────────────────

  function nextRunAt(l: WatchlistRow): number | null {
    if (l.paused || !l.schedule) return null;
    const last = store.runs(l.id, 1)[0]?.startedAt ?? null;
    if (l.schedule.everyHours !== undefined) return (last ?? l.createdAt) + l.schedule.everyHours * HOUR;
    if (l.schedule.cron) {
      try {
        const c = new Cron(l.schedule.cron, { paused: true });
        const n = c.nextRun(new Date(Math.max(last ?? l.createdAt, l.createdAt)));
        c.stop();
        return n ? n.getTime() : null;
      } catch {
        return null;
      }
    }
    return null;
  }

  /** Hours between runs: the schedule's, else the observed average. */
  function intervalHours(l: WatchlistRow, observed: number | null): number | null {
    if (l.schedule?.everyHours !== undefined) return l.schedule.everyHours;
    if (l.schedule?.cron) {
      try {
        const c = new Cron(l.schedule.cron, { paused: true });
        const runs = c.nextRuns(25, new Date(clock.now()));
        c.stop();
        if (runs.length >= 2) return (runs[runs.length - 1].getTime() - runs[0].getTime()) / (runs.length - 1) / HOUR;
      } catch {
        /* invalid cron: no interval */
      }
    }
    return observed;
  }

  function forecastOf(l: WatchlistRow, watches: WatchRow[]): { forecast: WatchlistInfo['forecast']; note: string | null } {
    const runs = store.runs(l.id, 200).filter((r) => r.status !== 'running').reverse();
    const withPages = runs.filter((r) => store.runWatches(r.runId).some((w) => w.pages > 0));
    if (watches.length === 0) return { forecast: null, note: 'No watches yet.' };
    if (withPages.length < 2) return { forecast: null, note: 'No history yet: a forecast needs two runs (a first run sets the baseline; the second measures how fast new items arrive).' };
    const first = withPages[0].startedAt;
    const last = withPages[withPages.length - 1].startedAt;
    const spanDays = (last - first) / DAY;
    // a rate measured over minutes extrapolates wildly: wait for runs at least an hour apart
    if (!(spanDays >= 1 / 24)) return { forecast: null, note: 'The runs so far are less than an hour apart; a forecast needs runs spread over time.' };
    const iv = intervalHours(l, (last - first) / HOUR / (withPages.length - 1));
    if (!iv || !(iv > 0)) return { forecast: null, note: 'No schedule and no interval between runs to forecast from.' };
    const runIds = new Set(withPages.map((r) => r.runId));
    let perRunCredits = 0;
    let totalNew = 0;
    let totalPages = 0;
    let totalItems = 0;
    let totalCredits = 0;
    for (const w of watches) {
      const hist = store.watchHistory(w.watchId, 500).filter((h) => runIds.has(h.runId));
      const pages = hist.reduce((a, h) => a + h.pages, 0);
      const items = hist.reduce((a, h) => a + h.itemsSeen, 0);
      const credits = hist.reduce((a, h) => a + h.credits, 0);
      // new items that arrived between runs: what non-baseline runs found
      const arrived = hist.filter((h) => !h.firstRun).reduce((a, h) => a + h.newItems, 0);
      totalNew += arrived;
      totalPages += pages;
      totalItems += items;
      totalCredits += credits;
      const perDay = arrived / spanDays;
      const itemsPerPage = pages > 0 && items > 0 ? items / pages : null;
      const pricePerPage = pages > 0 ? credits / pages : null;
      if (pricePerPage === null) continue;
      const newPerRun = perDay * (iv / 24);
      const pagesPerRun = Math.max(1, itemsPerPage ? newPerRun / itemsPerPage : 1);
      perRunCredits += pagesPerRun * pricePerPage;
    }
    const runsPerMonth = (30 * 24) / iv;
    const newPerDay = totalNew / spanDays;
    const itemsPerPage = totalPages > 0 ? totalItems / totalPages : 0;
    const price = totalPages > 0 ? totalCredits / totalPages : 0;
    const basis =
      `${withPages.length} runs over ${spanDays.toFixed(1)} days: ${newPerDay.toFixed(1)} new items/day × ` +
      `${itemsPerPage > 0 ? (1 / itemsPerPage).toFixed(3) : '—'} pages per new item (≈${itemsPerPage.toFixed(0)} items a page, at least 1 page per watch per run) × ` +
      `${price.toFixed(1)} credits a page; a run every ${iv.toFixed(1)} h → ${runsPerMonth.toFixed(0)} runs in 30 days`;
    return { forecast: { perRunCredits: Math.round(perRunCredits), perMonthCredits: Math.round(perRunCredits * runsPerMonth), basis }, note: null };
  }

  function info(l: WatchlistRow): WatchlistDetail {
    const watches = store.watches(l.id);
    const last = store.runs(l.id, 1)[0];
    const f = forecastOf(l, watches);
    return {
      id: l.id,
      name: l.name,
      schedule: l.schedule,
      budgetPerRun: l.budgetPerRun,
      budgetPerMonth: l.budgetPerMonth,
      paused: l.paused,
      alert: l.alert,
      watches: watches.map((w): WatchDef => ({ watchId: w.watchId, platform: w.platform, endpoint: w.endpoint, params: w.params, label: w.label })),
      lastRunAt: last ? last.startedAt : null,
      nextRunAt: nextRunAt(l),
      newSinceSeen: store.newSince(l.id, l.seenAt),
      forecast: f.forecast,
      forecastNote: f.note,
      firstRunPages: l.firstRunPages,
    };
  }

  function runInfo(r: RunRow, live?: { outcomes: Map<string, WatchOutcome>; etaMs: number | null }): WatchRunDetail {
    const rows: RunWatchRow[] = live
      ? [...live.outcomes.values()].map((o) => ({ runId: r.runId, ...o }))
      : store.runWatches(r.runId);
    const watches = rows.map((w) => ({
      watchId: w.watchId,
      pages: w.pages,
      credits: w.credits,
      newItems: w.newItems,
      stopReason: w.stopReason,
      complete: w.complete,
      gap: w.gap,
    }));
    return {
      runId: r.runId,
      watchlistId: r.watchlistId,
      startedAt: r.startedAt,
      finishedAt: r.finishedAt,
      status: r.status,
      creditsSpent: live ? rows.reduce((a, w) => a + w.credits, 0) : r.creditsSpent,
      newItems: live ? rows.reduce((a, w) => a + w.newItems, 0) : r.newItems,
      watches,
      trigger: r.trigger,
      alerts: r.alerts,
      complete: r.status !== 'running' && r.status !== 'over_budget' && watches.length > 0 ? watches.every((w) => w.complete) : false,
      message: r.message,
      pagesDone: rows.reduce((a, w) => a + w.pages, 0),
      etaMs: live ? live.etaMs : null,
    };
  }

  // ───────────────────────── estimate ─────────────────────────

  function monthStart(now: number): number {
    const d = new Date(now);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  }

  function monthRemaining(l: WatchlistRow): number | null {
    if (l.budgetPerMonth === null) return null;
    return Math.max(0, l.budgetPerMonth - store.ledgerCredits(`watch:${l.id}`, monthStart(clock.now())));
  }

  /** Pages a watch is expected to need this run, and why. */
  function expectedPages(l: WatchlistRow, w: WatchRow): { pages: number; basis: string } {
    if (w.pendingWalkId) return { pages: 2, basis: 'an unfinished walk to complete (at least 1 page) then 1 head page' };
    if (w.lastCompleteAt === null) return { pages: l.firstRunPages, basis: `first run: ${l.firstRunPages} page(s) as the baseline` };
    const hist = store.watchHistory(w.watchId, 5).filter((h) => !h.firstRun && h.pages > 0);
    if (hist.length === 0) return { pages: 1, basis: 'no history yet: at least 1 page' };
    const avg = hist.reduce((a, h) => a + h.pages, 0) / hist.length;
    return { pages: Math.max(1, Math.ceil(avg)), basis: `history: ${avg.toFixed(1)} pages a run over the last ${hist.length} run(s)` };
  }

  async function estimateFor(l: WatchlistRow, api: ApiCore): Promise<WatchEstimate> {
    const perWatch: WatchEstimate['perWatch'] = [];
    let min = 0;
    let max = 0;
    let requests = 0;
    for (const w of store.watches(l.id)) {
      const ep = api.catalogue.find(w.platform, w.endpoint);
      const e = expectedPages(l, w);
      const p = ep ? priceOf(ep) : { min: 0, max: 0 };
      const mp = maxPagesOf(w.params);
      const wMin = e.pages * p.min * mp;
      const wMax = e.pages * p.max * mp;
      perWatch.push({ watchId: w.watchId, pages: e.pages, creditsMin: wMin, creditsMax: wMax, basis: e.basis });
      min += wMin;
      max += wMax;
      requests += e.pages;
    }
    const monthLeft = monthRemaining(l);
    const ask = opts.askAboveCredits?.() ?? null;
    let reason: string | null = null;
    if (l.budgetPerRun !== null && max > l.budgetPerRun)
      reason = `The estimate (${fmt(min)}–${fmt(max)} credits) exceeds the per-run budget of ${fmt(l.budgetPerRun)} credits; the budget still caps what the run spends.`;
    else if (monthLeft !== null && max > monthLeft)
      reason = `The estimate (${fmt(min)}–${fmt(max)} credits) exceeds what is left of the month's budget (${fmt(monthLeft)} of ${fmt(l.budgetPerMonth ?? 0)} credits).`;
    else if (l.budgetPerRun === null && ask !== null && max > ask)
      reason = `The estimate (${fmt(min)}–${fmt(max)} credits) is above your confirmation threshold of ${fmt(ask)} credits.`;
    return {
      creditsMin: min,
      creditsMax: max,
      requests,
      etaMs: api.pacer.eta(requests, 'background'),
      balance: api.balance(),
      needsConfirmation: reason !== null,
      reason,
      perWatch,
      monthRemaining: monthLeft,
    };
  }

  // ───────────────────────── running one watch ─────────────────────────

  function headParams(w: WatchRow, ep: CatalogueEndpoint): Record<string, string> {
    const params = { ...w.params };
    if (w.markerId !== null && accepts(ep, 'stop_at_id')) {
      params.stop_at_id = w.markerId;
      if (w.markerAt !== null && accepts(ep, 'since')) {
        // safety net: a deleted marker post must not turn the walk into a full-history walk
        const user = parseTime(params.since);
        if (user === null || user < w.markerAt) params.since = isoOf(w.markerAt);
      }
    }
    return params;
  }

  /**
   * A page answered from the archive (the same call inside its cache window: no request, no
   * charge) was stored under the call that first fetched it, with that call's source and walk. Link
   * its items to this watchlist's source and this walk too (a stored answer without an envelope,
   * no ledger row: nothing was requested), so the items the run counts as new are the items the
   * watchlist lists (issue 14 #2).
   */
  function markWalkDone(walkId: string, reason: string): void {
    const s = archive.getWalk(walkId);
    if (s && s.status !== 'done') archive.saveWalk({ ...s, status: 'done', stopReason: reason, updatedAt: clock.now() });
  }

  function describeChain(w: WatchRow, ep: CatalogueEndpoint): string {
    if (w.pendingKind === 'first') return 'the first-run walk';
    const stopAt = w.pendingParams?.stop_at_id;
    if (stopAt) return `a newer-than-${stopAt} walk`;
    if (accepts(ep, 'stop_at_id')) return 'a head walk';
    return 'a walk down to the first already-held item';
  }

  /**
   * Drives the watch's pending chain page by page until it completes (true) or stops (false,
   * with `out.gap` saying exactly what is missing and how the next run fills it).
   */
  async function driveChain(ctx: RunCtx, ep: CatalogueEndpoint, watchId: string, out: WatchOutcome): Promise<boolean> {
    const source = `watch:${ctx.list.id}`;
    const price = priceOf(ep);
    let w = store.watch(watchId) as WatchRow;
    const chainId = w.pendingChainId as string;
    let restarted = false;
    const stop = (reason: string, why: string, resume = 'the next run resumes from the saved cursor') => {
      w = store.watch(watchId) as WatchRow;
      const walk = w.pendingWalkId ? archive.getWalk(w.pendingWalkId) : undefined;
      const done = walk?.pagesDone ?? 0;
      const where = done > 0 ? `stopped after page ${done} of ${describeChain(w, ep)}` : `stopped before the first page of ${describeChain(w, ep)}`;
      const mp = maxPagesOf(w.pendingParams ?? w.params);
      const missing = w.markerId ? `items newer than ${w.markerId} below that page are not fetched yet` : 'the baseline is not complete yet';
      out.stopReason = reason;
      out.complete = false;
      out.gap = `${where}: ${why}; ${missing}; ${resume} (≈${fmt(price.min * mp)}–${fmt(price.max * mp)} credits a page).`;
      return false;
    };

    for (;;) {
      w = store.watch(watchId) as WatchRow;
      const walkId = w.pendingWalkId as string;
      const params = w.pendingParams ?? w.params;
      const saved = archive.getWalk(walkId);
      if (saved?.status === 'done') {
        store.completeChain(watchId, ctx.run.startedAt);
        out.stopReason = saved.stopReason;
        return true;
      }
      if (w.pendingKind === 'first' && saved && saved.pagesDone >= ctx.list.firstRunPages) {
        markWalkDone(walkId, 'first_run');
        store.completeChain(watchId, ctx.run.startedAt);
        out.stopReason = 'first_run';
        return true;
      }
      if (ctx.signal.aborted) return stop('cancelled', 'the run was cancelled');
      if (out.pages >= maxPagesPerWatch) return stop('page_cap', `the per-run cap of ${maxPagesPerWatch} pages for one watch was reached`);

      // max_pages (issue 15): up to 5 pages in one request and one rate slot where the service
      // itself stops at the chain's boundary (stop_at_id / since) or the pages still wanted are
      // known (a first run's baseline); a walk down to the first held item goes a page at a time,
      // so no page past that item is ever paid for
      const done = saved?.pagesDone ?? 0;
      const bounded = params.stop_at_id !== undefined || params.since !== undefined;
      let want = 1;
      if (accepts(ep, 'max_pages') && params.max_pages === undefined) {
        const capLeft = maxPagesPerWatch - out.pages;
        if (w.pendingKind === 'first') want = Math.min(5, ctx.list.firstRunPages - done, capLeft);
        else if (bounded) want = Math.min(5, capLeft);
        want = Math.max(1, want);
      }
      const holdAt = async (n: number): Promise<number> => {
        const p = n > 1 ? { ...params, max_pages: String(n) } : params;
        try {
          return await ctx.api.hold({ platform: w.platform, endpoint: w.endpoint, params: p });
        } catch {
          return holdOf(ep, p); // the quote could not be had: the parameters' own multipliers stand
        }
      };
      let hold = await holdAt(want);
      let reserved = await ctx.budget.reserve(hold, ctx.signal);
      if (!reserved && want > 1 && !ctx.signal.aborted) {
        // the budget cannot hold several pages: one page may still fit
        want = 1;
        hold = await holdAt(1);
        reserved = await ctx.budget.reserve(hold, ctx.signal);
      }
      if (!reserved) {
        if (ctx.signal.aborted) return stop('cancelled', 'the run was cancelled');
        return stop('budget', `${ctx.budgetLabel} reached (the next page holds ${fmt(hold)} credits, ${fmt(ctx.budget.remaining ?? 0)} left)`);
      }
      let page: CallResult | null = null;
      let res: WalkResult;
      const target = { platform: w.platform, endpoint: w.endpoint, params };
      const common = { source, priority: 'background' as const, signal: ctx.signal, onPage: (p: { result: CallResult }) => (page = p.result) };
      try {
        if (!saved) {
          res = await ctx.api.walk(target, { ...common, walkId, maxPages: want });
        } else {
          const nextOp = `walk:${walkId}:page:${saved.pagesDone + 1}`;
          const j = archive.findJournal(nextOp);
          if (saved.status === 'failed' && j?.state === 'failed') {
            // that page failed for good (nothing to replay): continue the same chain in a new walk
            // from the saved cursor, so the page gets a fresh idempotency key
            const cont = randomUUID();
            const p2 = saved.cursor !== null ? { ...params, [saved.cursorParam]: saved.cursor } : params;
            store.setPendingWalk(watchId, cont, params);
            out.walkIds.push(cont);
            res = await ctx.api.walk({ ...target, params: p2 }, { ...common, walkId: cont, maxPages: want, cursorParam: saved.cursorParam });
          } else {
            res = await ctx.api.resumeWalk(walkId, { ...common, maxPages: saved.pagesDone + want });
          }
        }
      } catch (e) {
        ctx.budget.settle(hold, 0);
        const err = e instanceof ApiError ? e : null;
        return stop(`error:${err?.type ?? err?.kind.toUpperCase() ?? 'INTERNAL'}`, `the walk could not run: ${e instanceof Error ? e.message : String(e)}`);
      }
      const got = page as CallResult | null;
      ctx.budget.settle(hold, got?.creditsUsed ?? 0);
      if (!out.walkIds.includes(res.walkId)) out.walkIds.push(res.walkId);

      let heldHit = 0;
      if (got) {
        // the pages that request walked (several under max_pages)
        out.pages += Math.max(1, res.walkId === walkId ? res.pagesDone - done : res.pagesDone);
        out.credits += got.creditsUsed;
        const items = pageItems(w.platform, got.envelope, w.endpoint);
        const nonPinned = items.filter((i) => !i.pinned);
        heldHit = store.heldBefore(watchId, chainId, nonPinned);
        if (w.pendingNewestId === null && nonPinned.length > 0) store.setPendingNewest(watchId, nonPinned[0].id, nonPinned[0].at);
        out.newItems += store.addItems(watchId, chainId, ctx.run.runId, clock.now(), items);
        out.itemsSeen += items.length;
        ctx.progress();
      }

      if (res.status === 'done') {
        store.completeChain(watchId, ctx.run.startedAt);
        out.stopReason = res.stopReason;
        return true;
      }
      if (res.status === 'paused' && res.stopReason === 'page_limit') {
        if (heldHit > 0) {
          markWalkDone(res.walkId, 'known_item');
          store.completeChain(watchId, ctx.run.startedAt);
          out.stopReason = 'known_item';
          return true;
        }
        continue;
      }
      if (res.status === 'cancelled') return stop('cancelled', 'the run was cancelled while a page was in flight (a page answered meanwhile replays for free under the same idempotency key)');
      if (res.status === 'paused') {
        return stop('balance', `not enough credits for the next page (${res.error?.message ?? 'the hold exceeds the known balance'})`);
      }
      // failed
      if (res.error?.type === 'INVALID_CURSOR' && !restarted) {
        // the saved cursor expired between runs (spec: start again without a cursor). Restart the
        // chain's walk from the head with the SAME params (old stop_at_id / since): pages already
        // read are paid again, but nothing between the head and the old marker is skipped. The
        // chain's newest item is reset so the marker lands on the newest item the restart sees.
        restarted = true;
        const fresh = randomUUID();
        store.setPending(watchId, { walkId: fresh, chainId, params, kind: w.pendingKind ?? 'head', newestId: null, newestAt: null });
        out.walkIds.push(fresh);
        out.restarts++;
        continue;
      }
      const type = res.error?.type ?? res.error?.kind ?? 'ERROR';
      const retries = res.error?.attempts !== undefined ? ` after ${res.error.attempts} attempts` : '';
      return stop(res.stopReason ?? `error:${type}`, `page ${res.pagesDone + 1} failed (${type}${retries}): ${res.error?.message ?? 'no detail'}`, 'the next run retries that page from the saved cursor');
    }
  }

  async function runWatch(ctx: RunCtx, w0: WatchRow): Promise<void> {
    const out = ctx.outcomes.get(w0.watchId) as WatchOutcome;
    try {
      const ep = endpointOf(ctx.api, w0);
      // 1. the unfinished chain first, with its original params (old stop_at_id)
      if (w0.pendingWalkId) {
        out.firstRun = w0.pendingKind === 'first';
        if (!(await driveChain(ctx, ep, w0.watchId, out))) return;
      }
      // 2. a new head chain down to the (possibly just advanced) marker
      const w = store.watch(w0.watchId) as WatchRow;
      const kind: ChainKind = w.lastCompleteAt === null ? 'first' : 'head';
      if (kind === 'first') out.firstRun = true;
      const walkId = randomUUID();
      store.setPending(w.watchId, { walkId, chainId: randomUUID(), params: headParams(w, ep), kind, newestId: null, newestAt: null });
      out.walkIds.push(walkId);
      if (!(await driveChain(ctx, ep, w.watchId, out))) return;
      out.complete = true;
      out.gap = null;
    } catch (e) {
      out.complete = false;
      out.stopReason = `error:${e instanceof ApiError ? (e.type ?? e.kind.toUpperCase()) : 'INTERNAL'}`;
      out.gap = `the watch could not run: ${e instanceof Error ? e.message : String(e)}; nothing was marked as held, the next run tries again.`;
    } finally {
      out.finished = true;
      store.putRunWatch({ runId: ctx.run.runId, ...out });
    }
  }

  // ───────────────────────── alerts ─────────────────────────

  function alertsOf(l: WatchlistRow, runId: string): Array<{ text: string | null; id: string; platform: string }> {
    if (!l.alert || l.alert.length === 0) return [];
    const w = buildWhere({ labels: l.alert });
    const sql = `SELECT i.id, i.platform, i.text FROM items i WHERE ${store.runItemsWhere()}${w.clauses.length ? ` AND ${w.clauses.join(' AND ')}` : ''} ORDER BY i.published_at DESC`;
    return archive.db.prepare(sql).all(runId, ...w.params) as Array<{ text: string | null; id: string; platform: string }>;
  }

  // ───────────────────────── running a watchlist ─────────────────────────

  async function doRun(l: WatchlistRow, o: RunOptions, abort: AbortController): Promise<WatchRunDetail> {
    const api = await apiCore();
    const trigger = o.trigger ?? 'manual';
    const est = await estimateFor(l, api);
    const now = clock.now();
    const run: RunRow = {
      runId: randomUUID(),
      watchlistId: l.id,
      trigger,
      startedAt: now,
      finishedAt: null,
      status: 'running',
      creditsSpent: 0,
      newItems: 0,
      alerts: 0,
      message: null,
      estimate: { creditsMin: est.creditsMin, creditsMax: est.creditsMax, requests: est.requests },
    };
    const watches = store.watches(l.id);
    const monthLeft = est.monthRemaining;
    const refuse = (message: string): WatchRunDetail => {
      const r: RunRow = { ...run, status: 'over_budget', finishedAt: now, message };
      store.insertRun(r);
      const detail = runInfo(r);
      opts.emit?.({ type: 'watch-run', run: detail, alerts: 0 });
      if (trigger === 'schedule') opts.notify?.(`Loupe · ${l.name}: run skipped`, message);
      return detail;
    };
    if (watches.length === 0) return refuse('This watchlist has no watches yet.');
    if (monthLeft !== null && monthLeft <= 0)
      return refuse(`The month's budget of ${fmt(l.budgetPerMonth ?? 0)} credits is used up; the run did not start. Raise the budget or wait for next month.`);
    if (l.budgetPerRun === 0) return refuse('The per-run budget is 0 credits; the run did not start.');
    if (est.needsConfirmation && !o.approved) return refuse(`Needs approval: ${est.reason}`);

    const limit = l.budgetPerRun === null ? monthLeft : monthLeft === null ? l.budgetPerRun : Math.min(l.budgetPerRun, monthLeft);
    const budgetLabel =
      limit === null
        ? 'no budget'
        : l.budgetPerRun !== null && (monthLeft === null || l.budgetPerRun <= monthLeft)
          ? `budget of ${fmt(l.budgetPerRun)} credits`
          : `month budget of ${fmt(l.budgetPerMonth ?? 0)} credits (${fmt(monthLeft ?? 0)} were left at the start of the run)`;
    store.insertRun(run);

    const outcomes = new Map<string, WatchOutcome>();
    const perWatch = new Map(est.perWatch.map((p) => [p.watchId, p.pages]));
    for (const w of watches)
      outcomes.set(w.watchId, {
        watchId: w.watchId,
        pages: 0,
        credits: 0,
        newItems: 0,
        itemsSeen: 0,
        firstRun: false,
        stopReason: null,
        complete: false,
        gap: null,
        walkIds: [],
        expectedPages: perWatch.get(w.watchId) ?? 1,
        finished: false,
        restarts: 0,
      });
    let lastEmit = 0;
    const etaNow = () => {
      let left = 0;
      for (const o2 of outcomes.values()) if (!o2.finished) left += Math.max(1, o2.expectedPages - o2.pages);
      return api.pacer.eta(left, 'background');
    };
    const ctx: RunCtx = {
      api,
      list: l,
      run,
      budget: new SharedBudget(limit),
      budgetLabel,
      signal: abort.signal,
      outcomes,
      progress: () => {
        const t = clock.now();
        if (t - lastEmit < 250 || !opts.emit) return;
        lastEmit = t;
        opts.emit({ type: 'watch-run', run: runInfo(run, { outcomes, etaMs: etaNow() }), alerts: 0 });
      },
    };
    opts.emit?.({ type: 'watch-run', run: runInfo(run, { outcomes, etaMs: etaNow() }), alerts: 0 });

    // as wide as the key pool's in-flight limits together (each key's limit × the keys): the pacers
    // are the bottleneck either way, and holds of queued pages do not pile up against the balance
    await api.keys.members().catch(() => []); // the pool's keys, so its limits below are theirs together
    const width = Math.max(1, Math.min(watches.length, opts.concurrency ?? api.pacer.stats().limits.maxInFlight));
    let next = 0;
    await Promise.all(
      Array.from({ length: width }, async () => {
        for (;;) {
          const i = next++;
          if (i >= watches.length) return;
          await runWatch(ctx, watches[i]);
        }
      }),
    );

    const outs = [...outcomes.values()];
    const spent = outs.reduce((a, x) => a + x.credits, 0);
    const newItems = outs.reduce((a, x) => a + x.newItems, 0);
    let status: RunStatus = 'done';
    if (abort.signal.aborted) status = 'cancelled';
    else if (outs.some((x) => x.stopReason === 'budget')) status = 'over_budget';
    else if (outs.some((x) => !x.complete)) status = 'failed';
    const incomplete = outs.filter((x) => !x.complete);
    const alerts = status === 'cancelled' ? [] : alertsOf(l, run.runId);
    const finished: RunRow = {
      ...run,
      finishedAt: clock.now(),
      status,
      creditsSpent: spent,
      newItems,
      alerts: alerts.length,
      message:
        incomplete.length === 0
          ? `Complete: ${newItems} new item(s), ${fmt(spent)} credits.`
          : `${incomplete.length} of ${outs.length} watch(es) incomplete (${[...new Set(incomplete.map((x) => x.stopReason))].join(', ')}); the next run resumes them from their saved cursors.`,
    };
    store.finishRun(finished);
    const detail = runInfo(finished);
    if (alerts.length > 0 && trigger === 'schedule' && opts.notify) {
      const sample = alerts
        .slice(0, 3)
        .map((a) => `• ${(a.text ?? a.id).replace(/\s+/g, ' ').slice(0, 100)}`)
        .join('\n');
      opts.notify(`Loupe · ${l.name}: ${alerts.length} new item(s) match the alert`, sample);
    }
    opts.emit?.({ type: 'watch-run', run: detail, alerts: alerts.length });
    return detail;
  }

  function startRun(id: string, o: RunOptions): Promise<WatchRunDetail> {
    const l = mustList(id);
    if (running.has(id)) throw invalid(`Watchlist '${l.name}' is already running.`);
    const abort = new AbortController();
    setMaxListeners(0, abort.signal); // every page in flight listens to the run's signal
    if (o.signal) {
      if (o.signal.aborted) abort.abort();
      else o.signal.addEventListener('abort', () => abort.abort(), { once: true });
    }
    const done = doRun(l, o, abort).finally(() => running.delete(id));
    running.set(id, { abort, done });
    return done;
  }

  // ───────────────────────── the service ─────────────────────────

  async function addWatches(listId: string, ws: NonNullable<WatchlistCreate['watches']>, startPos: number): Promise<void> {
    const checked: Array<{ platform: string; endpoint: string; params: Record<string, string>; label: string }> = [];
    for (const w of ws) checked.push({ ...(await checkWatch(w)), label: w.label ?? '' });
    const now = clock.now();
    archive.db.transaction(() => {
      checked.forEach((w, i) =>
        store.insertWatch({
          watchId: randomUUID(),
          watchlistId: listId,
          position: startPos + i,
          platform: w.platform,
          endpoint: w.endpoint,
          params: w.params,
          label: w.label || `${w.platform}/${w.endpoint}`,
          markerId: null,
          markerAt: null,
          lastCompleteAt: null,
          pendingWalkId: null,
          pendingChainId: null,
          pendingParams: null,
          pendingKind: null,
          pendingNewestId: null,
          pendingNewestAt: null,
          createdAt: now,
        }),
      );
    })();
  }

  const sameTarget = (a: { platform: string; endpoint: string; params: Record<string, string> }, b: { platform: string; endpoint: string; params: Record<string, string> }) =>
    a.platform === b.platform &&
    normalizeEndpoint(a.platform, a.endpoint) === normalizeEndpoint(b.platform, b.endpoint) &&
    JSON.stringify(Object.entries(a.params).sort()) === JSON.stringify(Object.entries(b.params).sort());

  const service: WatchService = {
    async list() {
      return store.lists().map(info);
    },
    async get(id) {
      return info(mustList(id));
    },
    async create(input) {
      const now = clock.now();
      const frp = input.firstRunPages ?? 1;
      if (!Number.isInteger(frp) || frp < 1 || frp > 100) throw invalid('First-run pages must be a whole number from 1 to 100.');
      const l: WatchlistRow = {
        id: randomUUID(),
        name: input.name.trim(),
        schedule: checkSchedule(input.schedule),
        budgetPerRun: input.budgetPerRun ?? null,
        budgetPerMonth: input.budgetPerMonth ?? null,
        paused: false,
        alert: input.alert && input.alert.length ? input.alert : null,
        firstRunPages: frp,
        seenAt: now,
        createdAt: now,
        updatedAt: now,
      };
      if (!l.name) throw invalid('A watchlist needs a name.');
      // validate the watches before anything is written
      const checked: Array<{ platform: string; endpoint: string; params: Record<string, string> }> = [];
      for (const w of input.watches ?? []) checked.push(await checkWatch(w));
      store.insertList(l);
      await addWatches(l.id, (input.watches ?? []).map((w, i) => ({ ...w, ...checked[i] })), 0);
      return info(l);
    },
    async update(id, patch) {
      const l = mustList(id);
      const next: WatchlistRow = { ...l, updatedAt: clock.now() };
      if (patch.name !== undefined) next.name = patch.name.trim() || l.name;
      if (patch.schedule !== undefined) next.schedule = checkSchedule(patch.schedule);
      if (patch.budgetPerRun !== undefined) next.budgetPerRun = patch.budgetPerRun;
      if (patch.budgetPerMonth !== undefined) next.budgetPerMonth = patch.budgetPerMonth;
      if (patch.alert !== undefined) next.alert = patch.alert && patch.alert.length ? patch.alert : null;
      if (patch.paused !== undefined) next.paused = patch.paused;
      if (patch.firstRunPages !== undefined) {
        if (!Number.isInteger(patch.firstRunPages) || patch.firstRunPages < 1 || patch.firstRunPages > 100) throw invalid('First-run pages must be a whole number from 1 to 100.');
        next.firstRunPages = patch.firstRunPages;
      }
      if (patch.watches !== undefined) {
        if (running.has(id)) throw invalid('The watchlist is running; change its watches after the run.');
        // keep watches whose target is unchanged (their markers and held items stay); drop the rest
        const current = store.watches(id);
        const wanted = [];
        for (const w of patch.watches) wanted.push({ ...(await checkWatch(w)), label: w.label ?? '' });
        const kept = new Set<string>();
        const toAdd: typeof wanted = [];
        wanted.forEach((w) => {
          const m = current.find((c) => !kept.has(c.watchId) && sameTarget(c, w));
          if (m) kept.add(m.watchId);
          else toAdd.push(w);
        });
        for (const c of current) if (!kept.has(c.watchId)) store.deleteWatch(c.watchId);
        wanted.forEach((w, i) => {
          const m = current.find((c) => kept.has(c.watchId) && sameTarget(c, w));
          if (m) store.setWatchPosition(m.watchId, i, w.label || m.label);
        });
        await addWatches(id, toAdd, wanted.length);
      }
      store.updateList(next);
      return info(next);
    },
    async remove(id) {
      mustList(id);
      const r = running.get(id);
      if (r) {
        r.abort.abort();
        await r.done.catch(() => undefined);
      }
      store.deleteList(id);
    },
    async addWatch(id, watch) {
      const l = mustList(id);
      await addWatches(id, [watch], store.watches(id).length);
      store.updateList({ ...l, updatedAt: clock.now() });
      return info(mustList(id));
    },
    async estimate(id) {
      return estimateFor(mustList(id), await apiCore());
    },
    run(id, o = {}) {
      try {
        return startRun(id, o);
      } catch (e) {
        return Promise.reject(e);
      }
    },
    async history(id) {
      mustList(id);
      return store.runs(id).map((r) => runInfo(r));
    },
    async markSeen(id) {
      const l = mustList(id);
      store.updateList({ ...l, seenAt: clock.now() });
    },
    async runAll(o = {}) {
      const out: WatchRunDetail[] = [];
      for (const l of store.lists()) {
        if (l.paused) continue;
        out.push(await startRun(l.id, o));
      }
      return out;
    },
    tick() {
      if (ticking) return ticking;
      ticking = (async () => {
        const out: WatchRunDetail[] = [];
        const now = clock.now();
        for (const l of store.lists()) {
          if (l.paused || !l.schedule || running.has(l.id)) continue;
          const due = nextRunAt(l);
          if (due === null || due > now) continue;
          // a scheduled run has nobody to ask: a per-run budget is the standing approval (it caps
          // spending); without one, a run above the confirmation threshold is skipped and notified
          const approved = l.budgetPerRun !== null;
          try {
            out.push(await startRun(l.id, { trigger: 'schedule', approved }));
          } catch (e) {
            log(`watch: scheduled run of ${l.name} failed: ${e instanceof Error ? e.message : String(e)}`);
          }
        }
        return out;
      })().finally(() => (ticking = null));
      return ticking;
    },
    startScheduler(o = {}) {
      if (timer) return;
      const tickMs = o.tickMs ?? 30_000;
      timer = setInterval(() => void service.tick().catch(() => undefined), tickMs);
      timer.unref?.();
      void service.tick().catch(() => undefined);
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
    async close() {
      service.stop();
      const all = [...running.values()];
      for (const r of all) r.abort.abort();
      await Promise.all(all.map((r) => r.done.catch(() => undefined)));
      if (ticking) await ticking.catch(() => undefined);
    },
  };
  return service;
}
