/**
 * Collection plans as a service (docs/collect.md): preview a design (writes nothing), save it as a
 * plan (with its saved set), run it, cancel, resume, read its status and inputs. One per app
 * (src/core/methods/collect.ts); another part of Loupe that has calls to make — a dataset's
 * re-reads — hands them over as `{ source: { type: 'calls', calls } }` and gets the same pricing and
 * run.
 */
import { randomUUID } from 'node:crypto';
import type { CollectDesignParsed, CollectInputsPage, CollectPlan, CollectStatus, LoupeEvent } from '../../shared/contract';
import { LoupeError } from '../../shared/errors';
import type { ApiCore } from '../api';
import type { Archive, CollectPlanRow, NewCollectInput } from '../archive';
import type { Clock } from '../ports';
import { makePlan, type PlanMade } from './plan';
import { runPlan } from './run';
import { inputOf, sourceOf, statusOf } from './status';

export interface CollectServiceOptions {
  api(): Promise<ApiCore>;
  archive: Archive;
  clock: Clock;
  emit?: (e: LoupeEvent) => void;
  /** the user's "ask above N credits" threshold (Settings) */
  askAboveCredits?: () => number | null;
  /** pages a feed's later run may read per input (default 50) */
  pageCap?: number;
}

export interface CollectService {
  preview(design: CollectDesignParsed): Promise<CollectPlan>;
  create(design: CollectDesignParsed): Promise<CollectPlan>;
  run(idOrName: string, o?: { approved?: boolean; budget?: number | null; signal?: AbortSignal; wait?: boolean }): Promise<CollectStatus>;
  cancel(idOrName: string): Promise<CollectStatus>;
  get(idOrName: string): CollectStatus | null;
  list(): CollectStatus[];
  inputs(idOrName: string, o?: { states?: string[]; offset?: number; limit?: number }): CollectInputsPage;
  remove(idOrName: string): void;
  close(): Promise<void>;
}

const FREE_CALLS = 10;
const invalid = (m: string) => new LoupeError('validation', m);

/** A plan's priced inputs as the rows the archive keeps, numbered from `seq0`, each waiting. */
function inputRows(made: PlanMade, seq0: number): NewCollectInput[] {
  return made.inputs.map((p, i) => ({
    seq: seq0 + i,
    line: p.c.line,
    label: p.c.label,
    key: p.c.key,
    platform: p.c.platform,
    endpoint: p.c.endpoint,
    params: p.c.params,
    pages: p.c.pages,
    feed: p.c.feed,
    rank: p.c.rank,
    state: 'waiting',
    reason: null,
    estMin: p.creditsMin,
    estMax: p.creditsMax,
    estLikely: p.creditsLikely,
    estRequests: p.requests,
    heldPages: p.heldPages,
  }));
}

export function createCollectService(o: CollectServiceOptions): CollectService {
  const { archive, clock } = o;
  const store = archive.collect;
  const running = new Map<string, { abort: AbortController; done: Promise<CollectStatus> }>();
  let freeMemo: { at: number; left: number } | null = null;
  let etaOf: ((n: number) => number) | null = null;

  const find = (idOrName: string): CollectPlanRow | undefined => store.plan(idOrName) ?? store.planByName(idOrName.trim());
  const must = (idOrName: string): CollectPlanRow => {
    const p = find(idOrName);
    if (!p) throw new LoupeError('not_found', `No collection plan "${idOrName}"; see: loupe collect status.`);
    return p;
  };

  /** The account's introductory free calls left: as the service says (GET /v1/credits, free), else from the ledger. */
  async function freeCallsLeft(api: ApiCore): Promise<number> {
    const now = Date.now();
    if (freeMemo && now - freeMemo.at < 60_000) return freeMemo.left;
    let left: number | null = null;
    try {
      const c = await api.credits();
      const v = c.free_calls_remaining ?? c.free_calls_left ?? (c.data as Record<string, unknown> | undefined)?.free_calls_remaining;
      if (typeof v === 'number' && Number.isFinite(v)) left = Math.max(0, v);
    } catch {
      /* the ledger says what it can */
    }
    if (left === null) {
      const seen = store.freeCallsSeen();
      left = seen.cheapCharged ? 0 : Math.max(0, FREE_CALLS - seen.used);
    }
    freeMemo = { at: now, left };
    return left;
  }

  async function plan(design: CollectDesignParsed, existing: CollectPlanRow | undefined): Promise<PlanMade> {
    const api = await o.api();
    etaOf = (n) => api.pacer.eta(n, 'background');
    if (existing && design.do !== undefined && (existing.do ?? undefined) !== design.do)
      throw invalid(`The plan "${existing.name}" collects ${existing.do ?? 'calls'}; name this one differently.`);
    return makePlan(
      { api, archive, now: clock.now(), askAbove: o.askAboveCredits?.() ?? null, freeCallsLeft: await freeCallsLeft(api) },
      design,
      { id: existing?.id ?? null, held: existing ? store.inputKeys(existing.id) : undefined, quotes: existing?.quotes },
    );
  }

  /** The saved set the plan's results go to: its name, or the name with a number when taken by another set. */
  function setFor(planId: string, name: string): string {
    const sets = archive.listResultSets();
    const query = { source: { type: 'source' as const, id: sourceOf(planId) } };
    const mine = sets.find((s) => s.query.source?.type === 'source' && s.query.source.id === query.source.id);
    if (mine) return mine.id;
    let n = name;
    for (let i = 2; sets.some((s) => s.name === n); i++) n = `${name} (${i})`;
    return archive.saveResultSet(n, query, { note: `Results of the collection plan "${name}".` }).id;
  }

  return {
    async preview(design) {
      return (await plan(design, find(design.name))).plan;
    },

    async create(design) {
      const existing = find(design.name);
      if (existing && running.has(existing.id)) throw invalid(`The plan "${existing.name}" is running; wait for it or cancel it first.`);
      if (existing?.status === 'interrupted')
        throw invalid(
          `The plan "${existing.name}" was interrupted; run it to finish (loupe collect run "${existing.name}") before adding to it.`,
        );
      const made = await plan(design, existing);
      const now = clock.now();
      const id = existing?.id ?? randomUUID();
      const seq0 = existing ? store.nextSeq(id) : 1;
      const rows = inputRows(made, seq0);
      const figures = { ...made.plan.figures };
      if (existing) {
        // the plan's figures: the new inputs and what the unfinished ones may still cost
        const rem = store.remaining(id);
        figures.creditsMin += rem.min;
        figures.creditsMax += rem.max;
        figures.creditsLikely += rem.likely;
        figures.requests += rem.requests;
        figures.etaMs = etaOf ? etaOf(figures.requests) : figures.etaMs;
        store.updatePlan(
          id,
          {
            design: made.plan.design,
            figures,
            quotes: made.quotes,
            budget: design.budget,
            status: rows.length === 0 ? existing.status : existing.status === 'planned' ? 'planned' : 'partial',
          },
          now,
        );
      } else {
        store.insertPlan({
          id,
          name: design.name,
          do: design.do ?? null,
          design: made.plan.design,
          figures,
          quotes: made.quotes,
          setId: null,
          budget: design.budget,
          status: 'planned',
          createdAt: now,
          updatedAt: now,
        });
      }
      store.insertInputs(id, rows, now);
      store.updatePlan(id, { setId: setFor(id, design.name) }, now);
      return { ...made.plan, id, figures, inputs: existing ? store.inputKeys(id).size : made.plan.inputs };
    },

    async run(idOrName, ro = {}) {
      const p = must(idOrName);
      if (running.has(p.id)) throw invalid(`The plan "${p.name}" is already running in this window.`);
      if (p.status === 'running')
        throw invalid(`The plan "${p.name}" is running in another Loupe process; wait for it, or stop that process.`);
      const api = await o.api();
      const abort = new AbortController();
      if (ro.signal) {
        if (ro.signal.aborted) abort.abort();
        else ro.signal.addEventListener('abort', () => abort.abort(), { once: true });
      }
      let started: ((st: CollectStatus) => void) | null = null;
      const startedP = new Promise<CollectStatus>((r) => (started = r));
      const done = runPlan({ api, archive, clock, emit: o.emit, askAbove: o.askAboveCredits?.() ?? null, pageCap: o.pageCap }, p, {
        approved: ro.approved ?? false,
        ...(ro.budget !== undefined ? { budget: ro.budget } : {}),
        signal: abort.signal,
        onStarted: (st) => started?.(st),
      }).finally(() => running.delete(p.id));
      running.set(p.id, { abort, done });
      if (ro.wait !== false) return done;
      // answer once it has started (a refusal — approval, nothing to run — still answers as one)
      return Promise.race([startedP, done]);
    },

    async cancel(idOrName) {
      const p = must(idOrName);
      const r = running.get(p.id);
      if (!r) {
        if (p.status === 'interrupted' || p.status === 'running') {
          store.updatePlan(
            p.id,
            { status: 'cancelled', message: 'Cancelled; run again to continue from where each input stopped.' },
            clock.now(),
          );
          if (p.runId) store.finishRun(p.runId, 'cancelled', clock.now(), 'cancelled');
        }
        return statusOf(archive, must(p.id), null);
      }
      r.abort.abort();
      return r.done;
    },

    get(idOrName) {
      const p = find(idOrName);
      return p ? statusOf(archive, p, etaOf) : null;
    },

    list() {
      return store.plans().map((p) => statusOf(archive, p, etaOf));
    },

    inputs(idOrName, io = {}) {
      const p = must(idOrName);
      const rows = store.inputs(p.id, { states: io.states, offset: io.offset ?? 0, limit: io.limit ?? 200 });
      const counts = store.counts(p.id);
      const total = io.states?.length
        ? io.states.reduce((s, k) => s + (counts[k] ?? 0), 0)
        : Object.values(counts).reduce((a, b) => a + b, 0);
      return { rows: rows.map(inputOf), total };
    },

    remove(idOrName) {
      const p = must(idOrName);
      if (running.has(p.id) || p.status === 'running') throw invalid(`The plan "${p.name}" is running; cancel it first.`);
      store.deletePlan(p.id);
    },

    async close() {
      for (const r of running.values()) r.abort.abort();
      await Promise.allSettled([...running.values()].map((r) => r.done));
    },
  };
}
