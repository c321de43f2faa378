/**
 * One input's part of a run (docs/collect.md "The run"): its walk, page by page through the request
 * core's walk / resumeWalk — so every page is the journal's `walk:<id>:page:<n>` and a page whose
 * answer was lost (a cancel, a crash, `kill -9`) is replayed under its own key, paid once — each
 * page's hold reserved from the plan's one budget first.
 *
 * The walk's id and parameters are written to the input's row before its first page, so a run
 * resumed after a crash continues the same walk. A feed's later runs walk from the head down to the
 * newest item an earlier run held (the watch chain's marker rule, docs/watchlists.md: `stop_at_id`
 * and `since` where the endpoint takes them, and on every endpoint the first page repeating an item
 * the input held); the marker moves only when such a walk completes.
 */
import { randomUUID } from 'node:crypto';
import type { CatalogueEndpoint } from '../../shared/api-types';
import type { CollectInputState } from '../../shared/contract-collect';
import type { ApiCore, CallResult, WalkResult } from '../api';
import { ApiError } from '../api';
import { holdOf, paramNames } from '../api';
import type { Archive, CollectInputRow, CollectPlanRow } from '../archive';
import type { Clock } from '../ports';
import { headParams, newerThan, newestRow, pageRows, stopEvidence, type SharedBudget } from '../watch';

export interface DriveCtx {
  api: ApiCore;
  archive: Archive;
  clock: Clock;
  plan: CollectPlanRow;
  runId: string;
  source: string;
  budget: SharedBudget;
  budgetLabel: string;
  signal: AbortSignal;
  /** pages a later run of a feed may read before it stops (resumable) */
  pageCap: number;
  progress(): void;
  /** a storage failure stops the whole run */
  fatal(e: ApiError): void;
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const accepts = (ep: CatalogueEndpoint, name: string) => paramNames(ep).has(name);

/** A failure that another run would only repeat (a refusal of the request itself). */
function permanent(e: ApiError | undefined): boolean {
  if (!e) return false;
  if (e.kind === 'validation') return true;
  return (
    e.kind === 'api' &&
    e.status !== undefined &&
    e.status >= 400 &&
    e.status < 500 &&
    e.status !== 409 &&
    e.status !== 429 &&
    e.status !== 402
  );
}

/**
 * What the service holds for `n` pages of a call: the ceiling × pages; a collect-until-N limit by
 * the service's free quote (the request core asks it once per call shape and reuses it).
 */
async function holdFor(
  api: ApiCore,
  ep: CatalogueEndpoint,
  target: { platform: string; endpoint: string; params: Record<string, string> },
  n: number,
): Promise<number> {
  const p = n > 1 ? { ...target.params, max_pages: String(n) } : target.params;
  if (p.limit === undefined || !ep.paginates) return holdOf(ep, p);
  try {
    return await api.hold({ ...target, params: p });
  } catch {
    return holdOf(ep, p);
  }
}

export async function driveInput(ctx: DriveCtx, row0: CollectInputRow): Promise<void> {
  const { api, archive, clock } = ctx;
  const store = archive.collect;
  const planId = ctx.plan.id;
  const seq = row0.seq;
  const put = (patch: Partial<CollectInputRow>) => store.updateInput(planId, seq, patch, clock.now());
  const ep = api.catalogue.find(row0.platform, row0.endpoint);
  if (!ep) return put({ state: 'failed', reason: `${row0.platform}/${row0.endpoint} is no longer in the catalogue`, walkId: null });

  let row = row0;
  let walkId = row.walkId;
  let params = row.walkParams ?? row.params;
  let kind = row.walkKind ?? 'first';
  if (!walkId) {
    kind = row.feed && row.markerId !== null ? 'head' : 'first';
    // a later run reads down to the marker: the watch chain's rule (stop_at_id, since as a safety net)
    params = kind === 'head' ? headParams(row, ep) : row.params;
    walkId = randomUUID();
    // the walk is named before its first page: a crash from here on resumes this walk
    put({ walkId, walkParams: params, walkKind: kind, state: 'running', reason: null, runId: ctx.runId, newestId: null, newestAt: null });
  } else put({ state: 'running', reason: null, runId: ctx.runId });
  const id = walkId;
  const cap = kind === 'head' ? ctx.pageCap : row.pages;
  const target = { platform: row.platform, endpoint: row.endpoint, params };
  let fromArchive = true;
  let pagesHere = 0;

  const settle = (state: CollectInputState, reason: string | null, keepWalk: boolean) => {
    const w = archive.getWalk(id);
    row = store.input(planId, seq) as CollectInputRow;
    const patch: Partial<CollectInputRow> = {
      state,
      reason,
      credits: row.baseCredits + (w?.creditsSpent ?? 0),
      pagesDone: row.basePages + (w?.pagesDone ?? 0),
      items: row.baseItems + (w?.itemsSeen ?? 0),
    };
    if (!keepWalk) {
      Object.assign(patch, {
        walkId: null,
        walkParams: null,
        walkKind: null,
        baseCredits: patch.credits,
        basePages: patch.pagesDone,
        baseItems: patch.items,
      });
      // a completed walk moves a feed's marker to the newest item it saw
      if ((state === 'done' || state === 'held') && row.newestId !== null && (row.markerAt === null || (row.newestAt ?? 0) >= row.markerAt))
        Object.assign(patch, { markerId: row.newestId, markerAt: row.newestAt, newestId: null, newestAt: null });
    }
    put(patch);
    ctx.progress();
  };
  const complete = () =>
    settle(
      fromArchive && pagesHere > 0 ? 'held' : 'done',
      fromArchive && pagesHere > 0 ? 'answered from the archive (inside its cache window): free' : null,
      false,
    );
  const markDone = (reason: string) => {
    const s = archive.getWalk(id);
    if (s && s.status !== 'done') archive.saveWalk({ ...s, status: 'done', stopReason: reason, updatedAt: clock.now() });
  };

  for (;;) {
    const saved = archive.getWalk(id);
    if (saved?.status === 'done') return complete();
    if (ctx.signal.aborted) return settle('waiting', 'cancelled: the next run continues from the saved position', true);
    const done = saved?.pagesDone ?? 0;
    if (done >= cap) {
      if (kind === 'first') {
        markDone('depth');
        return complete();
      }
      return settle('skipped', `more new items than ${fmt(cap)} pages: the next run continues down to the newest item held before`, true);
    }
    let want = accepts(ep, 'max_pages') && params.max_pages === undefined ? Math.min(5, cap - done) : 1;
    const holdAt = (n: number) => holdFor(api, ep, target, n);
    let hold = await holdAt(want);
    let reserved = await ctx.budget.reserve(hold, ctx.signal);
    if (!reserved && want > 1 && !ctx.signal.aborted) {
      want = 1;
      hold = await holdAt(1);
      reserved = await ctx.budget.reserve(hold, ctx.signal);
    }
    if (!reserved) {
      if (ctx.signal.aborted) return settle('waiting', 'cancelled: the next run continues from the saved position', true);
      return settle(
        'skipped',
        `${ctx.budgetLabel} reached (the next page holds ${fmt(hold)} credits, ${fmt(ctx.budget.remaining ?? 0)} left)`,
        true,
      );
    }
    let page: CallResult | null = null;
    let res: WalkResult;
    // one request per reserved hold; a restart after a rejected cursor re-reads held pages within
    // the plan's budget (each request reserved first): docs/request-core.md "Rejected cursor"
    const common = {
      source: ctx.source,
      priority: 'background' as const,
      signal: ctx.signal,
      maxRequests: 1,
      payRestart: true,
      onPage: (p: { result: CallResult }) => (page = p.result),
    };
    try {
      res = saved
        ? await api.resumeWalk(id, { ...common, maxPages: (saved.rewalkAt ?? done) + want })
        : await api.walk(target, { ...common, walkId: id, maxPages: want });
    } catch (e) {
      ctx.budget.settle(hold, 0);
      const err = e instanceof ApiError ? e : new ApiError({ kind: 'network', message: String(e) });
      if (err.kind === 'storage') {
        ctx.fatal(err);
        return settle('waiting', err.message, true);
      }
      return settle('failed', err.message, !permanent(err));
    }
    const got = page as CallResult | null;
    ctx.budget.settle(hold, got?.creditsUsed ?? 0);
    let heldHit = 0;
    if (got) {
      pagesHere++;
      if (!got.fromArchive) fromArchive = false;
      if (row.feed) {
        const items = pageRows(row.platform, got.envelope, row.endpoint);
        // pinned posts sit out of date order; an unknown pin state (trim=true) is not "not pinned":
        // a held row ends the walk only where it stands in date order (watch/page-rows.ts, issue 24 #2)
        if (kind === 'head') heldHit = store.heldBefore(planId, seq, id, stopEvidence(items));
        store.addItems(planId, seq, id, items);
        // the walk's newest item, for the marker: the watch chain's rule (watch/page-rows.ts)
        const newest = newestRow(items);
        row = store.input(planId, seq) as CollectInputRow;
        if (newest && newerThan(newest, row.newestId, row.newestAt)) put({ newestId: newest.id, newestAt: newest.at });
      }
      const w = archive.getWalk(id);
      put({
        credits: row.baseCredits + (w?.creditsSpent ?? 0),
        pagesDone: row.basePages + (w?.pagesDone ?? 0),
        items: row.baseItems + (w?.itemsSeen ?? 0),
      });
      ctx.progress();
    }
    if (res.status === 'done') return complete();
    if (res.status === 'paused' && res.stopReason === 'page_limit') {
      if (heldHit > 0) {
        markDone('known_item');
        return complete();
      }
      continue;
    }
    if (res.status === 'cancelled') return settle('waiting', 'cancelled: the next run continues from the saved position', true);
    if (res.status === 'paused' && res.stopReason === 'repeating') {
      markDone('repeating');
      return complete();
    }
    if (res.status === 'paused' && res.stopReason === 'credit_limit')
      return settle(
        'skipped',
        `not enough credits for the next page (${res.error?.message ?? 'the hold exceeds the known balance'})`,
        true,
      );
    if (res.status === 'paused') return settle('failed', res.error?.message ?? `stopped: ${res.stopReason ?? 'paused'}`, true);
    if (res.error?.kind === 'storage') {
      ctx.fatal(res.error);
      return settle('waiting', res.error.message, true);
    }
    const type = res.error?.type ?? res.error?.kind ?? 'ERROR';
    return settle('failed', `page ${res.pagesDone + 1} failed (${type}): ${res.error?.message ?? 'no detail'}`, !permanent(res.error));
  }
}
