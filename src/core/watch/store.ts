/**
 * SQL for the watchlist tables (archive migration 0002-watchlists). Synchronous
 * (better-sqlite3), on the archive's own connection so watch state and the items it
 * points at live in one file and one WAL.
 */
import type { Database } from 'better-sqlite3';
import type { LabelCondition } from '../../shared/query';

export interface ScheduleDef {
  everyHours?: number;
  cron?: string;
}

export interface WatchlistRow {
  id: string;
  name: string;
  schedule: ScheduleDef | null;
  budgetPerRun: number | null;
  budgetPerMonth: number | null;
  paused: boolean;
  alert: LabelCondition[] | null;
  firstRunPages: number;
  seenAt: number;
  createdAt: number;
  updatedAt: number;
}

export type ChainKind = 'first' | 'head';

export interface WatchRow {
  watchId: string;
  watchlistId: string;
  position: number;
  platform: string;
  endpoint: string;
  params: Record<string, string>;
  label: string;
  markerId: string | null;
  markerAt: number | null;
  lastCompleteAt: number | null;
  pendingWalkId: string | null;
  pendingChainId: string | null;
  pendingParams: Record<string, string> | null;
  pendingKind: ChainKind | null;
  pendingNewestId: string | null;
  pendingNewestAt: number | null;
  createdAt: number;
}

export type RunStatus = 'running' | 'done' | 'failed' | 'cancelled' | 'over_budget';

export interface RunRow {
  runId: string;
  watchlistId: string;
  trigger: string;
  startedAt: number;
  finishedAt: number | null;
  status: RunStatus;
  creditsSpent: number;
  newItems: number;
  alerts: number;
  message: string | null;
  estimate: unknown;
}

export interface RunWatchRow {
  runId: string;
  watchId: string;
  pages: number;
  credits: number;
  newItems: number;
  itemsSeen: number;
  firstRun: boolean;
  stopReason: string | null;
  complete: boolean;
  gap: string | null;
  walkIds: string[];
}

function json<T>(s: string | null): T | null {
  if (s === null) return null;
  try {
    return JSON.parse(s) as T;
  } catch {
    return null;
  }
}

interface ListDb {
  id: string;
  name: string;
  schedule: string | null;
  budget_per_run: number | null;
  budget_per_month: number | null;
  paused: number;
  alert: string | null;
  first_run_pages: number;
  seen_at: number;
  created_at: number;
  updated_at: number;
}
interface WatchDb {
  watch_id: string;
  watchlist_id: string;
  position: number;
  platform: string;
  endpoint: string;
  params: string;
  label: string;
  marker_id: string | null;
  marker_at: number | null;
  last_complete_at: number | null;
  pending_walk_id: string | null;
  pending_chain_id: string | null;
  pending_params: string | null;
  pending_kind: string | null;
  pending_newest_id: string | null;
  pending_newest_at: number | null;
  created_at: number;
}
interface RunDb {
  run_id: string;
  watchlist_id: string;
  trigger: string;
  started_at: number;
  finished_at: number | null;
  status: string;
  credits_spent: number;
  new_items: number;
  alerts: number;
  message: string | null;
  estimate: string | null;
}
interface RunWatchDb {
  run_id: string;
  watch_id: string;
  pages: number;
  credits: number;
  new_items: number;
  items_seen: number;
  first_run: number;
  stop_reason: string | null;
  complete: number;
  gap: string | null;
  walk_ids: string;
}

const listFrom = (r: ListDb): WatchlistRow => ({
  id: r.id,
  name: r.name,
  schedule: json<ScheduleDef>(r.schedule),
  budgetPerRun: r.budget_per_run,
  budgetPerMonth: r.budget_per_month,
  paused: r.paused === 1,
  alert: json<LabelCondition[]>(r.alert),
  firstRunPages: r.first_run_pages,
  seenAt: r.seen_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const watchFrom = (r: WatchDb): WatchRow => ({
  watchId: r.watch_id,
  watchlistId: r.watchlist_id,
  position: r.position,
  platform: r.platform,
  endpoint: r.endpoint,
  params: json<Record<string, string>>(r.params) ?? {},
  label: r.label,
  markerId: r.marker_id,
  markerAt: r.marker_at,
  lastCompleteAt: r.last_complete_at,
  pendingWalkId: r.pending_walk_id,
  pendingChainId: r.pending_chain_id,
  pendingParams: json<Record<string, string>>(r.pending_params),
  pendingKind: r.pending_kind === 'first' || r.pending_kind === 'head' ? r.pending_kind : null,
  pendingNewestId: r.pending_newest_id,
  pendingNewestAt: r.pending_newest_at,
  createdAt: r.created_at,
});

const runFrom = (r: RunDb): RunRow => ({
  runId: r.run_id,
  watchlistId: r.watchlist_id,
  trigger: r.trigger,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
  status: r.status as RunStatus,
  creditsSpent: r.credits_spent,
  newItems: r.new_items,
  alerts: r.alerts,
  message: r.message,
  estimate: json<unknown>(r.estimate),
});

const runWatchFrom = (r: RunWatchDb): RunWatchRow => ({
  runId: r.run_id,
  watchId: r.watch_id,
  pages: r.pages,
  credits: r.credits,
  newItems: r.new_items,
  itemsSeen: r.items_seen,
  firstRun: r.first_run === 1,
  stopReason: r.stop_reason,
  complete: r.complete === 1,
  gap: r.gap,
  walkIds: json<string[]>(r.walk_ids) ?? [],
});

export interface PageItem {
  platform: string;
  kind: string;
  id: string;
}

export class WatchStore {
  constructor(readonly db: Database) {}

  // ───────── watchlists ─────────
  lists(): WatchlistRow[] {
    return (this.db.prepare('SELECT * FROM watchlists ORDER BY created_at, id').all() as ListDb[]).map(listFrom);
  }
  list(id: string): WatchlistRow | undefined {
    const r = this.db.prepare('SELECT * FROM watchlists WHERE id = ?').get(id) as ListDb | undefined;
    return r ? listFrom(r) : undefined;
  }
  insertList(l: WatchlistRow): void {
    this.db
      .prepare(
        `INSERT INTO watchlists (id, name, schedule, budget_per_run, budget_per_month, paused, alert, first_run_pages, seen_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(l.id, l.name, l.schedule ? JSON.stringify(l.schedule) : null, l.budgetPerRun, l.budgetPerMonth, l.paused ? 1 : 0,
        l.alert ? JSON.stringify(l.alert) : null, l.firstRunPages, l.seenAt, l.createdAt, l.updatedAt);
  }
  updateList(l: WatchlistRow): void {
    this.db
      .prepare(
        `UPDATE watchlists SET name = ?, schedule = ?, budget_per_run = ?, budget_per_month = ?, paused = ?, alert = ?,
           first_run_pages = ?, seen_at = ?, updated_at = ? WHERE id = ?`,
      )
      .run(l.name, l.schedule ? JSON.stringify(l.schedule) : null, l.budgetPerRun, l.budgetPerMonth, l.paused ? 1 : 0,
        l.alert ? JSON.stringify(l.alert) : null, l.firstRunPages, l.seenAt, l.updatedAt, l.id);
  }
  deleteList(id: string): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM watch_items WHERE watch_id IN (SELECT watch_id FROM watches WHERE watchlist_id = ?)').run(id);
      this.db.prepare('DELETE FROM watch_run_watches WHERE run_id IN (SELECT run_id FROM watch_runs WHERE watchlist_id = ?)').run(id);
      this.db.prepare('DELETE FROM watch_runs WHERE watchlist_id = ?').run(id);
      this.db.prepare('DELETE FROM watches WHERE watchlist_id = ?').run(id);
      this.db.prepare('DELETE FROM watchlists WHERE id = ?').run(id);
    })();
  }

  // ───────── watches ─────────
  watches(listId: string): WatchRow[] {
    return (this.db.prepare('SELECT * FROM watches WHERE watchlist_id = ? ORDER BY position, watch_id').all(listId) as WatchDb[]).map(watchFrom);
  }
  watch(watchId: string): WatchRow | undefined {
    const r = this.db.prepare('SELECT * FROM watches WHERE watch_id = ?').get(watchId) as WatchDb | undefined;
    return r ? watchFrom(r) : undefined;
  }
  insertWatch(w: WatchRow): void {
    this.db
      .prepare(
        `INSERT INTO watches (watch_id, watchlist_id, position, platform, endpoint, params, label, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(w.watchId, w.watchlistId, w.position, w.platform, w.endpoint, JSON.stringify(w.params), w.label, w.createdAt);
  }
  setWatchPosition(watchId: string, position: number, label: string): void {
    this.db.prepare('UPDATE watches SET position = ?, label = ? WHERE watch_id = ?').run(position, label, watchId);
  }
  deleteWatch(watchId: string): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM watch_items WHERE watch_id = ?').run(watchId);
      this.db.prepare('DELETE FROM watches WHERE watch_id = ?').run(watchId);
    })();
  }
  /** Start (or replace) the unfinished chain of a watch. */
  setPending(
    watchId: string,
    p: { walkId: string; chainId: string; params: Record<string, string>; kind: ChainKind; newestId: string | null; newestAt: number | null },
  ): void {
    this.db
      .prepare(
        `UPDATE watches SET pending_walk_id = ?, pending_chain_id = ?, pending_params = ?, pending_kind = ?,
           pending_newest_id = ?, pending_newest_at = ? WHERE watch_id = ?`,
      )
      .run(p.walkId, p.chainId, JSON.stringify(p.params), p.kind, p.newestId, p.newestAt, watchId);
  }
  setPendingWalk(watchId: string, walkId: string, params: Record<string, string>): void {
    this.db.prepare('UPDATE watches SET pending_walk_id = ?, pending_params = ? WHERE watch_id = ?').run(walkId, JSON.stringify(params), watchId);
  }
  setPendingNewest(watchId: string, id: string, at: number | null): void {
    this.db.prepare('UPDATE watches SET pending_newest_id = ?, pending_newest_at = ? WHERE watch_id = ?').run(id, at, watchId);
  }
  /** The chain completed: the marker advances to its newest item (if it saw one) and the chain is cleared. */
  completeChain(watchId: string, at: number): void {
    this.db
      .prepare(
        `UPDATE watches SET marker_id = coalesce(pending_newest_id, marker_id),
           marker_at = CASE WHEN pending_newest_id IS NULL THEN marker_at ELSE pending_newest_at END,
           last_complete_at = ?, pending_walk_id = NULL, pending_chain_id = NULL, pending_params = NULL,
           pending_kind = NULL, pending_newest_id = NULL, pending_newest_at = NULL
         WHERE watch_id = ?`,
      )
      .run(at, watchId);
  }

  // ───────── held items ─────────
  /** Items of `refs` this watch held before the chain `chainId` (an earlier chain fetched them). */
  heldBefore(watchId: string, chainId: string, refs: PageItem[]): number {
    if (refs.length === 0) return 0;
    const st = this.db.prepare('SELECT 1 FROM watch_items WHERE watch_id = ? AND platform = ? AND kind = ? AND item_id = ? AND chain_id <> ?');
    let n = 0;
    for (const r of refs) if (st.get(watchId, r.platform, r.kind, r.id, chainId)) n++;
    return n;
  }
  /** Records the items; returns how many are new for this watch. */
  addItems(watchId: string, chainId: string, runId: string, at: number, refs: PageItem[]): number {
    const st = this.db.prepare(
      `INSERT INTO watch_items (watch_id, platform, kind, item_id, chain_id, run_id, seen_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT DO NOTHING`,
    );
    return this.db.transaction(() => {
      let n = 0;
      for (const r of refs) n += st.run(watchId, r.platform, r.kind, r.id, chainId, runId, at).changes;
      return n;
    })();
  }
  heldCount(watchId: string): number {
    return (this.db.prepare('SELECT count(*) AS n FROM watch_items WHERE watch_id = ?').get(watchId) as { n: number }).n;
  }
  newSince(listId: string, since: number): number {
    return (
      this.db
        .prepare('SELECT count(*) AS n FROM watch_items WHERE seen_at > ? AND watch_id IN (SELECT watch_id FROM watches WHERE watchlist_id = ?)')
        .get(since, listId) as { n: number }
    ).n;
  }
  /** Archive row ids of the items first held in `runId`. */
  runItemsWhere(): string {
    return 'EXISTS (SELECT 1 FROM watch_items wi WHERE wi.run_id = ? AND wi.platform = i.platform AND wi.kind = i.kind AND wi.item_id = i.id)';
  }

  // ───────── runs ─────────
  insertRun(r: RunRow): void {
    this.db
      .prepare(
        `INSERT INTO watch_runs (run_id, watchlist_id, trigger, started_at, finished_at, status, credits_spent, new_items, alerts, message, estimate)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(r.runId, r.watchlistId, r.trigger, r.startedAt, r.finishedAt, r.status, r.creditsSpent, r.newItems, r.alerts, r.message,
        r.estimate === undefined ? null : JSON.stringify(r.estimate));
  }
  finishRun(r: RunRow): void {
    this.db
      .prepare('UPDATE watch_runs SET finished_at = ?, status = ?, credits_spent = ?, new_items = ?, alerts = ?, message = ? WHERE run_id = ?')
      .run(r.finishedAt, r.status, r.creditsSpent, r.newItems, r.alerts, r.message, r.runId);
  }
  putRunWatch(w: RunWatchRow): void {
    this.db
      .prepare(
        `INSERT INTO watch_run_watches (run_id, watch_id, pages, credits, new_items, items_seen, first_run, stop_reason, complete, gap, walk_ids)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (run_id, watch_id) DO UPDATE SET pages = excluded.pages, credits = excluded.credits, new_items = excluded.new_items,
           items_seen = excluded.items_seen, first_run = excluded.first_run, stop_reason = excluded.stop_reason,
           complete = excluded.complete, gap = excluded.gap, walk_ids = excluded.walk_ids`,
      )
      .run(w.runId, w.watchId, w.pages, w.credits, w.newItems, w.itemsSeen, w.firstRun ? 1 : 0, w.stopReason, w.complete ? 1 : 0, w.gap,
        JSON.stringify(w.walkIds));
  }
  runs(listId: string, limit = 200): RunRow[] {
    return (this.db.prepare('SELECT * FROM watch_runs WHERE watchlist_id = ? ORDER BY started_at DESC, rowid DESC LIMIT ?').all(listId, limit) as RunDb[]).map(
      runFrom,
    );
  }
  run(runId: string): RunRow | undefined {
    const r = this.db.prepare('SELECT * FROM watch_runs WHERE run_id = ?').get(runId) as RunDb | undefined;
    return r ? runFrom(r) : undefined;
  }
  runWatches(runId: string): RunWatchRow[] {
    return (this.db.prepare('SELECT * FROM watch_run_watches WHERE run_id = ? ORDER BY rowid').all(runId) as RunWatchDb[]).map(runWatchFrom);
  }
  /** Per-watch history, newest first. */
  watchHistory(watchId: string, limit = 10): Array<RunWatchRow & { startedAt: number }> {
    return (
      this.db
        .prepare(
          `SELECT rw.*, r.started_at FROM watch_run_watches rw JOIN watch_runs r ON r.run_id = rw.run_id
           WHERE rw.watch_id = ? ORDER BY r.started_at DESC LIMIT ?`,
        )
        .all(watchId, limit) as Array<RunWatchDb & { started_at: number }>
    ).map((r) => ({ ...runWatchFrom(r), startedAt: r.started_at }));
  }
  /** Runs left 'running' by a process that stopped: they did not finish. */
  closeStaleRuns(at: number, message: string): number {
    return this.db.prepare("UPDATE watch_runs SET status = 'cancelled', finished_at = ?, message = ? WHERE status = 'running'").run(at, message).changes;
  }

  /** Credits the ledger recorded for `source` since `since` (ms). */
  ledgerCredits(source: string, since: number): number {
    const r = this.db.prepare('SELECT coalesce(sum(credits_used), 0) AS c FROM calls WHERE source = ? AND started_at >= ?').get(source, since) as { c: number };
    return r.c;
  }
}
