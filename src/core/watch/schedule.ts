/**
 * Schedules: when a watchlist is next due, the interval between its runs, and the scheduler that
 * starts due runs while the app is open (a tick every 30 s; a tick still going is shared).
 */
import { Cron } from 'croner';
import type { WatchlistRow, WatchStore } from '../archive';
import type { Runner, WatchParts, WatchRunDetail } from './types';
import { HOUR } from './util';

/** When a scheduled watchlist is next due (null: paused, unscheduled or an invalid cron). */
export function nextRunAt(store: WatchStore, l: WatchlistRow): number | null {
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
export function intervalHours(now: number, l: WatchlistRow, observed: number | null): number | null {
  if (l.schedule?.everyHours !== undefined) return l.schedule.everyHours;
  if (l.schedule?.cron) {
    try {
      const c = new Cron(l.schedule.cron, { paused: true });
      const runs = c.nextRuns(25, new Date(now));
      c.stop();
      if (runs.length >= 2) return (runs[runs.length - 1].getTime() - runs[0].getTime()) / (runs.length - 1) / HOUR;
    } catch {
      /* invalid cron: no interval */
    }
  }
  return observed;
}

export interface Scheduler {
  /** run every scheduled watchlist that is due now; returns the runs started */
  tick(): Promise<WatchRunDetail[]>;
  start(opts?: { tickMs?: number }): void;
  stop(): void;
  /** the tick in progress, if any */
  current(): Promise<WatchRunDetail[]> | null;
}

export function createScheduler(parts: Pick<WatchParts, 'store' | 'clock' | 'log' | 'opts'>, runner: Runner): Scheduler {
  const { store, clock, log } = parts;
  let timer: ReturnType<typeof setInterval> | null = null;
  let ticking: Promise<WatchRunDetail[]> | null = null;
  const scheduler: Scheduler = {
    tick() {
      if (ticking) return ticking;
      ticking = (async () => {
        const out: WatchRunDetail[] = [];
        // due on the service's clock (issue 27 #3): a sandbox moved a day on is a day on
        if (parts.opts.syncClock && store.lists().some((l) => l.schedule && !l.paused))
          await parts.opts
            .syncClock()
            .catch((e: unknown) => log(`watch: could not read the service clock: ${e instanceof Error ? e.message : String(e)}`));
        const now = clock.now();
        for (const l of store.lists()) {
          if (l.paused || !l.schedule || runner.running.has(l.id)) continue;
          const due = nextRunAt(store, l);
          if (due === null || due > now) continue;
          // a scheduled run has nobody to ask: a per-run budget is the standing approval (it caps
          // spending); without one, a run above the confirmation threshold is skipped and notified
          const approved = l.budgetPerRun !== null;
          try {
            out.push(await runner.startRun(l.id, { trigger: 'schedule', approved }));
          } catch (e) {
            log(`watch: scheduled run of ${l.name} failed: ${e instanceof Error ? e.message : String(e)}`);
          }
        }
        return out;
      })().finally(() => (ticking = null));
      return ticking;
    },
    start(o = {}) {
      if (timer) return;
      const tickMs = o.tickMs ?? 30_000;
      timer = setInterval(() => void scheduler.tick().catch(() => undefined), tickMs);
      timer.unref?.();
      void scheduler.tick().catch(() => undefined);
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
    current: () => ticking,
  };
  return scheduler;
}
