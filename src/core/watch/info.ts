/** What the service answers about a watchlist and a run (the contract's info plus details). */
import type { WatchDef } from '../../shared/contract';
import type { WatchOutcome } from './chain';
import { forecastOf } from './forecast';
import { nextRunAt } from './schedule';
import type { RunRow, RunWatchRow, WatchlistRow, WatchStore } from '../archive';
import type { WatchlistDetail, WatchParts, WatchRunDetail } from './types';
import { scheduleWords } from '../../shared/durations';
import { fmt } from './util';

/**
 * Issue 27 #20: a scheduled run has nobody to approve it; without a per-run budget (the standing
 * approval) every run estimated above the confirmation threshold is skipped. Said when it applies.
 */
export function scheduleNote(l: WatchlistRow, askAbove: number | null): string | null {
  if (!l.schedule || l.paused || l.budgetPerRun !== null || askAbove === null) return null;
  return (
    `Runs ${scheduleWords(l.schedule)} go ahead by themselves only within a budget per run: without one, ` +
    `a scheduled run estimated above your confirmation threshold of ${fmt(askAbove)} credits is skipped as needing approval. ` +
    'Set a budget per run to let them run.'
  );
}

export function info(parts: Pick<WatchParts, 'store' | 'clock'> & { opts?: WatchParts['opts'] }, l: WatchlistRow): WatchlistDetail {
  const { store } = parts;
  const watches = store.watches(l.id);
  const last = store.runs(l.id, 1)[0];
  const f = forecastOf(parts, l, watches);
  return {
    id: l.id,
    name: l.name,
    schedule: l.schedule,
    budgetPerRun: l.budgetPerRun,
    budgetPerMonth: l.budgetPerMonth,
    paused: l.paused,
    alert: l.alert,
    watches: watches.map((w): WatchDef => ({
      watchId: w.watchId,
      platform: w.platform,
      endpoint: w.endpoint,
      params: w.params,
      label: w.label,
    })),
    lastRunAt: last ? last.startedAt : null,
    nextRunAt: nextRunAt(store, l),
    newSinceSeen: store.newSince(l.id, l.seenAt),
    forecast: f.forecast,
    forecastNote: f.note,
    firstRunPages: l.firstRunPages,
    scheduleNote: scheduleNote(l, parts.opts?.askAboveCredits?.() ?? null),
  };
}

export function runInfo(
  store: WatchStore,
  r: RunRow,
  live?: { outcomes: Map<string, WatchOutcome>; etaMs: number | null },
): WatchRunDetail {
  const rows: RunWatchRow[] = live ? [...live.outcomes.values()].map((o) => ({ runId: r.runId, ...o })) : store.runWatches(r.runId);
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
