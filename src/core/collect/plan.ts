/**
 * A design → its plan (docs/collect.md "The plan"): the inputs read from the source (a list, a
 * saved set or query fanned out, or calls as another caller hands them), each mapped to its call,
 * priced as a whole (min, max, likely; held pages and free calls off), with the curves, the
 * networks' parts, the approval the ask-above rule needs for the plan as one spend, and the words
 * that say how the figures were made. Writes nothing (the service saves what `makePlan` returns).
 */
import { PLATFORMS } from '../../shared/api-types';
import type { CollectDesignParsed, CollectFigures, CollectInputInfo, CollectPlan } from '../../shared/contract-collect';
import { COLLECT_DO_WORDS } from '../../shared/contract-collect';
import { LoupeError } from '../../shared/errors';
import { aboveAsk } from '../../shared/spend-policy';
import type { ApiCore } from '../api';
import type { Archive } from '../archive';
import { TooManyLines } from '../resolve';
import { addTo, byNetwork, depthCurve, emptyFigures, topKCurve } from './curves';
import { Resolver, resolveCalls, resolveText, type Resolved } from './inputs';
import { applyFreeCalls, priceAll, type Priced } from './price';
import { resolveItems } from './sources';

export interface PlanDeps {
  api: ApiCore;
  archive: Archive;
  now: number;
  askAbove: number | null;
  freeCallsLeft: number;
}

export interface PlanMade {
  plan: CollectPlan;
  /** the inputs the plan collects, priced, in order */
  inputs: Priced[];
  quotes: Record<string, { min: number; max: number }>;
}

/** The most lines (or calls) one plan reads. */
export const MAX_LINES = 100_000;
const SAMPLE = 200;

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const invalid = (message: string) => new LoupeError('validation', message);

export function inputInfo(p: Priced, seq: number): CollectInputInfo {
  return {
    seq,
    line: p.c.line,
    label: p.c.label,
    platform: p.c.platform,
    endpoint: p.c.endpoint,
    params: p.c.params,
    pages: p.c.pages,
    rank: p.c.rank,
    state: 'waiting',
    reason: null,
    pagesDone: 0,
    credits: 0,
    items: 0,
    estimate: { creditsMin: p.creditsMin, creditsMax: p.creditsMax, creditsLikely: p.creditsLikely, heldPages: p.heldPages },
    feed: p.c.feed,
    marker: null,
  };
}

function resolve(deps: PlanDeps, design: CollectDesignParsed, held: ReadonlyMap<string, number | null>): Resolved {
  const { api, archive } = deps;
  const src = design.source;
  if (src.type === 'calls') return resolveCalls(api.catalogue, design, src.calls, held);
  if (!design.do)
    throw invalid(
      'Say what to collect for each input: posts of accounts (feed), profiles, comments of posts, posts, searches or hashtags.',
    );
  const platforms = [...new Set([...api.catalogue.list().map((e) => e.platform), ...PLATFORMS])];
  for (const n of design.networks)
    if (!api.catalogue.list(n).length)
      throw invalid(
        `"${n}" is not a network in the catalogue (networks: ${[...new Set(api.catalogue.list().map((e) => e.platform))].join(', ')}).`,
      );
  if ((design.do === 'search' || (design.do === 'hashtag' && src.type === 'text')) && design.networks.length === 0)
    throw invalid(
      `Choose the networks to ${design.do === 'search' ? 'search' : 'search the hashtags on'}: a search goes to each network chosen (e.g. micro_net, forum_net, pin_net).`,
    );
  const r = new Resolver(api.catalogue, design, design.do, platforms);
  let out: Resolved;
  if (src.type === 'text') {
    try {
      out = resolveText(r, src.text, src.column, held, MAX_LINES);
    } catch (e) {
      if (e instanceof TooManyLines) throw invalid(e.message);
      throw e;
    }
  } else {
    let query = src.type === 'query' ? src.query : undefined;
    if (src.type === 'set') {
      const set = archive.listResultSets().find((s) => s.id === src.id);
      if (!set) throw new LoupeError('not_found', `No saved set with id ${src.id}; see Library → Saved sets.`);
      query = set.query;
    }
    out = resolveItems(r, archive, design, query ?? {}, held);
  }
  for (const { reason, n } of r.leftOut.values()) out.warnings.push(`${fmt(n)} input(s) not collected on one network: ${reason}.`);
  return out;
}

function basisOf(design: CollectDesignParsed, inputs: Priced[], f: CollectFigures, quotes: number, freeLeft: number): string[] {
  const out: string[] = [];
  const hist = inputs.filter((p) => p.fromHistory).length;
  out.push(
    `Minimum: every planned page charged at the floor of its price; an empty or shorter list costs less (empty results are free). Maximum: every page at the ceiling (what the service holds).`,
  );
  out.push(
    hist > 0
      ? `Likely: ${fmt(hist)} of ${fmt(inputs.length)} input(s) priced from the archive's own history of the same endpoints (how many pages their lists had, what a page really cost); the rest at the floor.`
      : 'Likely: no history of these endpoints in the archive yet, so every page at the floor of its price.',
  );
  if (f.heldPages > 0)
    out.push(
      `${fmt(f.heldPages)} page(s) are already in the archive inside their cache window: free (worth up to ${fmt(f.heldCredits)} credits).`,
    );
  if (f.freeCalls > 0)
    out.push(
      `${fmt(f.freeCalls)} of the account's ${fmt(freeLeft)} introductory free call(s) cover the first requests priced 100 credits or less.`,
    );
  if (quotes > 0)
    out.push(
      `${fmt(quotes)} free price quote(s) (dry_run) asked for calls the catalogue cannot price (collect-until-N limits), one per call shape.`,
    );
  out.push(`Depth: ${design.pages} page(s) per input on list endpoints; one answer on the others.`);
  return out;
}

/** Reads, resolves and prices a design. `held`: the keys of the inputs a saved plan already has. */
export async function makePlan(
  deps: PlanDeps,
  design: CollectDesignParsed,
  o: {
    id?: string | null;
    held?: ReadonlyMap<string, number | null>;
    quotes?: Record<string, { min: number; max: number }>;
    quote?: boolean;
  } = {},
): Promise<PlanMade> {
  const { api, archive } = deps;
  await api.catalogue.load();
  const resolved = resolve(deps, design, o.held ?? new Map());
  const quotes = { ...(o.quotes ?? {}) };
  const quote =
    o.quote === false
      ? null
      : async (t: { platform: string; endpoint: string; params: Record<string, string> }) => {
          const q = await api.quote(t, { source: 'collect:quote' });
          return { min: q.credits_min, max: q.credits_max };
        };
  const { priced, quotesAsked, unquoted } = await priceAll(
    { archive, now: deps.now, quotes, quote, freeCallsLeft: deps.freeCallsLeft },
    resolved.candidates,
  );
  const groups = new Set(priced.map((p) => p.c.group).filter((g) => g !== undefined)).size;
  const inputs = design.topK ? priced.filter((p) => (p.c.group ?? 0) < (design.topK?.n ?? Infinity)) : priced;
  const belowTopK = design.topK ? Math.max(0, groups - design.topK.n) : 0;
  // the curves first: they take the free calls off each point themselves
  const depth = depthCurve(inputs, design.pages, deps.freeCallsLeft);
  const freeCalls = applyFreeCalls(inputs, deps.freeCallsLeft);
  const eta = (n: number) => api.pacer.eta(n, 'background');
  const figures = emptyFigures();
  for (const p of inputs) addTo(figures, p);
  figures.freeCalls = freeCalls;
  figures.etaMs = eta(figures.requests);
  const balance = api.balance();
  const askAbove = deps.askAbove;
  const needed = design.budget === null && aboveAsk(figures.creditsMax, askAbove);
  const warnings = [...resolved.warnings];
  if (unquoted > 0)
    warnings.push(`${fmt(unquoted)} call(s) with a collect-until-N limit could not be quoted; they are priced at one page's ceiling.`);
  if (design.budget !== null && design.budget < figures.creditsMin)
    warnings.push(
      `The budget of ${fmt(design.budget)} credits is below the plan's minimum (${fmt(figures.creditsMin)}): the run stops before a page the budget cannot hold; the inputs left are marked skipped and a later run continues them.`,
    );
  if (balance !== null && figures.creditsMax > balance)
    warnings.push(
      `The plan could cost up to ${fmt(figures.creditsMax)} credits, more than the balance of ${fmt(balance)}: Loupe never sends a page the balance cannot hold.`,
    );
  const words = design.do ? COLLECT_DO_WORDS[design.do].label.toLowerCase() : 'the calls';
  const plan: CollectPlan = {
    id: o.id ?? null,
    name: design.name,
    do: design.do ?? null,
    design: {
      ...design,
      source:
        design.source.type === 'text'
          ? { type: 'text', text: '', ...(design.source.column ? { column: design.source.column } : {}) }
          : design.source.type === 'calls'
            ? { type: 'calls', calls: [] }
            : design.source,
    },
    read: resolved.read,
    column: resolved.column,
    inputs: inputs.length,
    sample: inputs.slice(0, SAMPLE).map((p, i) => inputInfo(p, i + 1)),
    problems: resolved.problems,
    duplicates: resolved.duplicates,
    belowTopK,
    figures,
    byNetwork: byNetwork(inputs, eta),
    curves: { depth, topK: groups > 0 ? topKCurve(priced, design.topK?.n ?? null) : null },
    quotes: quotesAsked,
    basis: basisOf(design, inputs, figures, quotesAsked, deps.freeCallsLeft),
    warnings,
    approval: {
      needed,
      reason: needed
        ? `Collecting ${words} could cost up to ${fmt(figures.creditsMax)} credits, above your confirmation threshold of ${fmt(askAbove ?? 0)}.`
        : null,
      askAbove,
      balance,
    },
  };
  return { plan, inputs, quotes };
}
