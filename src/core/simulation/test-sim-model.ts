/**
 * The simulation's reference model (issue 24): what the analyst configured and approved, kept by
 * the test beside the app, so every step can be checked against it. Not shipped.
 */
import type { WatchlistInfo } from '../../shared/contract';

export interface Target {
  platform: string;
  endpoint: string;
  params: Record<string, string>;
}

export interface WatchModel extends Target {
  label: string;
}

/** A watchlist as the analyst configured it: every field only an operation naming it may change. */
export interface ListModel {
  id: string;
  name: string;
  schedule: WatchlistInfo['schedule'];
  budgetPerRun: number | null;
  budgetPerMonth: number | null;
  alert: WatchlistInfo['alert'];
  paused: boolean;
  firstRunPages: number | undefined;
  watches: WatchModel[];
}

export interface Annotation {
  tags: Set<string>;
  note: string | null;
  /** `family.field` → value */
  overrides: Map<string, unknown>;
}

export interface WalkModel {
  target: Target;
  /** credits the analyst approved for this walk in total; null = no limit was set */
  approved: number | null;
}

export interface SimStats {
  steps: number;
  ops: Record<string, number>;
  /** real ms spent in each op's body and in the checks after it */
  opMs: Record<string, number>;
  checks: Record<string, number>;
  /** what the simulation could not tell exactly (reported, not failed): e.g. a lost charge inferred at its least */
  unknowable: Record<string, number>;
  /** survey mode (LOUPE_SIM_SURVEY=1): violations counted by kind with a first example, instead of failing */
  survey?: Record<string, { n: number; example: string }>;
}

export interface SimModel {
  lists: Map<string, ListModel>;
  settings: Record<string, unknown> | null;
  annotations: Map<string, Annotation>;
  sets: Map<string, { name: string; note: string | null }>;
  walks: Map<string, WalkModel>;
  /** items the analyst has seen (targets for tags, notes, overrides) */
  items: Array<{ platform: string; kind: string; id: string }>;
  /** which spec variants were served from which sandbox time on */
  variantLog: Array<{ at: number; variants: string[] }>;
  /** something other than this app moved the service's balance since the app last read it */
  balanceMovedElsewhere: boolean;
  /** sandbox-time spans in which another spender was spending on the analyst's account */
  otherSpending: Array<[number, number]>;
  /** the runs the simulation made, for the approval checks */
  runs: Array<{ listId: string; runId: string; budgetPerRun: number | null }>;
  /** Idempotency-Keys and call ids a killed process left pending (the only pending entries a live app may leave unsettled) */
  deadPending: Set<string>;
  /** violations already counted in survey mode */
  surveyed: Set<string>;
  /** charges already checked for the items they delivered */
  itemsCheckedUpTo: number;
  stats: SimStats;
}

export function newModel(variants: string[], at: number): SimModel {
  return {
    lists: new Map(),
    settings: null,
    annotations: new Map(),
    sets: new Map(),
    walks: new Map(),
    items: [],
    variantLog: [{ at, variants: [...variants] }],
    balanceMovedElsewhere: false,
    runs: [],
    otherSpending: [],
    deadPending: new Set(),
    surveyed: new Set(),
    itemsCheckedUpTo: 0,
    stats: { steps: 0, ops: {}, opMs: {}, checks: {}, unknowable: {} },
  };
}

export const itemKey = (r: { platform: string; kind: string; id: string }): string => `${r.platform}\u0000${r.kind}\u0000${r.id}`;

/** The list as the app reports it, in the model's terms (what the analyst configured). */
export function listOf(info: WatchlistInfo): ListModel {
  return {
    id: info.id,
    name: info.name,
    schedule: info.schedule,
    budgetPerRun: info.budgetPerRun,
    budgetPerMonth: info.budgetPerMonth,
    alert: info.alert,
    paused: info.paused,
    firstRunPages: info.firstRunPages,
    watches: info.watches.map((w) => ({ platform: w.platform, endpoint: w.endpoint, params: { ...w.params }, label: w.label })),
  };
}

/** Canonical JSON (sorted keys; undefined and empty schedule parts dropped) for comparisons. */
export function canon(v: unknown): string {
  return JSON.stringify(sortKeys(v));
}
function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(o).sort()) if (o[k] !== undefined) out[k] = sortKeys(o[k]);
    return out;
  }
  return v;
}

/** The variants served at sandbox time `at`. */
export function variantsAt(m: SimModel, at: number): string[] {
  let cur = m.variantLog[0].variants;
  for (const v of m.variantLog) if (v.at <= at) cur = v.variants;
  return cur;
}

export function count(rec: Record<string, number>, k: string, n = 1): void {
  rec[k] = (rec[k] ?? 0) + n;
}
