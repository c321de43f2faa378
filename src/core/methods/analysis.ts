/**
 * The contract's `analysis.*` methods (src/shared/analysis.ts): frequency tables, comparisons,
 * overperformance and library charts over the archive. Each is one read; the analysis index
 * (src/core/analysis/analysis-index.ts) is brought up to date first where it can answer.
 */
import type { Archive } from '../archive';
import { QueryError } from '../archive';
import { AppError } from '../bridge';
import { AnalysisIndex } from '../analysis';
import { engagementDistribution, labelShareOverTime, volumeBy } from '../analysis';
import { compare, overperformance } from '../analysis';
import { frequencyTable } from '../analysis';
import type { IndexBuild } from '../../shared/analysis';
import type { LoupeEvent, LoupeImpl, MethodName } from '../../shared/contract';

export type AnalysisMethodName = Extract<MethodName, `analysis.${string}`>;

/** A bad query or label field is the caller's mistake: a validation error with its sentence. */
function clear<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof QueryError || (e instanceof Error && e.name === 'ZodError')) throw new AppError('validation', e.message);
    if (e instanceof Error && /^Volume by label needs/.test(e.message)) throw new AppError('validation', e.message);
    throw e;
  }
}

/**
 * The analysis index built now, in slices in the foreground (no worker, not in the background),
 * each slice's progress as an `index-progress` event; the event loop is let go between slices.
 */
async function buildIndexNow(archive: Archive, emit: (e: LoupeEvent) => void): Promise<IndexBuild> {
  const build = new AnalysisIndex(archive, { background: false });
  const waiting = (): number => build.backlog() + build.authorsBacklog();
  const items = build.backlog();
  const total = waiting();
  if (total === 0 || (build.current() && build.authorsCurrent())) return { built: false, items: 0, ms: 0, archiveItems: archive.count({}) };
  const t0 = performance.now();
  while (build.buildSlice({ items: 2_000, authors: 20_000 })) {
    emit({ type: 'index-progress', done: total - Math.min(total, waiting()), total });
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { built: true, items, ms: performance.now() - t0, archiveItems: archive.count({}) };
}

export function analysisMethods(
  archive: Archive,
  door: 'electron' | 'web' | 'cli' = 'electron',
  emit: (e: LoupeEvent) => void = () => {},
): Pick<LoupeImpl, AnalysisMethodName> {
  // the app's index builds in a worker thread of its own (analysis-index.ts warm); a command-line
  // query never starts a build: it answers and exits (`loupe archive index` builds, issue 30)
  const index = new AnalysisIndex(archive, { worker: true, background: door !== 'cli' });
  return {
    async 'analysis.frequency'(i) {
      return clear(() => frequencyTable(archive, i, index));
    },
    async 'analysis.compare'(i) {
      return clear(() => compare(archive, i));
    },
    async 'analysis.overperformance'(i) {
      return clear(() => overperformance(archive, i));
    },
    async 'analysis.volumeBy'(i) {
      return clear(() => volumeBy(archive, i, index));
    },
    async 'analysis.labelShare'(i) {
      return clear(() => labelShareOverTime(archive, i, index));
    },
    async 'analysis.engagementDistribution'(i) {
      return clear(() => engagementDistribution(archive, i));
    },
    async 'analysis.indexStatus'() {
      return index.status();
    },
    'analysis.buildIndex': () => buildIndexNow(archive, emit),
  };
}
