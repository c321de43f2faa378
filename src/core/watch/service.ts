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
 *
 * The service is composed of: validate.ts (what a user may give), chain.ts (the chain driver:
 * one watch's walks), run.ts (a watchlist run), schedule.ts (when runs are due, the scheduler),
 * forecast.ts (estimates and forecasts), info.ts (what is answered); this file keeps the
 * watchlists' CRUD and the composition.
 */
import { randomUUID } from 'node:crypto';
import { checkFirstRunPages, checkSchedule, checkWatch, sameTarget } from './validate';
import { estimateFor } from './forecast';
import { info, runInfo } from './info';
import { createRunner } from './run';
import { createScheduler } from './schedule';
import type { WatchlistRow } from '../archive';
import type { Runner, WatchlistCreate, WatchlistPatch, WatchParts, WatchRunDetail, WatchService, WatchServiceOptions } from './types';
import { invalid, mustList } from './util';
import { namedFields } from '../../shared/patch';

export type {
  RunOptions,
  WatchArchive,
  WatchEstimate,
  WatchlistCreate,
  WatchlistDetail,
  WatchlistPatch,
  WatchRunDetail,
  WatchService,
  WatchServiceOptions,
} from './types';

/** Cancels the list's run in progress and waits for it to end; false when none was running. */
async function cancelRun(runner: Runner, id: string): Promise<boolean> {
  const r = runner.running.get(id);
  if (!r) return false;
  r.abort.abort();
  await r.done.catch(() => undefined);
  return true;
}

type CheckedWatch = { platform: string; endpoint: string; params: Record<string, string>; label: string };

export function createWatchService(opts: WatchServiceOptions): WatchService {
  const archive = opts.archive;
  const store = archive.watchlists;
  const clock: WatchParts['clock'] = opts.clock ?? { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };
  const parts: WatchParts = {
    opts,
    archive,
    store,
    clock,
    maxPagesPerWatch: opts.maxPagesPerWatch ?? 50,
    log: (l: string) => opts.log?.(l),
    apiCore: async () => {
      const a = typeof opts.api === 'function' ? await opts.api() : opts.api;
      await a.catalogue.load();
      return a;
    },
  };
  const runner = createRunner(parts);
  const scheduler = createScheduler(parts, runner);

  // a run left 'running' by a process that stopped did not finish; its chains resume next time
  store.closeStaleRuns(
    clock.now(),
    'Interrupted: Loupe stopped during this run; the next run resumes each unfinished walk from its saved cursor.',
  );

  /** Watches checked against the catalogue (nothing written): each with its label. */
  async function checked(ws: NonNullable<WatchlistCreate['watches']>): Promise<CheckedWatch[]> {
    const out: CheckedWatch[] = [];
    for (const w of ws) out.push({ ...(await checkWatch(parts, w)), label: w.label ?? '' });
    return out;
  }

  /** Writes checked watches into a list, each at its position. */
  function insertWatches(listId: string, ws: Array<CheckedWatch & { position: number }>): void {
    const now = clock.now();
    store.insertWatches(
      ws.map((w) => ({
        watchId: randomUUID(),
        watchlistId: listId,
        position: w.position,
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
      })),
    );
  }

  /** A list's watches set to `wanted`: a watch whose target stays keeps its id, marker and held items; the rest go. */
  async function replaceWatches(id: string, ws: NonNullable<WatchlistCreate['watches']>): Promise<void> {
    if (runner.running.has(id)) throw invalid('The watchlist is running; change its watches after the run.');
    const current = store.watches(id);
    const wanted = await checked(ws);
    const kept = new Map<number, string>(); // position in `wanted` → the watch kept for it
    wanted.forEach((w, i) => {
      const m = current.find((c) => ![...kept.values()].includes(c.watchId) && sameTarget(c, w));
      if (m) kept.set(i, m.watchId);
    });
    const keptIds = new Set(kept.values());
    for (const c of current) if (!keptIds.has(c.watchId)) store.deleteWatch(c.watchId);
    for (const [i, watchId] of kept)
      store.setWatchPosition(watchId, i, wanted[i].label || (current.find((c) => c.watchId === watchId)?.label ?? ''));
    insertWatches(
      id,
      wanted.map((w, position) => ({ ...w, position })).filter((w) => !kept.has(w.position)),
    );
  }

  const service: WatchService = {
    async list() {
      return store.lists().map((l) => info(parts, l));
    },
    async get(id) {
      return info(parts, mustList(store, id));
    },
    async create(input) {
      const now = clock.now();
      const frp = checkFirstRunPages(input.firstRunPages ?? 1);
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
      const ws = await checked(input.watches ?? []);
      store.insertList(l);
      insertWatches(
        l.id,
        ws.map((w, position) => ({ ...w, position })),
      );
      return info(parts, l);
    },
    async update(id, patch) {
      // exactly the fields the patch names (src/shared/patch.ts): a field it leaves out stays as it is
      const l = mustList(store, id);
      const next: WatchlistRow = { ...l, updatedAt: clock.now() };
      const set: { [K in keyof WatchlistPatch]-?: (v: Exclude<WatchlistPatch[K], undefined>) => void } = {
        name: (v) => {
          if (!v.trim()) throw invalid('A watchlist needs a name.');
          next.name = v.trim();
        },
        schedule: (v) => void (next.schedule = checkSchedule(v)),
        budgetPerRun: (v) => void (next.budgetPerRun = v),
        budgetPerMonth: (v) => void (next.budgetPerMonth = v),
        alert: (v) => void (next.alert = v && v.length ? v : null),
        paused: (v) => void (next.paused = v),
        firstRunPages: (v) => void (next.firstRunPages = checkFirstRunPages(v)),
        watches: () => undefined, // below, once every other field is known to be valid
      };
      for (const k of namedFields(patch)) {
        if (!Object.prototype.hasOwnProperty.call(set, k)) throw invalid(`A watchlist has no field "${String(k)}".`);
        (set[k] as (v: unknown) => void)(patch[k]);
      }
      if (patch.watches !== undefined) await replaceWatches(id, patch.watches);
      store.updateList(next);
      return info(parts, next);
    },
    async remove(id) {
      mustList(store, id);
      await cancelRun(runner, id);
      store.deleteList(id);
    },
    async addWatch(id, watch) {
      return service.addWatches(id, [watch]);
    },
    async addWatches(id, ws) {
      const l = mustList(store, id);
      const add = await checked(ws);
      const start = store.watches(id).reduce((m, w) => Math.max(m, w.position + 1), 0);
      insertWatches(
        id,
        add.map((w, i) => ({ ...w, position: start + i })),
      );
      store.updateList({ ...l, updatedAt: clock.now() });
      return info(parts, mustList(store, id));
    },
    async estimate(id) {
      return estimateFor(parts, mustList(store, id), await parts.apiCore());
    },
    run(id, o = {}) {
      try {
        return runner.startRun(id, o);
      } catch (e) {
        return Promise.reject(e);
      }
    },
    cancel: (id) => cancelRun(runner, id),
    async history(id) {
      mustList(store, id);
      return store.runs(id).map((r) => runInfo(store, r));
    },
    async markSeen(id) {
      const l = mustList(store, id);
      store.updateList({ ...l, seenAt: clock.now() });
    },
    async runAll(o = {}) {
      const out: WatchRunDetail[] = [];
      for (const l of store.lists()) {
        if (l.paused) continue;
        out.push(await runner.startRun(l.id, o));
      }
      return out;
    },
    tick() {
      return scheduler.tick();
    },
    startScheduler(o = {}) {
      scheduler.start(o);
    },
    stop() {
      scheduler.stop();
    },
    async close() {
      service.stop();
      const all = [...runner.running.values()];
      for (const r of all) r.abort.abort();
      await Promise.all(all.map((r) => r.done.catch(() => undefined)));
      const ticking = scheduler.current();
      if (ticking) await ticking.catch(() => undefined);
    },
  };
  return service;
}
