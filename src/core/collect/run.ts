/**
 * A plan's run (docs/collect.md "The run"): every input to collect driven through the request core
 * (drive.ts) as wide as the key pool's in-flight limits together, at background priority, under one
 * budget for the whole run; progress as `collect-progress` events; cancel and resume.
 *
 * A run that did not finish — cancelled, or left `running` by a process that is gone (a crash,
 * `kill -9`) — is continued by the next `run`: the same run (its budget counts what it already
 * spent, read from the ledger), each input's walk resumed from its saved position. A finished
 * run's next run collects what is new: inputs added since, inputs skipped or failed for a reason
 * that may pass, and for feeds their new items (down to the newest item held).
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { CollectStatus, LoupeEvent } from '../../shared/contract';
import { LoupeError } from '../../shared/errors';
import { aboveAsk } from '../../shared/spend-policy';
import type { ApiCore } from '../api';
import type { ApiError } from '../api';
import type { Archive, CollectPlanRow } from '../archive';
import type { Clock } from '../ports';
import { SharedBudget } from '../watch';
import { driveInput, type DriveCtx } from './drive';
import { sourceOf, statusOf } from './status';

export interface RunDeps {
  api: ApiCore;
  archive: Archive;
  clock: Clock;
  emit?: (e: LoupeEvent) => void;
  askAbove: number | null;
  /** pages a feed's later run may read per input before it stops (resumable); default 50 */
  pageCap?: number;
}

export interface RunOptions {
  approved: boolean;
  /** a ceiling for this run (undefined: the plan's budget) */
  budget?: number | null;
  signal: AbortSignal;
  /** called once the run has started (inputs marked, status running), before its first page */
  onStarted?: (st: CollectStatus) => void;
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

/** Opens the run: a new one, or the unfinished one continued. Returns its id and budget. */
function openRun(
  deps: RunDeps,
  plan: CollectPlanRow,
  o: RunOptions,
): { runId: string; budget: number | null; spentBefore: number; resumed: boolean } | null {
  const store = deps.archive.collect;
  const now = deps.clock.now();
  const prev = plan.runId ? store.run(plan.runId) : undefined;
  if (prev && (prev.status === 'running' || prev.status === 'cancelled')) {
    const budget = o.budget !== undefined ? o.budget : prev.budget;
    store.reopenRun(prev.runId, budget);
    // inputs a crash left running go on with their walks
    const stale = store.inputs(plan.id, { states: ['running'] }).map((r) => r.seq);
    store.setStates(plan.id, stale, 'waiting', 'interrupted: continues from the saved position', now);
    return { runId: prev.runId, budget, spentBefore: store.spent(sourceOf(plan.id), prev), resumed: true };
  }
  // a new run: what is new or unfinished, and feeds (their new items)
  const again = store.inputs(plan.id, { states: ['skipped', 'failed', 'running', 'done', 'held'] }).filter((r) => {
    if (r.state === 'skipped' || r.state === 'running') return true;
    if (r.state === 'failed') return r.walkId !== null; // a failure that may pass (its walk resumes)
    return r.feed;
  });
  store.setStates(
    plan.id,
    again.map((r) => r.seq),
    'waiting',
    null,
    now,
  );
  if (store.inputs(plan.id, { states: ['waiting'], limit: 1 }).length === 0) return null;
  const runId = randomUUID();
  const budget = o.budget !== undefined ? o.budget : plan.budget;
  const ledgerFrom = deps.archive.ledgerHighWater();
  store.insertRun({ runId, planId: plan.id, startedAt: now, finishedAt: null, status: 'running', budget, message: null, ledgerFrom });
  store.updatePlan(plan.id, { runId, runs: plan.runs + 1 }, now);
  return { runId, budget, spentBefore: 0, resumed: false };
}

/** How a run ended, in words: stopped by a failure, cancelled, partial (unfinished or skipped inputs) or done. */
function outcome(
  counts: Partial<Record<string, number>>,
  spent: number,
  fatal: ApiError | null,
  cancelled: boolean,
  budgetLabel: string,
): { status: 'done' | 'partial' | 'cancelled' | 'failed'; message: string } {
  const open = (counts.waiting ?? 0) + (counts.running ?? 0);
  const skipped = counts.skipped ?? 0;
  const failed = counts.failed ?? 0;
  if (fatal) return { status: 'failed', message: `The run stopped: ${fatal.message} Run it again to continue from where it stopped.` };
  if (cancelled)
    return {
      status: 'cancelled',
      message: `Cancelled after ${fmt(spent)} credits; run again to continue from where each input stopped (nothing is paid twice).`,
    };
  if (open + skipped > 0)
    return {
      status: 'partial',
      message: `${fmt(open + skipped)} input(s) not finished${skipped ? ` (${fmt(skipped)} skipped: ${budgetLabel} or the balance)` : ''}; ${fmt(spent)} credits spent. Run again to continue them.`,
    };
  return {
    status: 'done',
    message: `Done: ${fmt((counts.done ?? 0) + (counts.held ?? 0))} input(s) collected${failed ? `, ${fmt(failed)} failed (see their reasons)` : ''}; ${fmt(spent)} credits spent.`,
  };
}

export async function runPlan(deps: RunDeps, plan: CollectPlanRow, o: RunOptions): Promise<CollectStatus> {
  const { api, archive, clock } = deps;
  const store = archive.collect;
  const source = sourceOf(plan.id);
  await api.catalogue.load();
  const eta = (n: number) => api.pacer.eta(n, 'background');
  // the ask-above rule, for the plan as one spend (a budget is the user's standing approval)
  const budgetNow = o.budget !== undefined ? o.budget : plan.budget;
  const left = store.remaining(plan.id);
  if (budgetNow === null && !o.approved && aboveAsk(left.max, deps.askAbove))
    throw new LoupeError(
      'not_approved',
      `The plan "${plan.name}" could cost up to ${fmt(left.max)} credits, above your confirmation threshold of ${fmt(deps.askAbove ?? 0)}; nothing was spent. Approve it (--yes), or give the run a budget (--budget).`,
    );
  const opened = openRun(deps, plan, o);
  if (!opened) {
    store.updatePlan(
      plan.id,
      { status: 'done', message: 'Nothing new to collect: every input is done (feeds have no later run to make).' },
      clock.now(),
    );
    const st = statusOf(archive, store.plan(plan.id) as CollectPlanRow, null);
    o.onStarted?.(st);
    return st;
  }
  const { runId, budget } = opened;
  const limit = budget === null ? null : Math.max(0, budget - opened.spentBefore);
  // the owner first: a plan read `running` without a live owner reads `interrupted`
  store.setOwner(plan.id, true);
  store.updatePlan(
    plan.id,
    { status: 'running', message: opened.resumed ? 'Resumed: each input continues from its saved position.' : null },
    clock.now(),
  );

  const inner = new AbortController();
  setMaxListeners(0, inner.signal);
  if (o.signal.aborted) inner.abort();
  else o.signal.addEventListener('abort', () => inner.abort(), { once: true });
  let fatal: ApiError | null = null;
  let lastEmit = 0;
  const emitNow = () => deps.emit?.({ type: 'collect-progress', plan: statusOf(archive, store.plan(plan.id) as CollectPlanRow, eta) });
  const ctx: DriveCtx = {
    api,
    archive,
    clock,
    plan: store.plan(plan.id) as CollectPlanRow,
    runId,
    source,
    budget: new SharedBudget(limit),
    budgetLabel: budget === null ? 'no budget' : `the run's budget of ${fmt(budget)} credits`,
    signal: inner.signal,
    pageCap: deps.pageCap ?? 50,
    progress: () => {
      const t = Date.now();
      if (t - lastEmit < 250) return;
      lastEmit = t;
      emitNow();
    },
    fatal: (e) => {
      fatal ??= e;
      inner.abort();
    },
  };
  emitNow();
  o.onStarted?.(statusOf(archive, store.plan(plan.id) as CollectPlanRow, eta));
  // as wide as the key pool's in-flight limits together: the pacers are the bottleneck either way
  await api.keys.members().catch(() => []);
  const todo = store.inputs(plan.id, { states: ['waiting'] }).sort((a, b) => b.estRequests - a.estRequests || a.seq - b.seq);
  const width = Math.max(1, Math.min(todo.length, api.pacer.stats().limits.maxInFlight));
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: width }, async () => {
        for (;;) {
          const i = next++;
          if (i >= todo.length) return;
          await driveInput(ctx, todo[i]);
        }
      }),
    );
  } finally {
    store.setOwner(plan.id, false);
  }

  const spent = store.spent(source, store.run(runId));
  const { status, message } = outcome(store.counts(plan.id), spent, fatal, o.signal.aborted, ctx.budgetLabel);
  store.finishRun(runId, status === 'cancelled' ? 'cancelled' : status, clock.now(), message);
  store.updatePlan(plan.id, { status, message }, clock.now());
  const final = statusOf(archive, store.plan(plan.id) as CollectPlanRow, null);
  deps.emit?.({ type: 'collect-progress', plan: final });
  return final;
}
