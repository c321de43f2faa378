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
import type { WatchlistRow } from '../archive/watchlists';
import type { WatchlistCreate, WatchParts, WatchRunDetail, WatchService, WatchServiceOptions } from './types';
import { invalid, mustList } from './util';

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
  store.closeStaleRuns(clock.now(), 'Interrupted: Loupe stopped during this run; the next run resumes each unfinished walk from its saved cursor.');

  async function addWatches(listId: string, ws: NonNullable<WatchlistCreate['watches']>, startPos: number): Promise<void> {
    const checked: Array<{ platform: string; endpoint: string; params: Record<string, string>; label: string }> = [];
    for (const w of ws) checked.push({ ...(await checkWatch(parts, w)), label: w.label ?? '' });
    const now = clock.now();
    store.insertWatches(
      checked.map((w, i) => ({
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
      })),
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
      const checked: Array<{ platform: string; endpoint: string; params: Record<string, string> }> = [];
      for (const w of input.watches ?? []) checked.push(await checkWatch(parts, w));
      store.insertList(l);
      await addWatches(l.id, (input.watches ?? []).map((w, i) => ({ ...w, ...checked[i] })), 0);
      return info(parts, l);
    },
    async update(id, patch) {
      const l = mustList(store, id);
      const next: WatchlistRow = { ...l, updatedAt: clock.now() };
      if (patch.name !== undefined) next.name = patch.name.trim() || l.name;
      if (patch.schedule !== undefined) next.schedule = checkSchedule(patch.schedule);
      if (patch.budgetPerRun !== undefined) next.budgetPerRun = patch.budgetPerRun;
      if (patch.budgetPerMonth !== undefined) next.budgetPerMonth = patch.budgetPerMonth;
      if (patch.alert !== undefined) next.alert = patch.alert && patch.alert.length ? patch.alert : null;
      if (patch.paused !== undefined) next.paused = patch.paused;
      if (patch.firstRunPages !== undefined) next.firstRunPages = checkFirstRunPages(patch.firstRunPages);
      if (patch.watches !== undefined) {
        if (runner.running.has(id)) throw invalid('The watchlist is running; change its watches after the run.');
        // keep watches whose target is unchanged (their markers and held items stay); drop the rest
        const current = store.watches(id);
        const wanted = [];
        for (const w of patch.watches) wanted.push({ ...(await checkWatch(parts, w)), label: w.label ?? '' });
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
      return info(parts, next);
    },
    async remove(id) {
      mustList(store, id);
      const r = runner.running.get(id);
      if (r) {
        r.abort.abort();
        await r.done.catch(() => undefined);
      }
      store.deleteList(id);
    },
    async addWatch(id, watch) {
      const l = mustList(store, id);
      await addWatches(id, [watch], store.watches(id).length);
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
