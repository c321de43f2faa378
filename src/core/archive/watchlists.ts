/**
 * The watchlist tables (migration 0002-watchlists): watchlists, watches, the items each watch
 * holds, runs. On the archive's own connection so watch state and the items it points at live in
 * one file and one WAL; the watch service (src/core/watch) reaches them as `archive.watchlists`.
 */
import type { LabelCondition } from '../../shared/query';
import type { ArchiveCtx } from './context';
import { creditsOfSource } from './ledger';
import { buildWhere } from './sql-query';
import { sql, where } from './sql';
import { WatchAlertStore } from './watch-alerts';

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

/** How many of a watch's most recently seen items the run's order reads (heldSpans). */
const HELD_SPAN_ITEMS = 200;

export class WatchStore {
  /** the alert inbox (watch-alerts.ts, issue 27 #1) */
  readonly alerts: WatchAlertStore;
  constructor(private readonly c: ArchiveCtx) {
    this.alerts = new WatchAlertStore(c);
  }

  // ───────── watchlists ─────────
  lists(): WatchlistRow[] {
    return this.c.sql.all<ListDb>(sql`SELECT * FROM watchlists ORDER BY created_at, id`).map(listFrom);
  }
  list(id: string): WatchlistRow | undefined {
    const r = this.c.sql.get<ListDb>(sql`SELECT * FROM watchlists WHERE id = ${id}`);
    return r ? listFrom(r) : undefined;
  }
  insertList(l: WatchlistRow): void {
    this.c.sql.insert`watchlists`({
      id: l.id,
      name: l.name,
      schedule: l.schedule ? JSON.stringify(l.schedule) : null,
      budget_per_run: l.budgetPerRun,
      budget_per_month: l.budgetPerMonth,
      paused: l.paused ? 1 : 0,
      alert: l.alert ? JSON.stringify(l.alert) : null,
      first_run_pages: l.firstRunPages,
      seen_at: l.seenAt,
      created_at: l.createdAt,
      updated_at: l.updatedAt,
    });
  }
  updateList(l: WatchlistRow): void {
    this.c.sql.run(
      sql`UPDATE watchlists SET name = ${l.name}, schedule = ${l.schedule ? JSON.stringify(l.schedule) : null}, budget_per_run = ${l.budgetPerRun},
            budget_per_month = ${l.budgetPerMonth}, paused = ${l.paused ? 1 : 0}, alert = ${l.alert ? JSON.stringify(l.alert) : null},
            first_run_pages = ${l.firstRunPages}, seen_at = ${l.seenAt}, updated_at = ${l.updatedAt} WHERE id = ${l.id}`,
    );
  }
  deleteList(id: string): void {
    this.c.tx(() => {
      this.c.sql.run(sql`DELETE FROM watch_items WHERE watch_id IN (SELECT watch_id FROM watches WHERE watchlist_id = ${id})`);
      this.c.sql.run(sql`DELETE FROM watch_run_watches WHERE run_id IN (SELECT run_id FROM watch_runs WHERE watchlist_id = ${id})`);
      this.c.sql.run(sql`DELETE FROM watch_runs WHERE watchlist_id = ${id}`);
      this.alerts.deleteForList(id);
      this.c.sql.run(sql`DELETE FROM watches WHERE watchlist_id = ${id}`);
      this.c.sql.run(sql`DELETE FROM watchlists WHERE id = ${id}`);
    });
  }

  // ───────── watches ─────────
  watches(listId: string): WatchRow[] {
    return this.c.sql.all<WatchDb>(sql`SELECT * FROM watches WHERE watchlist_id = ${listId} ORDER BY position, watch_id`).map(watchFrom);
  }
  watch(watchId: string): WatchRow | undefined {
    const r = this.c.sql.get<WatchDb>(sql`SELECT * FROM watches WHERE watch_id = ${watchId}`);
    return r ? watchFrom(r) : undefined;
  }
  insertWatch(w: WatchRow): void {
    this.c.sql.insert`watches`({
      watch_id: w.watchId,
      watchlist_id: w.watchlistId,
      position: w.position,
      platform: w.platform,
      endpoint: w.endpoint,
      params: JSON.stringify(w.params),
      label: w.label,
      created_at: w.createdAt,
    });
  }
  /** Several watches in one transaction. */
  insertWatches(ws: WatchRow[]): void {
    this.c.tx(() => ws.forEach((w) => this.insertWatch(w)));
  }
  setWatchPosition(watchId: string, position: number, label: string): void {
    this.c.sql.run(sql`UPDATE watches SET position = ${position}, label = ${label} WHERE watch_id = ${watchId}`);
  }
  deleteWatch(watchId: string): void {
    this.c.tx(() => {
      this.c.sql.run(sql`DELETE FROM watch_items WHERE watch_id = ${watchId}`);
      this.c.sql.run(sql`DELETE FROM watches WHERE watch_id = ${watchId}`);
    });
  }
  /** Start (or replace) the unfinished chain of a watch. */
  setPending(
    watchId: string,
    p: {
      walkId: string;
      chainId: string;
      params: Record<string, string>;
      kind: ChainKind;
      newestId: string | null;
      newestAt: number | null;
    },
  ): void {
    this.c.sql.run(
      sql`UPDATE watches SET pending_walk_id = ${p.walkId}, pending_chain_id = ${p.chainId}, pending_params = ${JSON.stringify(p.params)},
            pending_kind = ${p.kind}, pending_newest_id = ${p.newestId}, pending_newest_at = ${p.newestAt} WHERE watch_id = ${watchId}`,
    );
  }
  setPendingWalk(watchId: string, walkId: string, params: Record<string, string>): void {
    this.c.sql.run(
      sql`UPDATE watches SET pending_walk_id = ${walkId}, pending_params = ${JSON.stringify(params)} WHERE watch_id = ${watchId}`,
    );
  }
  setPendingNewest(watchId: string, id: string, at: number | null): void {
    this.c.sql.run(sql`UPDATE watches SET pending_newest_id = ${id}, pending_newest_at = ${at} WHERE watch_id = ${watchId}`);
  }
  /** The chain completed: the marker advances to its newest item (if it saw one) and the chain is cleared. */
  completeChain(watchId: string, at: number): void {
    this.c.sql.run(
      sql`UPDATE watches SET marker_id = coalesce(pending_newest_id, marker_id),
            marker_at = CASE WHEN pending_newest_id IS NULL THEN marker_at ELSE pending_newest_at END,
            last_complete_at = ${at}, pending_walk_id = NULL, pending_chain_id = NULL, pending_params = NULL,
            pending_kind = NULL, pending_newest_id = NULL, pending_newest_at = NULL
          WHERE watch_id = ${watchId}`,
    );
  }

  // ───────── held items ─────────
  /** Items of `refs` this watch held before the chain `chainId` (an earlier chain fetched them). */
  heldBefore(watchId: string, chainId: string, refs: PageItem[]): number {
    if (refs.length === 0) return 0;
    const q = (r: PageItem) =>
      sql`SELECT 1 FROM watch_items WHERE watch_id = ${watchId} AND platform = ${r.platform} AND kind = ${r.kind} AND item_id = ${r.id} AND chain_id <> ${chainId}`;
    return refs.filter((r) => this.c.sql.value(q(r)) !== undefined).length;
  }
  /** Records the items; returns how many are new for this watch. */
  addItems(watchId: string, chainId: string, runId: string, at: number, refs: PageItem[]): number {
    const insert = this.c.sql.insert`watch_items ON CONFLICT DO NOTHING`;
    return this.c.tx(() => {
      let n = 0;
      for (const r of refs)
        n += insert({
          watch_id: watchId,
          platform: r.platform,
          kind: r.kind,
          item_id: r.id,
          chain_id: chainId,
          run_id: runId,
          seen_at: at,
        }).changes;
      return n;
    });
  }
  heldCount(watchId: string): number {
    return this.c.sql.value<number>(sql`SELECT count(*) AS n FROM watch_items WHERE watch_id = ${watchId}`) ?? 0;
  }
  newSince(listId: string, since: number): number {
    return (
      this.c.sql.value<number>(
        sql`SELECT count(*) AS n FROM watch_items WHERE seen_at > ${since} AND watch_id IN (SELECT watch_id FROM watches WHERE watchlist_id = ${listId})`,
      ) ?? 0
    );
  }
  /**
   * What each watch of a list holds recently, for the run's order (watch/order.ts): among the
   * items it saw last (at most HELD_SPAN_ITEMS, by the watch_items_seen index, so the cost stays
   * bounded however much a watch has gathered), the dated ones (pinned posts apart: they sit out of
   * date order), their oldest and newest publication times, the pinned ones; and the items its
   * recent pages carried per page.
   */
  heldSpans(
    listId: string,
  ): Array<{ watchId: string; dated: number; pinned: number; oldestAt: number | null; newestAt: number | null; perPage: number | null }> {
    return this.watches(listId).map((w) => {
      const recent = this.c.sql.all<{ at: number | null; pinned: number }>(
        sql`SELECT i.published_at AS at, coalesce(json_extract(i.raw, '$.flags.pinned'), 0) AS pinned
            FROM watch_items wi JOIN items i ON i.platform = wi.platform AND i.kind = wi.kind AND i.id = wi.item_id
            WHERE wi.watch_id = ${w.watchId} ORDER BY wi.seen_at DESC LIMIT ${HELD_SPAN_ITEMS}`,
      );
      let dated = 0;
      let pinned = 0;
      let oldestAt: number | null = null;
      let newestAt: number | null = null;
      for (const r of recent) {
        if (r.pinned === 1) pinned++;
        else if (r.at !== null) {
          dated++;
          oldestAt = oldestAt === null ? r.at : Math.min(oldestAt, r.at);
          newestAt = newestAt === null ? r.at : Math.max(newestAt, r.at);
        }
      }
      const perPage =
        this.c.sql.get<{ p: number | null }>(
          sql`SELECT max(CAST(items_seen AS REAL) / pages) AS p FROM
                (SELECT items_seen, pages FROM watch_run_watches WHERE watch_id = ${w.watchId} AND pages > 0 ORDER BY rowid DESC LIMIT 20)`,
        )?.p ?? null;
      return { watchId: w.watchId, dated, pinned, oldestAt, newestAt, perPage };
    });
  }
  /** The items first held in `runId` that match the watchlist's alert conditions, newest first. */
  alertItems(runId: string, alert: LabelCondition[]): Array<{ text: string | null; id: string; platform: string }> {
    const w = buildWhere({ labels: alert });
    return this.c.sql.all<{ text: string | null; id: string; platform: string }>(
      sql`SELECT i.id, i.platform, i.text FROM items i
          WHERE EXISTS (SELECT 1 FROM watch_items wi WHERE wi.run_id = ${runId} AND wi.platform = i.platform AND wi.kind = i.kind AND wi.item_id = i.id)
            AND ${where(w)} ORDER BY i.published_at DESC`,
    );
  }

  // ───────── runs ─────────
  insertRun(r: RunRow): void {
    this.c.sql.insert`watch_runs`({
      run_id: r.runId,
      watchlist_id: r.watchlistId,
      trigger: r.trigger,
      started_at: r.startedAt,
      finished_at: r.finishedAt,
      status: r.status,
      credits_spent: r.creditsSpent,
      new_items: r.newItems,
      alerts: r.alerts,
      message: r.message,
      estimate: r.estimate === undefined ? null : JSON.stringify(r.estimate),
    });
  }
  finishRun(r: RunRow): void {
    this.c.sql.run(
      sql`UPDATE watch_runs SET finished_at = ${r.finishedAt}, status = ${r.status}, credits_spent = ${r.creditsSpent}, new_items = ${r.newItems},
            alerts = ${r.alerts}, message = ${r.message} WHERE run_id = ${r.runId}`,
    );
  }
  putRunWatch(w: RunWatchRow): void {
    this.c.sql
      .insert`watch_run_watches ON CONFLICT (run_id, watch_id) DO UPDATE SET pages = excluded.pages, credits = excluded.credits, new_items = excluded.new_items,
         items_seen = excluded.items_seen, first_run = excluded.first_run, stop_reason = excluded.stop_reason,
         complete = excluded.complete, gap = excluded.gap, walk_ids = excluded.walk_ids`({
      run_id: w.runId,
      watch_id: w.watchId,
      pages: w.pages,
      credits: w.credits,
      new_items: w.newItems,
      items_seen: w.itemsSeen,
      first_run: w.firstRun ? 1 : 0,
      stop_reason: w.stopReason,
      complete: w.complete ? 1 : 0,
      gap: w.gap,
      walk_ids: JSON.stringify(w.walkIds),
    });
  }
  runs(listId: string, limit = 200): RunRow[] {
    return this.c.sql
      .all<RunDb>(sql`SELECT * FROM watch_runs WHERE watchlist_id = ${listId} ORDER BY started_at DESC, rowid DESC LIMIT ${limit}`)
      .map(runFrom);
  }
  run(runId: string): RunRow | undefined {
    const r = this.c.sql.get<RunDb>(sql`SELECT * FROM watch_runs WHERE run_id = ${runId}`);
    return r ? runFrom(r) : undefined;
  }
  runWatches(runId: string): RunWatchRow[] {
    return this.c.sql.all<RunWatchDb>(sql`SELECT * FROM watch_run_watches WHERE run_id = ${runId} ORDER BY rowid`).map(runWatchFrom);
  }
  /** Per-watch history, newest first. */
  watchHistory(watchId: string, limit = 10): Array<RunWatchRow & { startedAt: number }> {
    return this.c.sql
      .all<RunWatchDb & { started_at: number }>(
        sql`SELECT rw.*, r.started_at FROM watch_run_watches rw JOIN watch_runs r ON r.run_id = rw.run_id
            WHERE rw.watch_id = ${watchId} ORDER BY r.started_at DESC LIMIT ${limit}`,
      )
      .map((r) => ({ ...runWatchFrom(r), startedAt: r.started_at }));
  }
  /** Runs left 'running' by a process that stopped: they did not finish. */
  closeStaleRuns(at: number, message: string): number {
    return this.c.sql.run(
      sql`UPDATE watch_runs SET status = 'cancelled', finished_at = ${at}, message = ${message} WHERE status = 'running'`,
    ).changes;
  }

  /** Credits the ledger recorded for `source` since `since` (ms). */
  ledgerCredits(source: string, since: number): number {
    return creditsOfSource(this.c, source, since);
  }

  /** The id of the watchlist with this name (or this id), or undefined. */
  idByName(nameOrId: string): string | undefined {
    return this.c.sql.get<{ id: string }>(sql`SELECT id FROM watchlists WHERE name = ${nameOrId} OR id = ${nameOrId} LIMIT 1`)?.id;
  }
}
