/**
 * The data engine: turns (endpoint, validated params, world, sandbox time) into one response body,
 * page by page. Applies paging (keyset cursors), incremental sync (since / until / stop_at_id),
 * feed options (recent_days / exclude_pinned / trim), limit (cap and collect-until-N), max_pages
 * walks, scan_pages, judgments (labels / relevance / switch receipts) and computes the price of
 * every page read. Where a request starts (its cursor or page, checked) is position.ts's;
 * billing, caching and HTTP live in http.ts.
 *
 * Metered price of one page (spec silent on the exact rule; deterministic choice):
 *   min + 2 × units, capped at max, where units =
 *     Σ rows: requested non-default label families not yet labelled for anyone (row, family, brand)
 *   + rows × include tokens
 *   + rows judged when relevance=score|filter.
 * A page whose source returned no rows costs 0 ("empty results cost nothing"); a page emptied by
 * the caller's own filters (since / until / recent_days / exclude...) still costs a page.
 */
import type { EndpointDef, World, WorldRow } from '../types';
import type { ListItem, Pagination } from '../../shared/api-types';
import { createHash } from 'node:crypto';
import type { CursorCodec, CursorPos } from './cursor';
import { bindingHash } from './position';
import { fitItems } from './fit';
import { holdFor, type Plan } from './plan';

// the plan and fit=goal live in their own modules; importers keep reaching them through here
export { holdFor, isTrue, makePlan, pagingParams, RequestError, type Plan } from './plan';
export { estimateTokens, FIT_UNCERTAIN_HIGH, FIT_UNCERTAIN_LOW, fitItems, fitRole, STUB_FIELDS, type FitRole } from './fit';

export const UNIT_CREDITS = 2;

export const TOP_HEAD_PAGES = 2;

/** Does this call walk a `top` list that repeats past the popular head (photo network post/comments)? */
export function isTopRepeatWalk(def: EndpointDef, params: Record<string, string>): boolean {
  return def.topRepeats === true && def.paging !== null && (params.sort ?? 'top').toLowerCase() === 'top';
}

/**
 * The page sequence of a `top` walk: the first TOP_HEAD_PAGES pages are the most-liked rows in
 * order; every later page holds max(1, pageSize/4) rows not served yet and fills the rest with
 * rows already served on earlier pages of the walk (chosen deterministically), so walking `top`
 * to the end pays for mostly repeats. The walk ends when every row was served once.
 */
export function topWalkList(rows: WorldRow[], pageSize: number, seedKey: string): WorldRow[] {
  const headLen = TOP_HEAD_PAGES * pageSize;
  if (rows.length <= headLen) return rows;
  const out = rows.slice(0, headLen);
  const fresh = Math.max(1, Math.floor(pageSize / 4));
  let next = headLen;
  for (let page = TOP_HEAD_PAGES + 1; next < rows.length; page++) {
    const news = rows.slice(next, next + fresh);
    next += news.length;
    const served = out.length; // rows before this page (with repeats): pick distinct ids among them
    const seen = new Set<string>(news.map((r) => r.id));
    const reps: WorldRow[] = [];
    const want = pageSize - news.length;
    for (let k = 0; reps.length < want && k < want * 8; k++) {
      const h = createHash('sha256').update(`${seedKey}#${page}#${k}`).digest().readUInt32BE(0);
      const r = out[h % served];
      if (seen.has(r.id)) continue;
      seen.add(r.id);
      reps.push(r);
    }
    // New rows sit among the repeats, evenly spread.
    const pageRows: WorldRow[] = [...reps];
    news.forEach((r, j) => pageRows.splice(Math.min(pageRows.length, Math.floor(((j + 1) * pageSize) / (news.length + 1))), 0, r));
    out.push(...pageRows);
  }
  return out;
}

export interface EngineResult {
  notFound?: { reason?: string };
  data: Record<string, unknown>;
  pagination?: Pagination;
  unavailable: string[];
  warnings: string[];
  /** Credits of each page read (0 for a source-empty page). */
  pageCosts: number[];
  /** Rows returned in data.items (or 1/0 for single endpoints). */
  rows: number;
  /** (row|family|brand) keys judged for billable families: mark as labelled once delivered. */
  labelled: string[];
  /** fit=goal: the full (unstubbed) answer data, to store under data.held_back.recall_id. */
  recall?: { id: string; data: Record<string, unknown> };
}

export interface EngineEnv {
  world: World;
  codec: CursorCodec;
  now: number;
  /** Was (row, family, brand) already labelled for anyone? */
  isLabelled(k: string): boolean;
  /** For a max_pages walk under chaos: the 1-based page that fails (page_error), or null. */
  failPage: number | null;
  /** A fresh opaque recall id (fit=goal). */
  newRecallId?: () => string;
}

function labelKey(rowId: string, family: string, brand: string | undefined): string {
  return `${rowId}|${family}|${family === 'mention' ? (brand ?? '').toLowerCase() : ''}`;
}

/** Deterministic choice of pages the upstream returns empty (search feeds, page >= 2). */
function upstreamEmpty(def: EndpointDef, page: number): boolean {
  if (page < 2 || (def.feed !== 'search_posts' && def.feed !== 'search_comments')) return false;
  const h = createHash('sha256').update(`${def.platform}/${def.path}#${page}`).digest();
  return h[0] % 4 === 0;
}

function recordOf(item: ListItem): Record<string, unknown> {
  const k = Object.keys(item)[0];
  return item[k] as Record<string, unknown>;
}

function trimRecord(def: EndpointDef, rec: Record<string, unknown>): void {
  const content = rec.content as Record<string, unknown> | undefined;
  const flags = rec.flags as Record<string, unknown> | undefined;
  const ext = rec.ext as Record<string, unknown> | null | undefined;
  if (def.trimMedia && content) {
    content.media_urls = null;
    content.duration_seconds = null;
  }
  if (ext && typeof ext === 'object') delete ext.coauthors;
  if (flags) flags.pinned = null;
}

function probOf(labels: Record<string, Record<string, unknown>> | null, family: string, field: string): number | null {
  if (!labels) return null;
  const f = labels[family] as Record<string, unknown> | number | undefined;
  if (typeof f === 'number') return f;
  if (!f || typeof f !== 'object') return null;
  const v = f[field] ?? f.p;
  return typeof v === 'number' ? v : null;
}

export function runEngine(plan: Plan, startPos: CursorPos, env: EngineEnv): EngineResult {
  const { def } = plan;
  const q = { def, params: plan.worldParams, now: env.now };
  if (def.shape === 'single') {
    const r = env.world.single(q);
    if ('notFound' in r)
      return { notFound: { reason: r.reason }, data: {}, unavailable: [], warnings: [], pageCosts: [], rows: 0, labelled: [] };
    const key = def.singleKey ?? 'post';
    const units = r.value ? plan.includeTokens.length : 0;
    const cost = r.value === null ? 0 : Math.min(plan.maxPrice, plan.minPrice + (plan.metered ? UNIT_CREDITS * units : 0));
    return {
      data: { [key]: r.value, ...(r.extra ?? {}) },
      unavailable: r.unavailable,
      warnings: [...plan.warnings],
      pageCosts: [cost],
      rows: r.value ? 1 : 0,
      labelled: [],
    };
  }

  const feed = env.world.feed(q);
  if ('notFound' in feed)
    return { notFound: { reason: feed.reason }, data: {}, unavailable: [], warnings: [], pageCosts: [], rows: 0, labelled: [] };
  const pageSize = def.paging
    ? Math.max(
        1,
        Math.min(
          def.paging.pageSize,
          plan.params.count && /^\d+$/.test(plan.params.count) ? Number(plan.params.count) : def.paging.pageSize,
        ),
      )
    : feed.rows.length;
  // A `top` walk of a topRepeats endpoint repeats comments past the popular head: the page list is
  // positional (rows repeat, so a keyset position would be ambiguous).
  const positional = isTopRepeatWalk(def, plan.params);
  // aging (docs/sandbox-world.md): removed posts and private accounts' posts are not listed
  const live = env.world.available ? feed.rows.filter((r) => env.world.available?.(def.platform, r, env.now)) : feed.rows;
  const all = positional ? topWalkList(live, pageSize, `${def.platform}/${def.path}`) : live;
  const datedBoundaries = def.dateOrdered;

  const out: WorldRow[] = [];
  const pageCosts: number[] = [];
  const labelled = new Set<string>();
  const droppedLabels: string[] = [];
  const droppedRelevance: string[] = [];
  const labelsByRow = new Map<string, ReturnType<World['labels']>>();
  let pos = startPos;
  let ended = false; // boundary or end of list
  let stoppedAt: 'since' | 'known_id' | 'end' | null = null;
  let walkStopped: 'end' | 'max_pages' | 'page_error' = 'max_pages';
  const maxReads = plan.pages;
  let reads = 0;
  const cutoff = plan.recentDays !== null ? env.now - plan.recentDays * 86_400_000 : null;

  while (reads < maxReads) {
    if (env.failPage !== null && reads + 1 === env.failPage) {
      walkStopped = 'page_error';
      break;
    }
    reads++;
    // Locate the page.
    let start = pos.offset;
    if (pos.lastId !== null && !positional) {
      const i = all.findIndex((r) => r.id === pos.lastId);
      if (i >= 0) start = i + 1;
      else if (pos.lastAt !== null) {
        const { lastAt, lastId } = pos;
        const j = all.findIndex(
          (r) => !r.pinned && r.publishedAt !== null && (r.publishedAt < lastAt || (r.publishedAt === lastAt && r.id < lastId)),
        );
        start = j >= 0 ? j : all.length;
      }
    }
    start = Math.min(start, all.length);
    const emptyPage = def.paging !== null && !pos.emptyDone && start < all.length && upstreamEmpty(def, pos.page);
    const raw = emptyPage ? [] : all.slice(start, start + pageSize);
    const moreInSource = emptyPage || start + raw.length < all.length;

    // Boundaries (dated feeds): first non-pinned row matching stop_at_id or older than since / recent_days.
    let cut = raw.length;
    let boundary: 'since' | 'known_id' | 'recent' | null = null;
    for (let i = 0; i < raw.length; i++) {
      const r = raw[i];
      if (r.pinned) continue;
      if (plan.stopAtId !== null && (r.id === plan.stopAtId || (recordOf(r.item).url as string | null | undefined) === plan.stopAtId)) {
        cut = i;
        boundary = 'known_id';
        break;
      }
      if (datedBoundaries && r.publishedAt !== null) {
        if (plan.since !== null && r.publishedAt < plan.since) {
          cut = i;
          boundary = 'since';
          break;
        }
        if (cutoff !== null && r.publishedAt < cutoff) {
          cut = i;
          boundary = 'recent';
          break;
        }
      }
    }
    let rows = raw.slice(0, cut).map((r) => ({ ...r, item: structuredClone(r.item) }));
    if (env.world.atTime) for (const r of rows) env.world.atTime(r, env.now);
    // Per-row filters (pinned rows too; rows without a date are kept).
    rows = rows.filter((r) => {
      if (r.publishedAt === null) return true;
      if (plan.since !== null && r.publishedAt < plan.since) return false;
      if (plan.until !== null && r.publishedAt > plan.until) return false;
      if (cutoff !== null && r.publishedAt < cutoff) return false;
      return true;
    });
    if (plan.excludePinned && !plan.trim) rows = rows.filter((r) => !r.pinned);
    if (plan.trim) for (const r of rows) trimRecord(def, recordOf(r.item));

    // Judgments.
    let units = rows.length * plan.includeTokens.length;
    if (def.labels && !plan.judgmentsOff) {
      const kept: WorldRow[] = [];
      for (const r of rows) {
        const j = env.world.labels(r, def.labels, {
          families: plan.families,
          brand: plan.brand,
          brandDescription: plan.params.brand_description,
          offer: plan.params.offer,
          evidence: plan.evidence && plan.extraFamilies.length > 0,
        });
        labelsByRow.set(r.id, j);
        for (const f of plan.billableFamilies) {
          const k = labelKey(r.id, f, plan.brand);
          if (j.labels && !env.isLabelled(k) && !labelled.has(k)) {
            units++;
            labelled.add(k);
          }
        }
        const rec = recordOf(r.item);
        const computed = (rec.computed as Record<string, unknown> | undefined) ?? {};
        computed.labels = j.labels;
        if (plan.evidence && plan.extraFamilies.length > 0) computed.labels_evidence = j.evidence ?? null;
        rec.computed = computed;
        let drop = false;
        for (const x of plan.exclude) {
          const p = x === 'engagement_bait' ? probOf(j.labels, 'quality', 'engagement_bait') : probOf(j.labels, x, 'p');
          if (p !== null && p >= 0.8) drop = true;
        }
        if (drop) droppedLabels.push(r.id);
        else kept.push(r);
      }
      rows = kept;
    }
    if (def.relevance && !plan.judgmentsOff) {
      const kept: WorldRow[] = [];
      for (const r of rows) {
        const rel = env.world.relevance(r, plan.topic);
        const rec = recordOf(r.item);
        rec.computed = { ...((rec.computed as Record<string, unknown> | undefined) ?? {}), relevance: rel };
        if (plan.relevanceMode !== 'default') units++;
        if (plan.relevanceMode === 'filter' && rel !== null && rel.p < plan.threshold) droppedRelevance.push(r.id);
        else kept.push(r);
      }
      rows = kept;
    }

    const cost = raw.length === 0 ? 0 : plan.metered ? Math.min(plan.maxPrice, plan.minPrice + UNIT_CREDITS * units) : plan.minPrice;
    pageCosts.push(cost);
    if (plan.cap !== null) rows = rows.slice(0, plan.cap);
    out.push(...rows);

    // Next position: after the last raw row of the page (a cap skips the whole page).
    const last = raw.length > 0 ? raw[raw.length - 1] : null;
    pos = last
      ? { lastId: last.id, lastAt: last.pinned ? pos.lastAt : last.publishedAt, offset: start + raw.length, page: pos.page + 1 }
      : { ...pos, page: pos.page + 1, emptyDone: emptyPage ? true : pos.emptyDone };
    if (emptyPage) pos = { ...pos, offset: start };
    if (boundary !== null) {
      ended = true;
      stoppedAt = boundary === 'recent' ? null : boundary;
      walkStopped = 'end';
      break;
    }
    if (!moreInSource || !def.paging) {
      ended = true;
      stoppedAt = 'end';
      walkStopped = 'end';
      break;
    }
    if (plan.collect !== null && out.length >= plan.collect) break;
  }

  let items = out;
  if (plan.collect !== null) items = items.slice(0, plan.collect);
  if (plan.scanPages > 1) {
    const seen = new Set<string>();
    items = items.filter((r) => (seen.has(r.id) ? false : (seen.add(r.id), true)));
    if (plan.params.sort === 'recent') items.sort((a, b) => (b.publishedAt ?? 0) - (a.publishedAt ?? 0));
    else
      items.sort(
        (a, b) =>
          Number((recordOf(b.item).engagement as { likes?: number } | undefined)?.likes ?? 0) -
          Number((recordOf(a.item).engagement as { likes?: number } | undefined)?.likes ?? 0),
      );
  }

  const data: Record<string, unknown> = {
    items: items.map((r) => r.item),
    total: items.length,
    truncated: !ended,
    ext: { ...(feed.ext ?? {}) },
  };
  const dropped = droppedLabels.length + droppedRelevance.length;
  if (dropped > 0) data.dropped = dropped;
  if (def.labels && !plan.judgmentsOff) {
    const billed = plan.billableFamilies.filter((f) => [...labelled].some((k) => k.split('|')[1] === f));
    data.labels = {
      mode: plan.extraFamilies.length > 0 ? 'requested' : 'default',
      judged: plan.families,
      billed,
      status: plan.warnings.includes('label_mention_needs_brand') && plan.extraFamilies.length === 0 ? 'skipped' : 'complete',
      pending: null,
      ...(plan.exclude.length > 0 ? { dropped_ids: droppedLabels } : {}),
      ...(plan.warnings.length > 0 ? { warnings: [...plan.warnings] } : {}),
    };
  }
  if (def.relevance && !plan.judgmentsOff) {
    data.relevance = {
      origin: plan.relevanceMode,
      status: 'complete',
      pending: null,
      ...(plan.relevanceMode === 'filter' ? { dropped_ids: droppedRelevance, threshold: plan.threshold } : {}),
    };
  }
  if (plan.maxPages > 1 || plan.params.max_pages !== undefined) data.walk = { stopped: walkStopped };
  if (plan.params.scan_pages !== undefined)
    data.scan = { pages_read: pageCosts.length, pages_billed: pageCosts.filter((c) => c > 0).length, thread_ended: ended };
  if (plan.switchFrom) data.switch_receipts = env.world.switchReceipts(items, plan.switchFrom);
  if (plan.includeTokens.includes('audio')) {
    const total = pageCosts.reduce((a, b) => a + b, 0);
    data.hydration = { credits_held: holdFor(plan), credits_kept: total, seconds: Math.round(items.length * 0.4 * 10) / 10 };
  }

  let recall: EngineResult['recall'];
  if (plan.fit) {
    const full = structuredClone(data);
    const f = fitItems(items, plan.fit, env.world);
    data.items = f.items;
    const recallId = env.newRecallId
      ? env.newRecallId()
      : `rcl_${createHash('sha256').update(JSON.stringify(full)).digest('hex').slice(0, 32)}`;
    data.held_back = { ids: f.heldBack, recall_id: recallId };
    recall = { id: recallId, data: full };
  }

  let pagination: Pagination | undefined;
  if (def.paging) {
    const sentBoundary = plan.params.since !== undefined || plan.params.stop_at_id !== undefined;
    const nextCursor = ended ? null : env.codec.encode(def.platform, def.path, bindingHash(def, plan.params), pos, env.now);
    pagination = { next_cursor: nextCursor, has_more: !ended, page_size: items.length };
    if (sentBoundary) pagination.stopped_at = stoppedAt;
  }
  return {
    data,
    pagination,
    unavailable: feed.unavailable,
    warnings: [...plan.warnings],
    pageCosts,
    rows: items.length,
    labelled: [...labelled],
    ...(recall ? { recall } : {}),
  };
}

/** dry_run=1 answer: data.dry_run, or data.estimate on label-capable endpoints. */
export function dryRunData(plan: Plan, env: { world: World; now: number; isLabelled(k: string): boolean }): Record<string, unknown> {
  const { def } = plan;
  const base = plan.minPrice * plan.pages;
  if (!def.labels) return { dry_run: { credits_min: base, credits_max: plan.maxPrice * plan.pages } };
  const pageSize = def.paging?.pageSize ?? def.listSize ?? 20;
  const rowsExpected = pageSize * plan.pages;
  let rowsCached = 0;
  if (plan.billableFamilies.length > 0) {
    const feed = env.world.feed({ def, params: plan.worldParams, now: env.now });
    if (!('notFound' in feed))
      rowsCached = feed.rows
        .slice(0, rowsExpected)
        .filter((r) => plan.billableFamilies.every((f) => env.isLabelled(labelKey(r.id, f, plan.brand)))).length;
  }
  const labelMax = plan.billableFamilies.length > 0 ? (plan.maxPrice - plan.minPrice) * plan.pages : 0;
  return {
    estimate: {
      rows_expected: rowsExpected,
      rows_cached: rowsCached,
      label_credits_min: 0,
      label_credits_max: labelMax,
      base_credits: base,
    },
  };
}

export { labelKey };
