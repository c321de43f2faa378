/**
 * Collection plans (issue 28, docs/collect.md): a list or a saved set in, every input mapped to its
 * calls and priced as a whole before anything is spent, then a resumable run whose results become a
 * saved set. Inputs as zod schemas, outputs as types; re-exported by contract.ts. Implemented in
 * src/core/collect (the planner, the pricing, the run) and src/core/methods/collect.ts.
 */
import { z } from 'zod';
import { libraryQuerySchema } from './query';

import { COLLECT_DOS, COLLECT_INPUT_STATES, COLLECT_RANKS, type CollectDo, type CollectInputState } from './collect-words';

export {
  COLLECT_DOS,
  COLLECT_DO_WORDS,
  COLLECT_INPUT_STATES,
  COLLECT_RANKS,
  type CollectDo,
  type CollectInputState,
  type CollectRank,
} from './collect-words';

const params = z.record(z.string().min(1).max(80), z.string().max(2000));

/** One call another part of Loupe hands the planner (e.g. a dataset's re-reads). */
export const plannedCallSchema = z.object({
  platform: z.string().min(1).max(60),
  endpoint: z.string().min(1).max(200),
  params: params.default({}),
  /** pages of a list endpoint (default: the design's pages) */
  pages: z.number().int().min(1).max(100).optional(),
  /** what the analyst sees for it (default: the endpoint and its first parameter) */
  label: z.string().max(300).optional(),
  /** false: read once, even where the endpoint takes `stop_at_id` (a later run does not read its new items); default: a feed there */
  feed: z.boolean().optional(),
});
export type PlannedCall = z.input<typeof plannedCallSchema>;

export const collectSourceSchema = z.discriminatedUnion('type', [
  /** a pasted list or a file's text: one value a line, or a CSV column (picked by name, or found) */
  z.object({ type: z.literal('text'), text: z.string().max(20_000_000), column: z.string().trim().min(1).max(120).optional() }),
  /** a saved result set of the Library */
  z.object({ type: z.literal('set'), id: z.string().min(1).max(60) }),
  /** the Library's current query */
  z.object({ type: z.literal('query'), query: libraryQuerySchema }),
  /** calls as they are (endpoint + params + pages): what other callers hand the planner */
  z.object({ type: z.literal('calls'), calls: z.array(plannedCallSchema).min(1).max(100_000) }),
]);
export type CollectSource = z.input<typeof collectSourceSchema>;

export const collectDesignSchema = z.object({
  /** the plan's name; its results become a saved set of the same name */
  name: z.string().trim().min(1).max(120),
  source: collectSourceSchema,
  /** what to collect for each input (not needed for `calls`) */
  do: z.enum(COLLECT_DOS).optional(),
  /** networks to use: a search or a handle goes to each; an address must be on one of them (empty: what the inputs say) */
  networks: z.array(z.string().min(1).max(60)).max(40).default([]),
  /** an endpoint per network instead of the usual one (`{ micro_net: 'search/tweets' }`) */
  endpoints: z.record(z.string().min(1).max(60), z.string().min(1).max(200)).default({}),
  /** depth: pages per input on list endpoints (1-100) */
  pages: z.number().int().min(1).max(100).default(1),
  /** a set's top K by engagement (sets and queries only) */
  topK: z.object({ n: z.number().int().min(1).max(1_000_000), by: z.enum(COLLECT_RANKS) }).optional(),
  /** parameters every call carries (a sort, labels…) */
  params: params.default({}),
  /** one ceiling for the whole plan's run, in credits (null: none; then the ask-above rule applies to the plan) */
  budget: z.number().int().min(0).max(1_000_000_000_000).nullable().default(null),
});
export type CollectDesign = z.input<typeof collectDesignSchema>;
export type CollectDesignParsed = z.output<typeof collectDesignSchema>;

export const collectIdInput = z.object({ id: z.string().min(1).max(200) });
export const collectRunInput = z.object({
  /** a plan's id or its name */
  id: z.string().min(1).max(200),
  /** the user confirmed a plan whose ceiling is above the ask-above threshold */
  approved: z.boolean().default(false),
  /** a ceiling for this run (replaces the plan's budget) */
  budget: z.number().int().min(0).max(1_000_000_000_000).nullable().optional(),
  /** true (default): answer when the run ends; false: answer once it has started (progress as events) */
  wait: z.boolean().default(true),
});
export const collectInputsInput = z.object({
  id: z.string().min(1).max(200),
  state: z.array(z.enum(COLLECT_INPUT_STATES)).optional(),
  offset: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(1000).default(200),
});

/** The figures of a plan (or a part of it): credits and requests. */
export interface CollectFigures {
  /** every planned page charged at the floor of its price (an empty or shorter list costs less) */
  creditsMin: number;
  /** every planned page charged at the ceiling (what the service may hold) */
  creditsMax: number;
  /** from the archive's own history of similar calls (pages per input, actual price per page) */
  creditsLikely: number;
  /** requests (rate slots) the plan needs at most */
  requests: number;
  /** pages the plan reads at most */
  pages: number;
  /** pages the archive already holds inside their cache window: free */
  heldPages: number;
  /** the ceiling those held pages would have cost */
  heldCredits: number;
  /** introductory free calls the plan expects to use */
  freeCalls: number;
  /** the pacer's minimum time for the requests (ms) */
  etaMs: number;
}

export interface CollectInputInfo {
  seq: number;
  /** the line of the list (null: from a set, or a call) */
  line: number | null;
  label: string;
  platform: string;
  endpoint: string;
  params: Record<string, string>;
  pages: number;
  /** the engagement it was ranked by (top-K), when ranked */
  rank: number | null;
  state: CollectInputState;
  /** why it failed or was skipped; what a held input was answered from */
  reason: string | null;
  pagesDone: number;
  credits: number;
  items: number;
  /** this input's part of the plan */
  estimate: { creditsMin: number; creditsMax: number; creditsLikely: number; heldPages: number };
  /** feeds: later runs read only newer items (the newest held item, and its time) */
  feed: boolean;
  marker: string | null;
}

export interface CollectProblem {
  line: number | null;
  text: string;
  reason: string;
}

export interface CollectDuplicate {
  line: number | null;
  text: string;
  label: string;
  /** the line of the first input it repeats (null: an input the saved plan already has) */
  sameAs: number | null;
}

/** One point of a trade-off curve: the plan at depth / top-K = x. */
export interface CollectCurvePoint {
  x: number;
  inputs: number;
  creditsMin: number;
  creditsLikely: number;
  creditsMax: number;
}

/** A network's (and endpoint's) part of the plan. */
export interface CollectNetworkPart extends CollectFigures {
  platform: string;
  endpoint: string;
  inputs: number;
  price: { min: number; max: number };
}

export interface CollectPlan {
  /** null: a preview (nothing saved) */
  id: string | null;
  name: string;
  do: CollectDo | null;
  design: CollectDesignParsed;
  /** lines read (text sources), items read (sets), calls given */
  read: number;
  column: string | null;
  /** inputs the plan collects (after duplicates, problems and top-K) */
  inputs: number;
  /** the first inputs (the rest through collect.inputs) */
  sample: CollectInputInfo[];
  problems: CollectProblem[];
  duplicates: CollectDuplicate[];
  /** inputs left out by top-K */
  belowTopK: number;
  figures: CollectFigures;
  byNetwork: CollectNetworkPart[];
  curves: { depth: CollectCurvePoint[]; topK: CollectCurvePoint[] | null };
  /** free price quotes asked (dry_run, one per shape the catalogue cannot price) */
  quotes: number;
  /** how the figures were made, in words */
  basis: string[];
  warnings: string[];
  approval: { needed: boolean; reason: string | null; askAbove: number | null; balance: number | null };
}

export type CollectStatusWord = 'planned' | 'running' | 'interrupted' | 'done' | 'partial' | 'cancelled' | 'failed';

export interface CollectStatus {
  id: string;
  name: string;
  do: CollectDo | null;
  status: CollectStatusWord;
  total: number;
  counts: Record<CollectInputState, number>;
  /** the plan's figures when it was made (or last re-planned) */
  figures: CollectFigures;
  /** what the inputs not yet done may still cost */
  remaining: { creditsMin: number; creditsLikely: number; creditsMax: number; requests: number };
  /** this run's spending, from the ledger (what the service charged) */
  spent: number;
  /** every run of the plan together */
  spentTotal: number;
  budget: number | null;
  /** the pacer's minimum for the requests left (ms), while running */
  etaMs: number | null;
  runs: number;
  runStartedAt: number | null;
  runFinishedAt: number | null;
  message: string | null;
  /** the saved set the results go to (Library → Saved sets) */
  setId: string | null;
  /** the ledger / library source of every call the plan makes */
  source: string;
  createdAt: number;
  updatedAt: number;
}

export interface CollectInputsPage {
  rows: CollectInputInfo[];
  total: number;
}
