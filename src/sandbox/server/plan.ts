/**
 * A sandbox request parsed once into what the engine and billing need (`makePlan`), the hold it
 * must take (`holdFor`), and the request errors both raise. Split from engine.ts.
 */
import type { EndpointDef } from '../types';
import { COMMENT_LABELS, DEFAULT_COMMENT_LABELS, DEFAULT_POST_LABELS, POST_LABELS } from '../../shared/api-types';

export class RequestError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly reason?: string,
  ) {
    super(message);
  }
}

export function isTrue(v: string | undefined): boolean {
  return v !== undefined && /^(1|true|yes|on)$/i.test(v);
}

export function pagingParams(def: EndpointDef): string[] {
  if (!def.paging) return [];
  const s = new Set(['cursor', def.paging.param]);
  if (def.paging.alt) s.add(def.paging.alt);
  return [...s];
}

function parseDate(v: string, name: string, endOfDay: boolean): number {
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) {
    const t = Date.parse(`${v}T00:00:00Z`);
    if (Number.isNaN(t)) throw new RequestError(400, 'INVALID_REQUEST', `\`${name}\` is not a valid date.`);
    return endOfDay ? t + 86_400_000 - 1 : t;
  }
  const t = Date.parse(v);
  if (Number.isNaN(t) || !/^\d{4}-\d{2}-\d{2}T/.test(v))
    throw new RequestError(400, 'INVALID_REQUEST', `\`${name}\` must be YYYY-MM-DD or an ISO 8601 timestamp.`);
  return t;
}

function intIn(params: Record<string, string>, name: string, min: number, max: number, def: number): number {
  const v = params[name];
  if (v === undefined || v === '') return def;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max)
    throw new RequestError(400, 'INVALID_REQUEST', `\`${name}\` must be an integer from ${min} to ${max}.`);
  return Number(v);
}

function csv(v: string | undefined): string[] {
  return v
    ? v
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .filter(Boolean)
    : [];
}

/** Everything about a request that the engine and billing need, parsed once. */
export interface Plan {
  def: EndpointDef;
  params: Record<string, string>;
  /** Params passed to the world (paging params removed). */
  worldParams: Record<string, string>;
  dryRun: boolean;
  /** Pages this call may read (max_pages, scan_pages or collect-until-N); the hold multiplier. */
  pages: number;
  maxPages: number;
  scanPages: number;
  collect: number | null;
  cap: number | null;
  since: number | null;
  until: number | null;
  stopAtId: string | null;
  recentDays: number | null;
  excludePinned: boolean;
  trim: boolean;
  includeTokens: string[];
  judgmentsOff: boolean;
  families: string[];
  extraFamilies: string[];
  billableFamilies: string[];
  warnings: string[];
  exclude: string[];
  brand: string | undefined;
  evidence: boolean;
  relevanceMode: 'default' | 'score' | 'filter';
  threshold: number;
  topic: string;
  switchFrom: string | undefined;
  /** fit=goal: stub rows not needed for `goal` (free; never changes the price). */
  fit: { goal: string; tokens: number | null } | null;
  minPrice: number;
  maxPrice: number;
  metered: boolean;
}

export function makePlan(def: EndpointDef, params: Record<string, string>): Plan {
  const metered = typeof def.credits !== 'number';
  const minPrice = typeof def.credits === 'number' ? def.credits : def.credits.min;
  const maxPrice = typeof def.credits === 'number' ? def.credits : def.credits.max;
  const maxPages = def.acceptsMaxPages ? intIn(params, 'max_pages', 1, 5, 1) : 1;
  const scanPages = params.scan_pages !== undefined ? intIn(params, 'scan_pages', 1, 3, 1) : 1;
  let collect: number | null = null;
  let cap: number | null = null;
  if (def.limit && params.limit !== undefined) {
    const n = intIn(params, 'limit', 1, def.limit.max, def.limit.max);
    if (def.limit.kind === 'collect') collect = n;
    else cap = n;
  }
  const pageSize = def.paging?.pageSize ?? def.listSize ?? 20;
  const collectPages = collect !== null && def.paging ? Math.max(1, Math.ceil(collect / pageSize)) : 1;
  const pages = Math.max(maxPages, scanPages, collectPages);

  const worldParams: Record<string, string> = {};
  const paging = new Set(pagingParams(def));
  for (const [k, v] of Object.entries(params)) if (!paging.has(k) && k !== 'dry_run') worldParams[k] = v;

  const warnings: string[] = [];
  let families: string[] = [];
  let extraFamilies: string[] = [];
  const labelCsv = csv(params.label);
  const judgmentsOff = params.judgments?.toLowerCase() === 'off' || labelCsv.includes('none');
  if (def.labels && !judgmentsOff) {
    const known: readonly string[] = def.labels === 'post' ? POST_LABELS : COMMENT_LABELS;
    const defaults: readonly string[] = def.labels === 'post' ? DEFAULT_POST_LABELS : DEFAULT_COMMENT_LABELS;
    for (const l of labelCsv)
      if (!known.includes(l)) throw new RequestError(400, 'INVALID_REQUEST', `Unknown label '${l}'. Allowed: ${known.join(', ')}.`);
    extraFamilies = labelCsv.filter((l) => !defaults.includes(l));
    if (extraFamilies.includes('mention') && !params.brand) {
      extraFamilies = extraFamilies.filter((l) => l !== 'mention');
      warnings.push('label_mention_needs_brand');
    }
    families = [...new Set([...defaults, ...labelCsv.filter((l) => l !== 'mention' || params.brand)])];
  }
  const exclude = csv(params.exclude);
  for (const x of exclude) {
    const needs = def.labels === 'post' ? (x === 'engagement_bait' ? 'quality' : null) : x === 'spam' || x === 'low_quality' ? x : null;
    if (!def.labels || needs === null) throw new RequestError(400, 'INVALID_REQUEST', `exclude=${x} is not accepted on this endpoint.`);
    if (!labelCsv.includes(needs)) throw new RequestError(400, 'INVALID_REQUEST', `exclude=${x} needs label=${needs}.`);
  }
  const rel = params.relevance?.toLowerCase();
  if (rel !== undefined && rel !== 'score' && rel !== 'filter')
    throw new RequestError(400, 'INVALID_REQUEST', '`relevance` must be score or filter.');
  let threshold = 0.5;
  if (params.relevance_threshold !== undefined) {
    threshold = Number(params.relevance_threshold);
    if (!(threshold >= 0 && threshold <= 1)) throw new RequestError(400, 'INVALID_REQUEST', '`relevance_threshold` must be within 0..1.');
  }
  const recentDays = params.recent_days !== undefined ? intIn(params, 'recent_days', 1, 3650, 1) : null;
  // fit=goal (the registry validates too; repeated here so every registry gets the same rules).
  let fit: Plan['fit'] = null;
  if (params.fit !== undefined) {
    if (params.fit !== 'goal') throw new RequestError(400, 'INVALID_REQUEST', "`fit` accepts only 'goal'.");
    const goal = (params.goal ?? '').trim();
    if (!goal)
      throw new RequestError(400, 'INVALID_REQUEST', "Parameter 'fit=goal' requires 'goal' (what the rows are for, up to 300 characters).");
    if (goal.length > 300) throw new RequestError(400, 'INVALID_REQUEST', "'goal' is limited to 300 characters.");
    fit = { goal, tokens: params.fit_tokens !== undefined ? intIn(params, 'fit_tokens', 1, 1_000_000, 1) : null };
  } else if (params.fit_tokens !== undefined) {
    throw new RequestError(400, 'INVALID_REQUEST', "Parameter 'fit_tokens' is only accepted with 'fit=goal'.");
  }

  return {
    def,
    params,
    worldParams,
    dryRun: params.dry_run === '1' || isTrue(params.dry_run),
    pages,
    maxPages,
    scanPages,
    collect,
    cap,
    since: params.since ? parseDate(params.since, 'since', false) : null,
    until: params.until ? parseDate(params.until, 'until', true) : null,
    stopAtId: params.stop_at_id || null,
    recentDays,
    excludePinned: isTrue(params.exclude_pinned),
    trim: isTrue(params.trim),
    includeTokens: csv(params.include),
    judgmentsOff,
    families,
    extraFamilies,
    billableFamilies: metered ? extraFamilies : [],
    warnings,
    exclude,
    brand: params.brand,
    evidence: params.label_evidence === '1' || isTrue(params.label_evidence),
    relevanceMode: rel === 'score' || rel === 'filter' ? rel : 'default',
    threshold,
    topic: params.relevant_to || params.query || params.hashtag || '',
    switchFrom: params.switch_from || undefined,
    fit,
    minPrice,
    maxPrice,
    metered,
  };
}

/** The credits this call must hold: listed max (metered top) × pages it may read. */
export function holdFor(plan: Plan): number {
  return plan.maxPrice * plan.pages;
}

/** Pages of a `top` walk that are the popular head (no repeats); later pages mostly repeat. */
