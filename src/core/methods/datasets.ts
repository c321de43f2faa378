/**
 * The contract's `datasets.*` methods (docs/datasets.md): re-checks priced and run as collection
 * plans (over the collect job's service), the attrition report, and bundles (export, verify,
 * import; a dehydrated bundle's re-collection priced as one plan). A bundle the contract names is
 * inside the data folder (an upload, an export job's); one at a path of the door's choosing is the
 * local doors' (`datasetLocalMethods`, src/shared/contract-local.ts): never the web door's.
 */
import { existsSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import type { BundleRef } from '../../shared/contract-datasets';
import type { LocalImpl } from '../../shared/contract-local';
import { collectDesignSchema, type CollectPlan } from '../../shared/contract-collect';
import { SPEC_VARIANT_NAMES } from '../../shared/spec-variants';
import {
  bundleUploads,
  exportBundle,
  importBundle,
  planRecheck,
  planRehydrate,
  resolveTarget,
  runRecheck,
  runRehydrate,
  setSavedOf,
  verifyBundle,
  type ManifestCall,
  type RecheckDeps,
} from '../datasets';
import type { QueryNames } from '../query-names';
import { openArchive } from '../archive';
import { makePlan } from '../collect';
import { LoupeError } from '../../shared/errors';
import type { CollectJob } from './collect';
import type { Exports } from './exports';
import type { AppParts, Slice } from './parts';

/** A bundle's steps that write rows, in order (bundle.ts): the job's progress runs across them. */
const ROW_STEPS = ['items.csv', 'items.parquet', 'items.jsonl'];

/**
 * How a dehydrated bundle's quote is priced (its `priced_as`): for the recipient, who holds none
 * of the answers — not against the writer's archive, where every call is held.
 */
export const RECIPIENT_PRICING =
  "as a recipient with an empty archive would pay today: none of the writer's stored answers (no page held inside its cache window), no history of the endpoints (likely at the floor of their prices), no free calls";

/**
 * What re-collecting a bundle's calls would cost its recipient today: one plan's price (free;
 * nothing saved), the collection planner's, over an empty archive — none of the writer's stored
 * answers, history or free calls. Priced against the writer's archive, which holds every answer,
 * the quote right after collecting said 0 credits, 0 requests.
 */
async function quoteOf(parts: AppParts, calls: ManifestCall[]) {
  const priced = calls.flatMap((c) =>
    c.params === null ? [] : [{ platform: c.platform, endpoint: c.endpoint, params: c.params, pages: 1 }],
  );
  if (priced.length === 0) return null;
  const api = await parts.api();
  const now = parts.clock.now();
  const design = collectDesignSchema.parse({ name: `Rehydrate ${now}`, source: { type: 'calls', calls: priced }, pages: 1 });
  const empty = openArchive(':memory:');
  let p: CollectPlan;
  try {
    p = (await makePlan({ api, archive: empty, now, askAbove: null, freeCallsLeft: 0 }, design)).plan;
  } finally {
    empty.close();
  }
  return {
    credits_min: p.figures.creditsMin,
    credits_likely: p.figures.creditsLikely,
    credits_max: p.figures.creditsMax,
    requests: p.figures.requests,
    quoted_at: new Date(now).toISOString(),
    priced_as: RECIPIENT_PRICING,
  };
}

/**
 * Cache windows, and the times a re-check or a rehydration records, are on the service's clock:
 * free requests (GET /v1/credits) read it first (the clock moves when two answers agree:
 * service-clock.ts).
 */
const clockSync = (parts: AppParts) => async (): Promise<void> => {
  await parts.service.syncClock(); // the sandbox's own clock, where there is one (service-link.ts)
  const api = await parts.api();
  for (let k = 0; k < 2; k++) await api.credits();
};

type BundleLocal = Pick<
  LocalImpl,
  'local.exportBundle' | 'local.verifyBundle' | 'local.importBundle' | 'local.rehydratePlan' | 'local.rehydrate'
>;

/** What the bundle methods of both kinds (contract and local) share. */
function bundleWork(parts: AppParts, collect: CollectJob) {
  const deps = (): RecheckDeps => ({
    archive: parts.archive,
    collect: collect.service(),
    clock: parts.clock,
    catalogue: async () => {
      const api = await parts.api();
      await api.catalogue.load();
      return api.catalogue;
    },
    syncClock: clockSync(parts),
  });
  const quote = (calls: ManifestCall[]) => quoteOf(parts, calls);
  const verify = (dir: string, i: { root?: string; withArchive: boolean }) =>
    verifyBundle(dir, { ...(i.root !== undefined ? { root: i.root } : {}), ...(i.withArchive ? { archive: parts.archive } : {}) });
  return { deps, quote, verify };
}

/**
 * The local doors' bundle methods (the command line): the bundle at a path of its choosing.
 * `checkQuery`: the unknown-name check every contract method's query gets.
 */
export function datasetLocalMethods(parts: AppParts, collect: CollectJob, checkQuery: (q: QueryNames) => Promise<void>): BundleLocal {
  const w = bundleWork(parts, collect);
  return {
    'local.exportBundle': async (i, door = {}) => {
      if (i.target.query) await checkQuery(i.target.query);
      const t = resolveTarget(parts.archive, i.target);
      const m = await exportBundle(parts.archive, {
        out: i.out,
        query: t.query,
        set: i.target.set !== undefined ? t.name : null,
        ...setSavedOf(t),
        version: parts.version,
        variants: i.variants,
        dehydrated: i.dehydrated,
        now: parts.clock.now(),
        quote: w.quote,
        signal: door.signal,
        onStep: (step, rows) => door.onEvent?.({ type: 'bundle-step', step, rows }),
      });
      return {
        out: i.out,
        root: m.root_sha256,
        items: m.items.length,
        calls: m.calls.length,
        files: m.files,
        dehydrated: m.dehydrated,
        rehydrationQuote: m.rehydration_quote ?? null,
      };
    },
    'local.verifyBundle': (i) => w.verify(i.dir, i),
    'local.importBundle': (i) => importBundle(i.dir, parts.archive, parts.clock.now()),
    'local.rehydratePlan': (i) => planRehydrate(w.deps(), i.dir, i.budget ?? null, i.pages),
    'local.rehydrate': (i) => runRehydrate(w.deps(), i),
  };
}

export function datasetMethods(parts: AppParts, collect: CollectJob, exports: Exports): Slice<'datasets'> {
  const { deps, quote, verify } = bundleWork(parts, collect);
  const uploads = bundleUploads(parts.dataDir);
  const exportsDir = resolve(parts.dataDir, 'exports');
  /** bundle files of jobs still running: two jobs given one name (started in the same second) get one each */
  const writing = new Set<string>();
  const freeName = (dir: string, base: string, zip: boolean): string => {
    for (let n = 1; ; n++) {
      const file = join(dir, `${n === 1 ? base : `${base}-${n}`}${zip ? '.zip' : ''}`);
      if (!writing.has(file) && !existsSync(file)) return file;
    }
  };
  /** a bundle inside the data folder: an upload, or a finished bundle export job's file or folder */
  const bundlePath = async (ref: BundleRef): Promise<string> => {
    if ('upload' in ref) return uploads.path(ref.upload);
    const job = await exports.methods['export.get']({ exportId: ref.export });
    if (!job) throw new LoupeError('not_found', `No export "${ref.export}" in this session: send the bundle instead.`);
    if (job.status !== 'done' || !job.path) throw new LoupeError('validation', `The export is ${job.status}, not a finished bundle.`);
    const path = resolve(job.path);
    if (!path.startsWith(exportsDir + sep)) throw new LoupeError('not_found', 'That export is no longer in the exports folder.');
    return path;
  };
  return {
    'datasets.recheckPlan': (i) => planRecheck(deps(), i.target, i.budget ?? null),
    'datasets.recheck': (i) => runRecheck(deps(), i),
    'datasets.attrition': async (i) => parts.archive.datasets.attrition(resolveTarget(parts.archive, i.target).query),
    'datasets.bundleJob': async (i) => {
      const t = resolveTarget(parts.archive, i.target);
      const items = parts.archive.count(t.query);
      const stamp = new Date(parts.clock.now()).toISOString().slice(0, 19).replace(/[:T]/g, '-');
      const base = (i.name ?? `loupe-bundle-${stamp}`).replace(/\.zip$/i, '');
      return exports.runJob(i.dehydrated ? null : items * ROW_STEPS.length, async ({ exportsDir, signal, progress }) => {
        const out = freeName(exportsDir, base, i.zip);
        writing.add(out);
        const onStep = (step: string, rows: number) =>
          progress(
            ROW_STEPS.includes(step)
              ? ROW_STEPS.indexOf(step) * items + rows
              : step === 'answers.jsonl' || step.includes('.zip')
                ? ROW_STEPS.length * items
                : 0,
          );
        const m = await exportBundle(parts.archive, {
          out,
          query: t.query,
          set: i.target.set !== undefined ? t.name : null,
          ...setSavedOf(t),
          version: parts.version,
          variants: [...SPEC_VARIANT_NAMES],
          dehydrated: i.dehydrated,
          now: parts.clock.now(),
          quote,
          signal,
          onStep,
        }).finally(() => writing.delete(out));
        const q = m.rehydration_quote;
        const summary = `Bundle of ${m.items.length} item(s) from ${m.calls.length} call(s)${m.dehydrated ? ' (dehydrated: keys and calls only)' : ''}. Root hash (cite it): ${m.root_sha256}.${q ? ` Re-collecting it today, for a recipient with an empty archive: ${q.credits_min}–${q.credits_max} credits (likely ${q.credits_likely}).` : ''}`;
        return { path: out, summary, download: i.zip };
      });
    },
    'datasets.upload': (i) => uploads.put(i),
    'datasets.verifyBundle': async (i) => verify(await bundlePath(i.bundle), i),
    'datasets.importBundle': async (i) => importBundle(await bundlePath(i.bundle), parts.archive, parts.clock.now()),
    'datasets.rehydratePlan': async (i) => planRehydrate(deps(), await bundlePath(i.bundle), i.budget ?? null, i.pages),
    'datasets.rehydrate': async (i) => runRehydrate(deps(), { ...i, dir: await bundlePath(i.bundle) }),
  };
}
