/**
 * A watchlist run: refused up front when it cannot or may not start (no watches, month budget
 * used up, a 0 budget, needs approval), else every watch driven through its chains
 * (chain.ts) as wide as the key pool's in-flight limits, under one shared budget; then the
 * alerts, the run row and the events.
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { SharedBudget } from './budget';
import { newOutcome, runWatch, type RunCtx, type WatchOutcome } from './chain';
import { announce } from './alerts';
import { estimateFor } from './forecast';
import { expectedByWatch, runOrder } from './order';
import { runInfo } from './info';
import type { RunRow, RunStatus, WatchlistRow } from '../archive';
import type { RunOptions, Runner, WatchParts, WatchRunDetail } from './types';
import { fmt, invalid, mustList } from './util';

function alertsOf(
  parts: Pick<WatchParts, 'store'>,
  l: WatchlistRow,
  runId: string,
): Array<{ text: string | null; id: string; platform: string }> {
  if (!l.alert || l.alert.length === 0) return [];
  return parts.store.alertItems(runId, l.alert);
}

/** The run's times, cache windows and forecast on the service's clock, as it is now (issue 27 #3). */
async function syncServiceClock(parts: WatchParts): Promise<void> {
  await parts.opts
    .syncClock?.()
    .catch((e: unknown) => parts.log(`watch: could not read the service clock: ${e instanceof Error ? e.message : String(e)}`));
}

/** Why a run may not start (no watches, the month's budget used up, a 0 budget, needs approval), or null. */
function refusal(
  l: WatchlistRow,
  o: RunOptions,
  trigger: string,
  est: Awaited<ReturnType<typeof estimateFor>>,
  watches: number,
): string | null {
  const monthLeft = est.monthRemaining;
  if (watches === 0) return 'This watchlist has no watches yet.';
  if (monthLeft !== null && monthLeft <= 0)
    return `The month's budget of ${fmt(l.budgetPerMonth ?? 0)} credits is used up; the run did not start. Raise the budget or wait for next month.`;
  if (l.budgetPerRun === 0) return 'The per-run budget is 0 credits; the run did not start.';
  if (!est.needsConfirmation || o.approved) return null;
  return trigger === 'schedule' && l.budgetPerRun === null
    ? `Skipped: needs approval, and a scheduled run has nobody to ask. ${est.reason} Set a budget per run (at least ${fmt(est.creditsMax)} credits covers this estimate) to let scheduled runs go ahead; the budget still caps what each run spends.`
    : `Needs approval: ${est.reason}`;
}

async function doRun(parts: WatchParts, l: WatchlistRow, o: RunOptions, abort: AbortController): Promise<WatchRunDetail> {
  const { store, clock, opts } = parts;
  const api = await parts.apiCore();
  await syncServiceClock(parts);
  const trigger = o.trigger ?? 'manual';
  const est = await estimateFor(parts, l, api);
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
    const detail = runInfo(store, r);
    opts.emit?.({ type: 'watch-run', run: detail, alerts: 0 });
    if (trigger === 'schedule') opts.notify?.(`Loupe · ${l.name}: run skipped`, message);
    return detail;
  };
  const refused = refusal(l, o, trigger, est, watches.length);
  if (refused) return refuse(refused);

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
  for (const w of watches) outcomes.set(w.watchId, newOutcome(w.watchId, perWatch.get(w.watchId) ?? 1));
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
      opts.emit({ type: 'watch-run', run: runInfo(store, run, { outcomes, etaMs: etaNow() }), alerts: 0 });
    },
  };
  opts.emit?.({ type: 'watch-run', run: runInfo(store, run, { outcomes, etaMs: etaNow() }), alerts: 0 });

  // as wide as the key pool's in-flight limits together (each key's limit × the keys): the pacers
  // are the bottleneck either way, and holds of queued pages do not pile up against the balance
  await api.keys.members().catch(() => []); // the pool's keys, so its limits below are theirs together
  const width = Math.max(1, Math.min(watches.length, opts.concurrency ?? api.pacer.stats().limits.maxInFlight));
  // the watches expected to need the most pages first: a later page waits for the one before,
  // so a long chain started last would make the run's tail (order.ts)
  const ordered = runOrder(watches, expectedByWatch(perWatch, store.heldSpans(l.id), clock.now()));
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (;;) {
        const i = next++;
        if (i >= ordered.length) return;
        await runWatch(parts, ctx, ordered[i]);
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
  const alerts = status === 'cancelled' ? [] : alertsOf(parts, l, run.runId);
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
  const detail = runInfo(store, finished);
  const { raised, delivered } = announce(parts, l, finished, trigger, alerts);
  opts.emit?.({ type: 'watch-run', run: detail, alerts: alerts.length, list: l.name, raised: raised.map((a) => a.summary) });
  await delivered;
  return detail;
}

export function createRunner(parts: WatchParts): Runner {
  const running = new Map<string, { abort: AbortController; done: Promise<WatchRunDetail> }>();
  function startRun(id: string, o: RunOptions): Promise<WatchRunDetail> {
    const l = mustList(parts.store, id);
    if (running.has(id)) throw invalid(`Watchlist '${l.name}' is already running.`);
    const abort = new AbortController();
    setMaxListeners(0, abort.signal); // every page in flight listens to the run's signal
    if (o.signal) {
      if (o.signal.aborted) abort.abort();
      else o.signal.addEventListener('abort', () => abort.abort(), { once: true });
    }
    const done = doRun(parts, l, o, abort).finally(() => running.delete(id));
    running.set(id, { abort, done });
    return done;
  }
  return { running, startRun };
}
