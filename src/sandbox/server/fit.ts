/**
 * fit=goal (spec "Judgment parameters"): rows not needed for the goal become stubs, their ids held
 * back. Split from engine.ts.
 */
import type { World, WorldRow } from '../types';
import type { ListItem } from '../../shared/api-types';

function recordOf(item: ListItem): Record<string, unknown> {
  const k = Object.keys(item)[0];
  return item[k] as Record<string, unknown>;
}

/** Rows judged at p in [FIT_UNCERTAIN_LOW, FIT_UNCERTAIN_HIGH) (or not judged) are uncertain: always kept. */
export const FIT_UNCERTAIN_LOW = 0.35;
export const FIT_UNCERTAIN_HIGH = 0.65;
/** Fields a stub keeps (when the record has them), besides `stub: true`. */
export const STUB_FIELDS = ['id', 'url', 'kind', 'published_at'] as const;

/** Token estimate of a record: ceil(JSON characters / 4). */
export function estimateTokens(rec: unknown): number {
  return Math.ceil(JSON.stringify(rec).length / 4);
}

export type FitRole = 'edge' | 'uncertain' | 'relevant' | 'irrelevant';

/** How fit=goal classifies one row: first/last of the page, uncertain (unjudged or mid p), relevant, irrelevant. */
export function fitRole(index: number, count: number, p: number | null): FitRole {
  if (index === 0 || index === count - 1) return 'edge';
  if (p === null || (p >= FIT_UNCERTAIN_LOW && p < FIT_UNCERTAIN_HIGH)) return 'uncertain';
  return p >= FIT_UNCERTAIN_HIGH ? 'relevant' : 'irrelevant';
}

function stubOf(item: ListItem): ListItem {
  const key = Object.keys(item)[0];
  const rec = recordOf(item);
  const stub: Record<string, unknown> = {};
  for (const f of STUB_FIELDS) if (f in rec) stub[f] = rec[f];
  stub.stub = true;
  return { [key]: stub } as ListItem;
}

/**
 * fit=goal on the rows of one answer (order and count unchanged): relevance of each row to the goal
 * is the world's relevance(row, goal). Kept whole: the first and last rows, uncertain rows, and
 * relevant rows (most relevant first) while the kept text stays within `fit_tokens`; first, last and
 * uncertain rows are kept even past the cap (their tokens count against it first). The rest become
 * stubs; their ids are held back.
 */
export function fitItems(
  rows: WorldRow[],
  fit: { goal: string; tokens: number | null },
  world: World,
): { items: ListItem[]; heldBack: string[] } {
  const n = rows.length;
  const roles = rows.map((r, i) => {
    const rel = i === 0 || i === n - 1 ? null : world.relevance(r, fit.goal);
    return { role: fitRole(i, n, rel ? rel.p : null), p: rel ? rel.p : 0 };
  });
  const keep = roles.map((x) => x.role === 'edge' || x.role === 'uncertain');
  let used = 0;
  for (let i = 0; i < n; i++) if (keep[i]) used += estimateTokens(recordOf(rows[i].item));
  const relevant = roles
    .map((x, i) => ({ ...x, i }))
    .filter((x) => x.role === 'relevant')
    .sort((a, b) => b.p - a.p || a.i - b.i);
  for (const x of relevant) {
    const t = estimateTokens(recordOf(rows[x.i].item));
    if (fit.tokens !== null && used + t > fit.tokens) continue;
    keep[x.i] = true;
    used += t;
  }
  const heldBack: string[] = [];
  const items = rows.map((r, i) => {
    if (keep[i]) return r.item;
    heldBack.push(r.id);
    return stubOf(r.item);
  });
  return { items, heldBack };
}
