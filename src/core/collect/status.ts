/**
 * What a plan looks like from outside: its status (a running plan whose process is gone reads
 * `interrupted`), its inputs by state, its figures, what the inputs left may still cost, what the run
 * has spent (from the ledger: what the service charged) and the pacer's minimum for what is left.
 */
import type {
  CollectFigures,
  CollectInputInfo,
  CollectInputState,
  CollectStatus,
  CollectStatusWord,
  CollectDo,
} from '../../shared/contract-collect';
import { COLLECT_INPUT_STATES } from '../../shared/contract-collect';
import type { Archive, CollectInputRow, CollectPlanRow } from '../archive';
import { emptyFigures } from './curves';

export const sourceOf = (planId: string): string => `collect:${planId}`;

export function statusOf(archive: Archive, p: CollectPlanRow, eta: ((requests: number) => number) | null): CollectStatus {
  const store = archive.collect;
  const raw = store.counts(p.id);
  const counts = Object.fromEntries(COLLECT_INPUT_STATES.map((s) => [s, raw[s] ?? 0])) as Record<CollectInputState, number>;
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const run = p.runId ? store.run(p.runId) : undefined;
  const rem = store.remaining(p.id);
  const source = sourceOf(p.id);
  const status = p.status as CollectStatusWord;
  return {
    id: p.id,
    name: p.name,
    do: (p.do as CollectDo | null) ?? null,
    status,
    total,
    counts,
    figures: { ...emptyFigures(), ...(p.figures as Partial<CollectFigures>) },
    remaining: { creditsMin: rem.min, creditsLikely: rem.likely, creditsMax: rem.max, requests: rem.requests },
    spent: run ? store.spent(source, run) : 0,
    spentTotal: store.spent(source),
    budget: run?.budget ?? p.budget,
    etaMs: status === 'running' && eta ? eta(rem.requests) : null,
    runs: p.runs,
    runStartedAt: run?.startedAt ?? null,
    runFinishedAt: run?.finishedAt ?? null,
    message: p.message,
    setId: p.setId,
    source,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  };
}

export function inputOf(r: CollectInputRow): CollectInputInfo {
  return {
    seq: r.seq,
    line: r.line,
    label: r.label,
    platform: r.platform,
    endpoint: r.endpoint,
    params: r.params,
    pages: r.pages,
    rank: r.rank,
    state: r.state,
    reason: r.reason,
    pagesDone: r.pagesDone,
    credits: r.credits,
    items: r.items,
    estimate: { creditsMin: r.estMin, creditsMax: r.estMax, creditsLikely: r.estLikely, heldPages: r.heldPages },
    feed: r.feed,
    marker: r.markerId,
  };
}
