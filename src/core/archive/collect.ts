/**
 * The collection plans' tables (migration 0014-collect-plans; src/core/collect, docs/collect.md):
 * plans, their runs, their inputs with each one's state and walk, the items feed inputs hold, and
 * the readings of the archive's own history the planner prices with (walk lengths, what pages
 * really cost, free calls seen). On the archive's own connection, reached as `archive.collect`.
 * Plan bookkeeping is a quiet write (no library answer reads it: the caches keyed by dataVersion
 * survive a run's progress).
 */
import type { CollectInputState } from '../../shared/contract-collect';
import type { ArchiveCtx } from './context';
import { currentOwner } from './owner';
import { assignments, list, sql } from './sql';
import {
  inputFrom,
  planFrom,
  runFrom,
  type CollectInputRow,
  type CollectPlanRow,
  type CollectRunRow,
  type InputDb,
  type NewCollectInput,
  type PlanDb,
  type WalkLength,
} from './collect-rows';

export type { CollectInputRow, CollectPlanRow, CollectRunRow, NewCollectInput, WalkLength } from './collect-rows';

export class CollectStore {
  constructor(private readonly c: ArchiveCtx) {}

  private w<T>(f: () => T): T {
    return this.c.guard('write', () => this.c.quiet(f));
  }

  // ───────── plans ─────────
  plans(): CollectPlanRow[] {
    return this.c.sql.all<PlanDb>(sql`SELECT * FROM collect_plans ORDER BY updated_at DESC, id`).map(planFrom);
  }
  plan(id: string): CollectPlanRow | undefined {
    const r = this.c.sql.get<PlanDb>(sql`SELECT * FROM collect_plans WHERE id = ${id}`);
    return r ? planFrom(r) : undefined;
  }
  planByName(name: string): CollectPlanRow | undefined {
    const r = this.c.sql.get<PlanDb>(sql`SELECT * FROM collect_plans WHERE name = ${name} COLLATE NOCASE`);
    return r ? planFrom(r) : undefined;
  }
  insertPlan(p: Omit<CollectPlanRow, 'runId' | 'runs' | 'message'>): void {
    this.w(() =>
      this.c.sql.insert`collect_plans`({
        id: p.id,
        name: p.name,
        do: p.do,
        design: JSON.stringify(p.design),
        figures: JSON.stringify(p.figures),
        quotes: JSON.stringify(p.quotes),
        set_id: p.setId,
        budget: p.budget,
        status: p.status,
        created_at: p.createdAt,
        updated_at: p.updatedAt,
      }),
    );
  }
  /** Changes exactly the fields named. */
  updatePlan(
    id: string,
    patch: Partial<Pick<CollectPlanRow, 'design' | 'figures' | 'quotes' | 'setId' | 'budget' | 'status' | 'runId' | 'runs' | 'message'>>,
    at: number,
  ): void {
    const cols: Record<string, unknown> = {};
    if (patch.design !== undefined) cols.design = JSON.stringify(patch.design);
    if (patch.figures !== undefined) cols.figures = JSON.stringify(patch.figures);
    if (patch.quotes !== undefined) cols.quotes = JSON.stringify(patch.quotes);
    if (patch.setId !== undefined) cols.set_id = patch.setId;
    if (patch.budget !== undefined) cols.budget = patch.budget;
    if (patch.status !== undefined) cols.status = patch.status;
    if (patch.runId !== undefined) cols.run_id = patch.runId;
    if (patch.runs !== undefined) cols.runs = patch.runs;
    if (patch.message !== undefined) cols.message = patch.message;
    cols.updated_at = at;
    // the column names are this function's own (never input): spliced; every value bound
    this.w(() => this.c.sql.run(sql`UPDATE collect_plans SET ${assignments(Object.keys(cols), cols)} WHERE id = ${id}`));
  }
  /** This process runs the plan now (null: nobody). A `running` plan whose process is gone reads `interrupted`. */
  setOwner(id: string, mine: boolean): void {
    const o = mine ? currentOwner() : null;
    this.w(() =>
      this.c.sql.run(
        sql`UPDATE collect_plans SET owner_pid = ${o?.pid ?? null}, owner_host = ${o?.host ?? null}, owner_start = ${o?.start ?? null} WHERE id = ${id}`,
      ),
    );
  }
  deletePlan(id: string): void {
    this.w(() =>
      this.c.tx(() => {
        this.c.sql.run(sql`DELETE FROM collect_items WHERE plan_id = ${id}`);
        this.c.sql.run(sql`DELETE FROM collect_inputs WHERE plan_id = ${id}`);
        this.c.sql.run(sql`DELETE FROM collect_runs WHERE plan_id = ${id}`);
        this.c.sql.run(sql`DELETE FROM collect_plans WHERE id = ${id}`);
      }),
    );
  }

  // ───────── runs ─────────
  insertRun(r: CollectRunRow): void {
    this.w(() =>
      this.c.sql.insert`collect_runs`({
        run_id: r.runId,
        plan_id: r.planId,
        started_at: r.startedAt,
        finished_at: r.finishedAt,
        status: r.status,
        budget: r.budget,
        message: r.message,
        ledger_from: r.ledgerFrom,
      }),
    );
  }
  finishRun(runId: string, status: string, at: number, message: string | null): void {
    this.w(() =>
      this.c.sql.run(sql`UPDATE collect_runs SET status = ${status}, finished_at = ${at}, message = ${message} WHERE run_id = ${runId}`),
    );
  }
  /** A run goes on (resumed after a cancel or a crash). */
  reopenRun(runId: string, budget: number | null): void {
    this.w(() =>
      this.c.sql.run(sql`UPDATE collect_runs SET status = 'running', finished_at = NULL, budget = ${budget} WHERE run_id = ${runId}`),
    );
  }
  run(runId: string): CollectRunRow | undefined {
    const r = this.c.sql.get<Record<string, unknown>>(sql`SELECT * FROM collect_runs WHERE run_id = ${runId}`);
    return r ? runFrom(r) : undefined;
  }

  // ───────── inputs ─────────
  insertInputs(planId: string, rows: NewCollectInput[], at: number): void {
    this.w(() =>
      this.c.tx(() => {
        for (const r of rows)
          this.c.sql.insert`collect_inputs`({
            plan_id: planId,
            seq: r.seq,
            line: r.line,
            label: r.label,
            key: r.key,
            platform: r.platform,
            endpoint: r.endpoint,
            params: JSON.stringify(r.params),
            pages: r.pages,
            feed: r.feed ? 1 : 0,
            rank: r.rank,
            state: r.state,
            reason: r.reason,
            est_min: r.estMin,
            est_max: r.estMax,
            est_likely: r.estLikely,
            est_requests: r.estRequests,
            held_pages: r.heldPages,
            updated_at: at,
          });
      }),
    );
  }
  /** The inputs in order (optionally of some states), a page at a time. */
  inputs(planId: string, o: { states?: readonly string[]; offset?: number; limit?: number } = {}): CollectInputRow[] {
    const limit = o.limit ?? 1_000_000;
    const offset = o.offset ?? 0;
    if (o.states && o.states.length)
      return this.c.sql
        .all<InputDb>(
          sql`SELECT * FROM collect_inputs WHERE plan_id = ${planId} AND state IN (${list(o.states)}) ORDER BY seq LIMIT ${limit} OFFSET ${offset}`,
        )
        .map(inputFrom);
    return this.c.sql
      .all<InputDb>(sql`SELECT * FROM collect_inputs WHERE plan_id = ${planId} ORDER BY seq LIMIT ${limit} OFFSET ${offset}`)
      .map(inputFrom);
  }
  input(planId: string, seq: number): CollectInputRow | undefined {
    const r = this.c.sql.get<InputDb>(sql`SELECT * FROM collect_inputs WHERE plan_id = ${planId} AND seq = ${seq}`);
    return r ? inputFrom(r) : undefined;
  }
  /** key → line of the plan's inputs (a re-plan adds only the new ones). */
  inputKeys(planId: string): Map<string, number | null> {
    const out = new Map<string, number | null>();
    for (const r of this.c.sql.all<{ key: string; line: number | null }>(
      sql`SELECT key, line FROM collect_inputs WHERE plan_id = ${planId}`,
    ))
      out.set(r.key, r.line);
    return out;
  }
  nextSeq(planId: string): number {
    return (this.c.sql.get<{ n: number | null }>(sql`SELECT max(seq) AS n FROM collect_inputs WHERE plan_id = ${planId}`)?.n ?? 0) + 1;
  }
  counts(planId: string): Record<string, number> {
    const out: Record<string, number> = {};
    for (const r of this.c.sql.all<{ state: string; n: number }>(
      sql`SELECT state, count(*) AS n FROM collect_inputs WHERE plan_id = ${planId} GROUP BY state`,
    ))
      out[r.state] = r.n;
    return out;
  }
  /** What the inputs not yet done may still cost (their share of the plan's figures). */
  remaining(planId: string): { min: number; likely: number; max: number; requests: number } {
    const r = this.c.sql.get<{ a: number | null; b: number | null; c: number | null; d: number | null }>(
      sql`SELECT sum(est_min) AS a, sum(est_likely) AS b, sum(est_max) AS c, sum(est_requests) AS d FROM collect_inputs
          WHERE plan_id = ${planId} AND state IN ('waiting', 'running', 'failed', 'skipped')`,
    );
    return { min: r?.a ?? 0, likely: r?.b ?? 0, max: r?.c ?? 0, requests: r?.d ?? 0 };
  }
  /** Changes exactly the fields named. */
  updateInput(planId: string, seq: number, patch: Partial<Omit<CollectInputRow, 'planId' | 'seq' | 'key'>>, at: number): void {
    const map: Record<string, string> = {
      state: 'state',
      reason: 'reason',
      walkId: 'walk_id',
      walkKind: 'walk_kind',
      baseCredits: 'base_credits',
      basePages: 'base_pages',
      baseItems: 'base_items',
      credits: 'credits',
      pagesDone: 'pages_done',
      items: 'items',
      markerId: 'marker_id',
      markerAt: 'marker_at',
      newestId: 'newest_id',
      newestAt: 'newest_at',
      runId: 'run_id',
      pages: 'pages',
      estMin: 'est_min',
      estMax: 'est_max',
      estLikely: 'est_likely',
      estRequests: 'est_requests',
      heldPages: 'held_pages',
      label: 'label',
      line: 'line',
      rank: 'rank',
    };
    const cols: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined) continue;
      if (k === 'walkParams') cols.walk_params = v === null ? null : JSON.stringify(v);
      else if (k === 'params') cols.params = JSON.stringify(v);
      else if (k === 'feed') cols.feed = v ? 1 : 0;
      else if (map[k]) cols[map[k]] = v;
    }
    cols.updated_at = at;
    // the column names are this function's own (the map above): spliced; every value bound
    this.w(() =>
      this.c.sql.run(sql`UPDATE collect_inputs SET ${assignments(Object.keys(cols), cols)} WHERE plan_id = ${planId} AND seq = ${seq}`),
    );
  }
  /** Many inputs to one state (a run's start: what this run collects). */
  setStates(planId: string, seqs: number[], state: CollectInputState, reason: string | null, at: number): void {
    this.w(() =>
      this.c.tx(() => {
        for (const s of seqs)
          this.c.sql.run(
            sql`UPDATE collect_inputs SET state = ${state}, reason = ${reason}, updated_at = ${at} WHERE plan_id = ${planId} AND seq = ${s}`,
          );
      }),
    );
  }

  // ───────── items a feed input holds ─────────
  /** Items of `refs` this input held before the walk `walkId` (an earlier run fetched them). */
  heldBefore(planId: string, seq: number, walkId: string, refs: Array<{ platform: string; kind: string; id: string }>): number {
    let n = 0;
    for (const r of refs)
      if (
        this.c.sql.value(
          sql`SELECT 1 FROM collect_items WHERE plan_id = ${planId} AND seq = ${seq} AND platform = ${r.platform} AND kind = ${r.kind}
              AND item_id = ${r.id} AND walk_id <> ${walkId}`,
        ) !== undefined
      )
        n++;
    return n;
  }
  addItems(planId: string, seq: number, walkId: string, refs: Array<{ platform: string; kind: string; id: string }>): number {
    const insert = this.c.sql.insert`collect_items ON CONFLICT DO NOTHING`;
    return this.w(() =>
      this.c.tx(() =>
        refs.reduce(
          (n, r) => n + insert({ plan_id: planId, seq, platform: r.platform, kind: r.kind, item_id: r.id, walk_id: walkId }).changes,
          0,
        ),
      ),
    );
  }

  // ───────── the archive's history, for the likely figure ─────────
  /** The latest walks of an endpoint: pages read, and whether the list ended there. */
  walkLengths(platform: string, endpoint: string, limit = 400): WalkLength[] {
    return this.c.sql
      .all<{ p: number; s: string; r: string | null }>(
        sql`SELECT pages_done AS p, status AS s, stop_reason AS r FROM walks WHERE platform = ${platform} AND endpoint = ${endpoint} AND pages_done > 0
            ORDER BY updated_at DESC LIMIT ${limit}`,
      )
      .map((x) => ({ pages: x.p, ended: x.s === 'done' && x.r === 'end' }));
  }
  /** Charged answers of an endpoint (newest first): params and credits (replays, free calls, dry runs and inferred rows left out). */
  pageCharges(platform: string, endpoint: string, limit = 400): Array<{ params: string; credits: number }> {
    return this.c.sql.all<{ params: string; credits: number }>(
      sql`SELECT params, credits_used AS credits FROM calls WHERE platform = ${platform} AND endpoint = ${endpoint} AND status = 200 AND dry_run = 0
          AND idempotent_replay = 0 AND free_call = 0 AND credits_used > 0 AND coalesce(charge_reason, '') NOT LIKE 'inferred%'
          ORDER BY id DESC LIMIT ${limit}`,
    );
  }
  /** Free calls the ledger has seen, and whether a call cheap enough for one was charged (then none are left). */
  freeCallsSeen(): { used: number; cheapCharged: boolean } {
    const r = this.c.sql.get<{ used: number; cheap: number | null }>(
      sql`SELECT coalesce(sum(free_call), 0) AS used, max(CASE WHEN free_call = 0 AND dry_run = 0 AND credits_used > 0 AND credits_used <= 100 AND status = 200 THEN 1 END) AS cheap FROM calls`,
    );
    return { used: r?.used ?? 0, cheapCharged: r?.cheap === 1 };
  }
  /** The exact calls of an endpoint the archive answered since a time (their params hashes): what planning looks up first. */
  freshHashes(platform: string, endpoint: string, since: number): Set<string> {
    return new Set(
      this.c.sql
        .all<{ h: string }>(
          sql`SELECT DISTINCT params_hash AS h FROM responses WHERE platform = ${platform} AND endpoint = ${endpoint} AND fetched_at >= ${since} AND envelope IS NOT NULL`,
        )
        .map((r) => r.h),
    );
  }
  /**
   * Credits the ledger records for a source (what the service charged): all of them, or a run's —
   * the rows after its mark (`ledgerFrom`), or for a run without one those started since it started.
   */
  spent(source: string, run?: Pick<CollectRunRow, 'startedAt' | 'ledgerFrom'>): number {
    const after = run?.ledgerFrom ?? 0;
    const since = run && run.ledgerFrom === null ? run.startedAt : 0;
    const q = sql`SELECT coalesce(sum(credits_used), 0) FROM calls WHERE source = ${source} AND id > ${after} AND started_at >= ${since}`;
    return this.c.sql.value<number>(q) ?? 0;
  }
}
