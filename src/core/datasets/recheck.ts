/**
 * Re-checking a dataset (issue 29; docs/datasets.md "Re-check and attrition"): every post of a saved
 * set or a query read again through its network's single-item endpoint, priced and run as one
 * collection plan (src/core/collect, docs/collect.md "For other callers") — so the plan's price comes
 * first, one approval (or one budget) covers it, pages held in the archive inside their cache window
 * are free, every call is paid once and a crash or a cancel resumes.
 *
 * The answers mark the items (archive/attrition.ts): an answer with the post is a new reading (the
 * metric history grows) and marks it available; the spec says "private accounts and deleted content
 * come back as not found", so an answer `RESOURCE_NOT_FOUND` — or, under readings where the service
 * answers 200 for a gone post, a `data.post` of null or `flags.deleted` true — marks it unavailable
 * with the time it was first found missing. Nothing is deleted. An item whose call failed otherwise,
 * was skipped (budget) or has no single-item endpoint stays "not re-checked": never confused with
 * "gone".
 */
import { collectDesignSchema, type CollectDesignParsed } from '../../shared/contract-collect';
import type { DatasetTarget, NotRecheckable, RecheckPlan, RecheckResult } from '../../shared/contract-datasets';
import type { PlannedCall } from '../../shared/contract-collect';
import { LoupeError } from '../../shared/errors';
import { libraryQuerySchema, type LibraryQuery, type ResultSet } from '../../shared/query';
import { canonicalParams, paramsHash } from '../api';
import type { CatalogueApi } from '../api';
import type { Archive } from '../archive';
import { sourceOf, type CollectService } from '../collect';
import { POST_ID_PARAMS, POST_URL_PARAMS, paramOf, targetFor } from '../collect';
import type { Clock } from '../ports';
import { valueAt } from '../../shared/maps';

export interface RecheckDeps {
  archive: Archive;
  collect: CollectService;
  catalogue: () => Promise<CatalogueApi>;
  clock: Clock;
  /**
   * Free requests whose answers set the service's clock (GET /v1/credits); absent: the clock as it
   * is. A command-line process reads the computer's clock until it has heard the service's: without
   * this, a sandbox moved ahead had its first answers dated (checked_at, missing_since, readings)
   * on the computer's clock, months before the rest.
   */
  syncClock?: () => Promise<void>;
}

/** The service's clock read before work that records times (`syncClock`); a failure leaves it as it is. */
export async function syncedClock(d: RecheckDeps): Promise<void> {
  try {
    await d.syncClock?.();
  } catch {
    /* the clock as it is: at worst a held answer is read again, or a time is on the computer's clock */
  }
}

/** Ids may hold `/`; platform and kind never do. */
export const itemKey = (r: { platform: string; kind: string; id: string }): string => `${r.platform}/${r.kind}/${r.id}`;
export function parseItemKey(k: string): { platform: string; kind: string; id: string } | null {
  const a = k.indexOf('/');
  const b = a < 0 ? -1 : k.indexOf('/', a + 1);
  return b < 0 ? null : { platform: k.slice(0, a), kind: k.slice(a + 1, b), id: k.slice(b + 1) };
}

/** The target's query and the name it goes by. */
export function resolveTarget(archive: Archive, t: DatasetTarget): { query: LibraryQuery; name: string; set?: ResultSet } {
  if (t.query !== undefined) return { query: libraryQuerySchema.parse(t.query), name: 'the Library query' };
  const sets = archive.listResultSets();
  const s = sets.find((r) => r.name === t.set) ?? sets.find((r) => r.id === t.set);
  if (!s) throw new LoupeError('not_found', `No saved set named "${t.set}"; save one in the Library (or see: loupe library sets).`);
  return { query: s.query, name: s.name, set: s };
}

/** The single-item call of every post the query holds, and the items no such call can read. */
export function recheckCalls(
  cat: CatalogueApi,
  archive: Archive,
  query: LibraryQuery,
): { items: number; calls: PlannedCall[]; notRecheckable: NotRecheckable[] } {
  const rows = archive.datasets.recheckRows(query);
  const calls: PlannedCall[] = [];
  const notRecheckable: NotRecheckable[] = [];
  const targets = new Map<string, ReturnType<typeof targetFor>>();
  for (const r of rows) {
    const key = itemKey(r);
    if (r.kind !== 'post') {
      notRecheckable.push({ key, reason: `a ${r.kind} has no single-item endpoint to read it again` });
      continue;
    }
    const t = valueAt(targets, r.platform, () => targetFor(cat, 'post', r.platform));
    if (!('ep' in t)) {
      notRecheckable.push({ key, reason: t.reason });
      continue;
    }
    const u = paramOf(t.ep, POST_URL_PARAMS);
    const i = paramOf(t.ep, POST_ID_PARAMS);
    const params = u && r.url ? { [u]: r.url } : i ? { [i]: r.id } : null;
    if (!params) {
      notRecheckable.push({ key, reason: `${r.platform}/${t.endpoint} needs the post's address, which the archive does not have` });
      continue;
    }
    calls.push({ platform: r.platform, endpoint: t.endpoint, params, pages: 1, label: key });
  }
  return { items: rows.length, calls, notRecheckable };
}

function designOf(name: string, calls: PlannedCall[], budget: number | null): CollectDesignParsed {
  return collectDesignSchema.parse({ name, source: { type: 'calls', calls }, pages: 1, budget });
}

const NONE = (n: number) =>
  new LoupeError('validation', `None of the ${n} item(s) can be re-checked (see the reasons listed); nothing was planned or spent.`);

export async function planRecheck(d: RecheckDeps, target: DatasetTarget, budget: number | null = null): Promise<RecheckPlan> {
  const { query, name } = resolveTarget(d.archive, target);
  const cat = await d.catalogue();
  const r = recheckCalls(cat, d.archive, query);
  if (r.calls.length === 0) throw NONE(r.items);
  await syncedClock(d);
  const plan = await d.collect.preview(designOf(`Re-check ${name.slice(0, 90)}`, r.calls, budget));
  return { items: r.items, plan, notRecheckable: r.notRecheckable.slice(0, 200), notRecheckableCount: r.notRecheckable.length };
}

/** Is this stored single-item answer a gone post (the 200 readings of "not found")? */
export function answerSaysGone(envelope: unknown): boolean {
  const data = (envelope as { data?: unknown } | null)?.data;
  if (data === null || typeof data !== 'object') return false;
  if (!('post' in data)) return false;
  const post = (data as { post: unknown }).post;
  if (post === null) return true;
  return typeof post === 'object' && (post as { flags?: { deleted?: unknown } }).flags?.deleted === true;
}

/**
 * Marks the items a re-check plan read, from its inputs, the ledger (the not-found answers) and the
 * stored answers. Returns found / missing / not read.
 */
export function applyRecheck(archive: Archive, planId: string): { found: number; missing: number; notRead: number } {
  const out = { found: 0, missing: 0, notRead: 0 };
  const source = sourceOf(planId);
  for (let offset = 0; ; offset += 1000) {
    const rows = archive.collect.inputs(planId, { offset, limit: 1000 });
    for (const r of rows) {
      const ref = parseItemKey(r.label);
      if (!ref) continue;
      const hash = paramsHash(`${r.platform}/${r.endpoint}?${canonicalParams(r.params)}`);
      if (r.state === 'done' || r.state === 'held') {
        const answer = archive.findFreshResponse(r.platform, r.endpoint, hash, 0);
        if (!answer) {
          out.notRead++;
          continue;
        }
        const gone = answerSaysGone(answer.envelope);
        archive.datasets.markChecked(ref, answer.fetchedAt, gone);
        out[gone ? 'missing' : 'found']++;
        continue;
      }
      const last = r.state === 'failed' ? archive.datasets.lastAttempt(source, r.platform, r.endpoint, hash) : undefined;
      if (last?.errorType === 'RESOURCE_NOT_FOUND') {
        archive.datasets.markChecked(ref, last.startedAt, true);
        out.missing++;
      } else out.notRead++;
    }
    if (rows.length < 1000) break;
  }
  return out;
}

/** Plans (or continues), runs and applies a re-check; throws `not_approved` before spending when it needs approval. */
export async function runRecheck(
  d: RecheckDeps,
  input: { target: DatasetTarget; budget?: number | null; approved: boolean; plan?: string },
): Promise<RecheckResult> {
  const { query, name } = resolveTarget(d.archive, input.target);
  await syncedClock(d);
  let planId: string;
  if (input.plan !== undefined) {
    const st = d.collect.get(input.plan);
    if (!st) throw new LoupeError('not_found', `No re-check plan "${input.plan}"; see: loupe collect status`);
    planId = st.id;
  } else {
    const cat = await d.catalogue();
    const r = recheckCalls(cat, d.archive, query);
    if (r.calls.length === 0) throw NONE(r.items);
    const stamp = new Date(d.clock.now()).toISOString().slice(0, 19).replace('T', ' ');
    const design = designOf(`Re-check ${name.slice(0, 90)} ${stamp}`, r.calls, input.budget ?? null);
    // the approval first: nothing saved, nothing spent when the plan needs one it does not have
    const priced = await d.collect.preview(design);
    if (priced.approval.needed && !input.approved && input.budget == null)
      throw new LoupeError(
        'not_approved',
        `Re-checking ${r.calls.length} item(s) of ${name} could cost up to ${priced.figures.creditsMax} credits${priced.approval.reason ? ` (${priced.approval.reason})` : ''}; nothing was spent. Approve it (--yes), or give it a budget (--budget).`,
      );
    const created = (await d.collect.create(design)).id;
    if (!created) throw new Error('Internal error: the re-check plan was saved without an id.');
    planId = created;
  }
  const status = await d.collect.run(planId, { approved: input.approved, ...(input.budget !== undefined ? { budget: input.budget } : {}) });
  const marks = applyRecheck(d.archive, planId);
  return { status, ...marks, attrition: d.archive.datasets.attrition(query) };
}
