/**
 * The collection plans' rows (archive/collect.ts): the plan, run and input rows as the planner
 * reads them, and how each is read from its table's columns.
 */
import type { CollectInputState } from '../../shared/contract-collect';
import { ownerAlive } from './owner';

export interface CollectPlanRow {
  id: string;
  name: string;
  do: string | null;
  design: unknown;
  figures: unknown;
  quotes: Record<string, { min: number; max: number }>;
  setId: string | null;
  budget: number | null;
  /** planned, running, done, partial, cancelled, failed — `running` read as `interrupted` when its process is gone */
  status: string;
  runId: string | null;
  runs: number;
  message: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface CollectRunRow {
  runId: string;
  planId: string;
  startedAt: number;
  finishedAt: number | null;
  status: string;
  budget: number | null;
  message: string | null;
  /**
   * the ledger's highest row id when the run opened (migration 0025): the run's spending is the
   * rows after it, whatever the clocks said (null: a run opened before it, read by time)
   */
  ledgerFrom: number | null;
}

/** A `collect_runs` row. */
export function runFrom(r: Record<string, unknown>): CollectRunRow {
  return {
    runId: r.run_id as string,
    planId: r.plan_id as string,
    startedAt: num(r.started_at),
    finishedAt: typeof r.finished_at === 'number' ? r.finished_at : null,
    status: r.status as string,
    budget: typeof r.budget === 'number' ? r.budget : null,
    message: str(r.message),
    ledgerFrom: typeof r.ledger_from === 'number' ? r.ledger_from : null,
  };
}

export interface CollectInputRow {
  planId: string;
  seq: number;
  line: number | null;
  label: string;
  key: string;
  platform: string;
  endpoint: string;
  params: Record<string, string>;
  pages: number;
  feed: boolean;
  rank: number | null;
  state: CollectInputState;
  reason: string | null;
  walkId: string | null;
  walkParams: Record<string, string> | null;
  /** 'first' (depth pages) or 'head' (a later run down to the marker) */
  walkKind: string | null;
  baseCredits: number;
  basePages: number;
  baseItems: number;
  credits: number;
  pagesDone: number;
  items: number;
  estMin: number;
  estMax: number;
  estLikely: number;
  estRequests: number;
  heldPages: number;
  markerId: string | null;
  markerAt: number | null;
  newestId: string | null;
  newestAt: number | null;
  runId: string | null;
  updatedAt: number;
}

export interface PlanDb {
  id: string;
  name: string;
  do: string | null;
  design: string;
  figures: string;
  quotes: string;
  set_id: string | null;
  budget: number | null;
  status: string;
  run_id: string | null;
  runs: number;
  message: string | null;
  owner_pid: number | null;
  owner_host: string | null;
  owner_start: string | null;
  created_at: number;
  updated_at: number;
}

export type InputDb = Record<string, unknown>;

const parse = <T>(s: unknown, dflt: T): T => {
  if (typeof s !== 'string') return dflt;
  try {
    return JSON.parse(s) as T;
  } catch {
    return dflt;
  }
};

export function planFrom(r: PlanDb): CollectPlanRow {
  let status = r.status;
  if (status === 'running' && ownerAlive({ pid: r.owner_pid, host: r.owner_host, start: r.owner_start }) !== true) status = 'interrupted';
  return {
    id: r.id,
    name: r.name,
    do: r.do,
    design: parse(r.design, {}),
    figures: parse(r.figures, {}),
    quotes: parse(r.quotes, {}),
    setId: r.set_id,
    budget: r.budget,
    status,
    runId: r.run_id,
    runs: r.runs,
    message: r.message,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export function inputFrom(r: InputDb): CollectInputRow {
  return {
    planId: r.plan_id as string,
    seq: num(r.seq),
    line: typeof r.line === 'number' ? r.line : null,
    label: r.label as string,
    key: r.key as string,
    platform: r.platform as string,
    endpoint: r.endpoint as string,
    params: parse(r.params, {}),
    pages: num(r.pages),
    feed: r.feed === 1,
    rank: typeof r.rank === 'number' ? r.rank : null,
    state: r.state as CollectInputState,
    reason: str(r.reason),
    walkId: str(r.walk_id),
    walkParams: typeof r.walk_params === 'string' ? parse(r.walk_params, {}) : null,
    walkKind: str(r.walk_kind),
    baseCredits: num(r.base_credits),
    basePages: num(r.base_pages),
    baseItems: num(r.base_items),
    credits: num(r.credits),
    pagesDone: num(r.pages_done),
    items: num(r.items),
    estMin: num(r.est_min),
    estMax: num(r.est_max),
    estLikely: num(r.est_likely),
    estRequests: num(r.est_requests),
    heldPages: num(r.held_pages),
    markerId: str(r.marker_id),
    markerAt: typeof r.marker_at === 'number' ? r.marker_at : null,
    newestId: str(r.newest_id),
    newestAt: typeof r.newest_at === 'number' ? r.newest_at : null,
    runId: str(r.run_id),
    updatedAt: num(r.updated_at),
  };
}

/** A new input as the planner hands it over. */
export type NewCollectInput = Pick<
  CollectInputRow,
  | 'seq'
  | 'line'
  | 'label'
  | 'key'
  | 'platform'
  | 'endpoint'
  | 'params'
  | 'pages'
  | 'feed'
  | 'rank'
  | 'state'
  | 'reason'
  | 'estMin'
  | 'estMax'
  | 'estLikely'
  | 'estRequests'
  | 'heldPages'
>;

export interface WalkLength {
  pages: number;
  /** the list ended there (status done, stop reason `end`) */
  ended: boolean;
}
