/**
 * Rehydrating a dehydrated bundle (issue 29; docs/datasets.md "Rehydrate"): the bundle names item
 * keys and the calls that delivered them; its items are collected again through the collection
 * planner (src/core/collect, docs/collect.md "For other callers") — priced now as one plan (beside
 * the bundle's own, older quote), nothing spent without an approval or a budget, every page paid
 * once and a crash resumed from where it stopped.
 *
 * - **Each post read singly** where its network has a single-item endpoint and the bundle carries
 *   the post's address (or the endpoint takes its id): exact — the post comes back, or the service
 *   answers not found because it was deleted or its account made private.
 * - **The other items through the bundle's calls, as walks.** A cursor expires and is bound to the
 *   server that issued it (the spec's pagination rule 4), so a list's pages are not re-sent as they
 *   were: the bundle's calls of one list (the same endpoint and parameters, the paging parameters
 *   aside) are one input walked again from its first page, as deep as the bundle's walks went (or
 *   `pages`). Newer posts push older ones down a feed: what the walk did not reach is `missing`.
 * - **Archive-first.** An item this archive already holds from an answer inside its endpoint's cache
 *   window costs nothing: a list whose items are all held is not planned at all, and the planner
 *   answers the exact calls it holds from the archive, free.
 * - **What became of each item** (`rehydrated_items`, migration 0024: the items' link back to their
 *   bundle): `recollected` (the archive holds it from this rehydration's answers), `held` (free, as
 *   above), `unavailable` (the spec: "private accounts and deleted content come back as not found" —
 *   a single-item read or a list answered `RESOURCE_NOT_FOUND`, or a post answered null or
 *   deleted; an item this archive holds is marked, never deleted), `missing` (the call answered and
 *   the item was not in it: deleted, made private or moved past the pages read — not called gone),
 *   `failed` (the call failed, was refused or was not made). Afterwards every key is looked up in
 *   the archive, and the keys it does not hold are named.
 */
import { randomUUID } from 'node:crypto';
import { collectDesignSchema, type CollectDesignParsed, type PlannedCall } from '../../shared/contract-collect';
import type { NotRecheckable, RehydratePlan, RehydrateReport, RehydratedItemState, RehydrationQuote } from '../../shared/contract-datasets';
import { LoupeError } from '../../shared/errors';
import { canonicalParams, paramsHash, type CatalogueApi } from '../api';
import type { Archive, CollectInputRow } from '../archive';
import { paramOf, POST_ID_PARAMS, POST_URL_PARAMS, sourceOf, targetFor } from '../collect';
import type { ItemRef } from '../ports';
import type { Manifest } from './bundle';
import { readVerifiedManifest } from './bundle-check';
import { answerSaysGone, itemKey, syncedClock, type RecheckDeps } from './recheck';

/** Paging parameters (the spec's pagination rules 1, 5 and 8): a walk is its other parameters. */
const PAGING = new Set([
  'cursor',
  'page',
  'continuationToken',
  'max_cursor',
  'next_page_id',
  'pagination_token',
  'next_max_id',
  'max_id',
  'after',
  'max_pages',
  'dry_run',
]);
const MAX_PAGES = 100;
const LIST = 200;

/** One list (or single read) of the bundle, walked again from its first page. */
export interface RehydrationWalk {
  platform: string;
  endpoint: string;
  params: Record<string, string>;
  pages: number;
  /** the item keys its calls delivered */
  keys: Set<string>;
}

const walkKey = (platform: string, endpoint: string, params: Record<string, string>) =>
  `${platform}/${endpoint.replace(/^\/+/, '')}|${canonicalParams(params)}`;

/** A post's single read (the re-check's endpoint): by its address where the bundle carries it, else by its id where the endpoint takes one. */
function singleRead(
  cat: CatalogueApi,
  targets: Map<string, ReturnType<typeof targetFor>>,
  i: { platform: string; kind: string; id: string; url?: string | null },
): { endpoint: string; params: Record<string, string> } | null {
  if (i.kind !== 'post') return null;
  const t = targets.get(i.platform) ?? targets.set(i.platform, targetFor(cat, 'post', i.platform)).get(i.platform);
  if (!t || !('ep' in t)) return null;
  const u = paramOf(t.ep, POST_URL_PARAMS);
  const n = paramOf(t.ep, POST_ID_PARAMS);
  const params = u && i.url ? { [u]: i.url } : n ? { [n]: i.id } : null;
  return params ? { endpoint: t.endpoint.replace(/^\/+/, ''), params } : null;
}

/**
 * What a rehydration reads: each post the network can read singly (the bundle carries its address,
 * or the endpoint takes its id) by its own single read — exact: a deleted or private post answers
 * not found — and the other items through the bundle's calls grouped into walks (the lists walked
 * again from their first page, `depth` pages or as deep as the bundle's walks went); the items no
 * call can re-collect. Without a catalogue, the bundle's calls only.
 */
export function rehydrationWalks(m: Manifest, depth?: number, cat?: CatalogueApi): { walks: RehydrationWalk[]; cannot: NotRecheckable[] } {
  type Acc = RehydrationWalk & { single: boolean; firsts: number; units: number };
  const byKey = new Map<string, Acc>();
  const walkOf = (platform: string, endpoint: string, params: Record<string, string>, single: boolean): [string, Acc] => {
    const key = walkKey(platform, endpoint, params);
    let w = byKey.get(key);
    if (!w)
      byKey.set(
        key,
        (w = { platform, endpoint: endpoint.replace(/^\/+/, ''), params, pages: 1, keys: new Set(), single, firsts: 0, units: 0 }),
      );
    return [key, w];
  };
  const walkOfCall = new Map<string, string>();
  for (const c of m.calls) {
    if (c.params === null) continue;
    const params: Record<string, string> = {};
    let paged = false;
    for (const [k, v] of Object.entries(c.params)) {
      if (PAGING.has(k)) paged ||= k !== 'max_pages' && k !== 'dry_run';
      else params[k] = String(v);
    }
    const [key, w] = walkOf(c.platform, c.endpoint, params, false);
    if (!paged) w.firsts++;
    const mp = Number(c.params.max_pages);
    w.units += Number.isInteger(mp) && mp > 1 ? mp : 1;
    walkOfCall.set(c.call_id, key);
  }
  const targets = new Map<string, ReturnType<typeof targetFor>>();
  const cannot: NotRecheckable[] = [];
  for (const i of m.items) {
    const key = itemKey(i);
    const one = cat ? singleRead(cat, targets, i) : null;
    if (one) {
      const [, w] = walkOf(i.platform, one.endpoint, one.params, true);
      w.single = true;
      w.keys.add(key);
      continue;
    }
    const ws = i.calls.map((id) => walkOfCall.get(id)).filter((k): k is string => k !== undefined);
    if (ws.length === 0) {
      cannot.push({
        key,
        reason: i.calls.some((id) => m.calls.some((c) => c.call_id === id))
          ? 'a bulk load delivered it and kept no call to make again'
          : 'the manifest lists no call that delivered it',
      });
      continue;
    }
    for (const k of ws) byKey.get(k)?.keys.add(key);
  }
  const walks = [...byKey.values()]
    .filter((w) => w.keys.size > 0)
    .map(({ single, firsts, units, ...w }) => ({
      ...w,
      // a list: as deep as the bundle's walks went (its pages over the walks that started), or `depth`
      pages: single ? 1 : Math.min(MAX_PAGES, depth ?? Math.max(1, Math.ceil(units / Math.max(1, firsts)))),
    }));
  return { walks, cannot };
}

/** Does the archive hold this item from an answer inside its endpoint's cache window (of `at`), or from `source`? */
function heldFresh(archive: Archive, cat: CatalogueApi, ref: ItemRef, at: number, source?: string): boolean {
  return archive.rehydrations.deliveries(ref).some((d) => {
    if (source !== undefined && d.source === source) return true;
    const ttl = cat.find(d.platform, d.endpoint)?.cache_ttl_seconds ?? 0;
    return ttl > 0 && d.fetchedAt >= at - ttl * 1000;
  });
}

/** What is left to plan now: the walks not wholly held, the held items, and the calls. */
function toPlan(d: RecheckDeps, cat: CatalogueApi, m: Manifest, pages?: number) {
  const { walks, cannot } = rehydrationWalks(m, pages, cat);
  const now = d.clock.now();
  const refs = new Map(m.items.map((i) => [itemKey(i), { platform: i.platform, kind: i.kind, id: i.id }]));
  const held = new Set<string>();
  for (const w of walks)
    for (const k of w.keys) {
      const ref = refs.get(k);
      if (ref && !held.has(k) && heldFresh(d.archive, cat, ref, now)) held.add(k);
    }
  const open = walks.filter((w) => [...w.keys].some((k) => !held.has(k)));
  const calls: PlannedCall[] = open.map((w) => ({
    platform: w.platform,
    endpoint: w.endpoint,
    params: w.params,
    pages: w.pages,
    // read once: a later run of an unfinished rehydration does not read a feed's new items
    feed: false,
    label: `${w.platform}/${w.endpoint} ${Object.values(w.params)[0] ?? ''} (${w.keys.size} item(s) of the bundle)`.slice(0, 300),
  }));
  return { walks, open, held, cannot, calls };
}

const designOf = (name: string, calls: PlannedCall[], budget: number | null): CollectDesignParsed =>
  collectDesignSchema.parse({ name, source: { type: 'calls', calls }, pages: Math.max(1, ...calls.map((c) => c.pages ?? 1)), budget });

async function dehydratedManifest(dir: string): Promise<Manifest> {
  const { manifest, report } = await readVerifiedManifest(dir);
  if (!report.ok)
    throw new LoupeError(
      'validation',
      `The bundle does not verify; nothing was planned or spent:\n${report.problems.map((p) => `  ${p}`).join('\n')}`,
    );
  if (!manifest.dehydrated)
    throw new LoupeError(
      'validation',
      'This bundle holds its items (it is not dehydrated): import it instead (loupe dataset import), nothing paid.',
    );
  return manifest;
}

/** What a rehydration needs: a re-check's, its `syncClock` too (cache windows are on the service's clock). */
export type RehydrateDeps = RecheckDeps;

function resumable(d: RecheckDeps, root: string) {
  const rec = d.archive.rehydrations.latest(root);
  const st = rec ? d.collect.get(rec.planId) : null;
  return { rec, st };
}

/** Prices the re-collection now (free: nothing saved, nothing spent). */
export async function planRehydrate(d: RehydrateDeps, dir: string, budget: number | null = null, pages?: number): Promise<RehydratePlan> {
  const m = await dehydratedManifest(dir);
  const cat = await d.catalogue();
  await syncedClock(d);
  const p = toPlan(d, cat, m, pages);
  const { rec, st } = resumable(d, m.root_sha256);
  const plan = p.calls.length === 0 ? null : await d.collect.preview(designOf(`Rehydrate ${m.root_sha256.slice(0, 12)}`, p.calls, budget));
  return {
    root: m.root_sha256,
    items: m.items.length,
    calls: m.calls.length,
    quoted: (m.rehydration_quote ?? null) as RehydrationQuote | null,
    plan,
    held: p.held.size,
    cannot: p.cannot.slice(0, LIST),
    cannotCount: p.cannot.length,
    resume: rec ? { name: st?.name ?? rec.planId, status: st?.status ?? 'done' } : null,
  };
}

const notApproved = (what: string, max: number) =>
  new LoupeError(
    'not_approved',
    `Re-collecting ${what} could cost up to ${max.toLocaleString('en-US')} credits; nothing was spent. Approve it (--yes), or give it a ceiling (--max-credits).`,
  );

/** Plans (or continues), runs and settles a rehydration; refuses before spending without an approval or a budget. */
export async function runRehydrate(
  d: RehydrateDeps,
  input: { dir: string; approved: boolean; budget?: number | null; pages?: number; signal?: AbortSignal },
): Promise<RehydrateReport> {
  const m = await dehydratedManifest(input.dir);
  const cat = await d.catalogue();
  await syncedClock(d);
  const budget = input.budget ?? null;
  const { rec, st } = resumable(d, m.root_sha256);
  if (rec) {
    // an earlier rehydration of this bundle: continue it when unfinished (what it already paid is not paid again)
    if (st && st.status !== 'done') {
      if (!input.approved && budget === null && st.remaining.creditsMax > 0)
        throw notApproved(`the rest of this bundle (plan "${st.name}")`, st.remaining.creditsMax);
      await d.collect.run(rec.planId, { approved: true, ...(input.budget !== undefined ? { budget } : {}), signal: input.signal });
    }
    return settle(d, cat, m, rec.planId, rec.createdAt, input.pages);
  }
  const p = toPlan(d, cat, m, input.pages);
  const stamp = new Date(d.clock.now()).toISOString().slice(0, 19).replace('T', ' ');
  let planId: string = randomUUID();
  if (p.calls.length > 0) {
    const design = designOf(`Rehydrate ${m.root_sha256.slice(0, 12)} ${stamp}`, p.calls, budget);
    const priced = await d.collect.preview(design);
    if (!input.approved && budget === null && priced.figures.creditsMax > 0)
      throw notApproved(`${m.items.length} item(s) of this bundle`, priced.figures.creditsMax);
    planId = (await d.collect.create(design)).id ?? planId;
  }
  const createdAt = d.clock.now();
  d.archive.rehydrations.insert(
    { planId, root: m.root_sha256, path: input.dir, quote: m.rehydration_quote ?? null, createdAt },
    m.items.map((i) => ({ platform: i.platform, kind: i.kind, id: i.id })),
  );
  d.archive.rehydrations.settle(
    planId,
    m.items
      .filter((i) => p.held.has(itemKey(i)))
      .map((i) => ({
        platform: i.platform,
        kind: i.kind,
        id: i.id,
        state: 'held' as const,
        reason: 'already held inside its cache window: free',
      })),
    createdAt,
  );
  if (p.calls.length > 0)
    await d.collect.run(planId, { approved: true, ...(input.budget !== undefined ? { budget } : {}), signal: input.signal });
  return settle(d, cat, m, planId, createdAt, input.pages);
}

/** Every input of a plan (all pages of them). */
function inputsOf(archive: Archive, planId: string): CollectInputRow[] {
  const out: CollectInputRow[] = [];
  for (let offset = 0; ; offset += 1000) {
    const rows = archive.collect.inputs(planId, { offset, limit: 1000 });
    out.push(...rows);
    if (rows.length < 1000) return out;
  }
}

const RANK: Record<RehydratedItemState, number> = { recollected: 5, held: 5, unavailable: 4, missing: 3, failed: 2, pending: 1 };

/** What one walk's input says of an item it should have delivered. */
function outcomeOf(
  archive: Archive,
  cat: CatalogueApi,
  source: string,
  row: CollectInputRow | undefined,
): { state: RehydratedItemState; reason: string | null } {
  if (!row) return { state: 'failed', reason: 'the catalogue refuses this call now (see the plan’s problems): not made' };
  const hash = paramsHash(`${row.platform}/${row.endpoint}?${canonicalParams(row.params)}`);
  if (row.state === 'done' || row.state === 'held') {
    const single = cat.find(row.platform, row.endpoint)?.paginates === false;
    const answer = single ? archive.findFreshResponse(row.platform, row.endpoint, hash, 0) : undefined;
    if (answer && answerSaysGone(answer.envelope))
      return { state: 'unavailable', reason: `${row.platform}/${row.endpoint} answered that the post is gone` };
    return {
      state: 'missing',
      reason: `${row.platform}/${row.endpoint} answered without it (deleted, made private, or past the ${row.pages} page(s) read: newer posts push older ones down; more pages reach them)`,
    };
  }
  if (row.state === 'failed') {
    const last = archive.datasets.lastAttempt(source, row.platform, row.endpoint, hash);
    if (last?.errorType === 'RESOURCE_NOT_FOUND')
      return { state: 'unavailable', reason: `${row.platform}/${row.endpoint} answered not found (deleted or private)` };
    return { state: 'failed', reason: row.reason };
  }
  return { state: 'failed', reason: row.reason ?? `not read yet (${row.state}): run the rehydration again to continue` };
}

/** Settles what became of every item from the plan's inputs and the archive, marks the unavailable ones it holds, and reports. */
function settle(d: RecheckDeps, cat: CatalogueApi, m: Manifest, planId: string, createdAt: number, pages?: number): RehydrateReport {
  const { archive } = d;
  const source = sourceOf(planId);
  const { walks } = rehydrationWalks(m, pages, cat);
  const inputs = new Map(inputsOf(archive, planId).map((r) => [walkKey(r.platform, r.endpoint, r.params), r]));
  const walksOf = new Map<string, RehydrationWalk[]>();
  for (const w of walks)
    for (const k of w.keys) {
      const list = walksOf.get(k) ?? [];
      list.push(w);
      walksOf.set(k, list);
    }
  const now = d.clock.now();
  const rows = archive.rehydrations.items(planId);
  const out: Array<ItemRef & { state: RehydratedItemState; reason: string | null }> = [];
  for (const r of rows) {
    if (r.state === 'held') {
      out.push(r);
      continue;
    }
    const ref = { platform: r.platform, kind: r.kind, id: r.id };
    const key = itemKey(ref);
    let best: { state: RehydratedItemState; reason: string | null } | null = null;
    if (heldFresh(archive, cat, ref, createdAt, source)) best = { state: 'recollected', reason: null };
    else
      for (const w of walksOf.get(key) ?? []) {
        const o = outcomeOf(archive, cat, source, inputs.get(walkKey(w.platform, w.endpoint, w.params)));
        if (best === null || RANK[o.state] > RANK[best.state]) best = o;
      }
    best ??= { state: 'failed', reason: 'no call in the bundle can re-collect it (a bulk load kept none)' };
    // never deleted: an item this archive holds is marked unavailable, from the first time found missing
    if (best.state === 'unavailable') archive.datasets.markChecked(ref, now, true);
    out.push({ ...ref, ...best });
  }
  archive.rehydrations.settle(planId, out, now);
  const counts: Record<RehydratedItemState, number> = { pending: 0, recollected: 0, held: 0, unavailable: 0, missing: 0, failed: 0 };
  for (const r of out) counts[r.state]++;
  // the check: every key of the bundle looked up in the archive
  const absentKeys: string[] = [];
  let absent = 0;
  for (const i of m.items)
    if (!archive.getItem(i.platform, i.kind, i.id)) {
      absent++;
      if (absentKeys.length < LIST) absentKeys.push(itemKey(i));
    }
  const status = d.collect.get(planId);
  return {
    root: m.root_sha256,
    plan: status?.name ?? null,
    status,
    items: m.items.length,
    counts,
    notRecollected: out
      .filter((r) => r.state !== 'recollected' && r.state !== 'held')
      .slice(0, LIST)
      .map((r) => ({ key: itemKey(r), state: r.state, reason: r.reason })),
    verify: { ok: absent === 0, present: m.items.length - absent, absent, absentKeys },
  };
}
