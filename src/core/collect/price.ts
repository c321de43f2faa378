/**
 * Pricing a plan as a whole (docs/collect.md "Pricing"), before anything is spent:
 * - per page: the catalogue's price (floor and ceiling; × `scan_pages`); a call with a
 *   collect-until-N `limit` is priced by the service's free quote (dry_run), one per call shape,
 *   kept with the plan and reused;
 * - per input: its pages (the depth on lists; one answer otherwise; `max_pages` bundles up to 5 a
 *   request), less the pages the archive holds inside their cache window — the exact calls the run
 *   will send, followed page to page through the stored answers' cursors (free; a held list that
 *   ended costs nothing more);
 * - likely: from the archive's own history of the endpoint — how many pages its lists really had
 *   (walks that ended, and walks stopped earlier, as a survival table) and what a page really cost
 *   (the ledger's charges for the same billing parameters) — else every page at the floor;
 * - the account's introductory free calls left cover the first requests priced ≤ 100.
 */
import { NATIVE_PAGING_PARAMS, type Envelope } from '../../shared/api-types';
import type { Archive } from '../archive';
import { canonicalParams, paramsHash } from '../api';
import { priceOf } from '../api';
import { namesOf } from './targets';
import type { Candidate } from './inputs';

export interface PriceDeps {
  archive: Archive;
  now: number;
  /** quotes per call shape (kept with the plan, reused) */
  quotes: Record<string, { min: number; max: number }>;
  /** the service's free quote (dry_run=1), for shapes the catalogue cannot price; null: none asked */
  quote: ((t: { platform: string; endpoint: string; params: Record<string, string> }) => Promise<{ min: number; max: number }>) | null;
  /** introductory free calls the account has left */
  freeCallsLeft: number;
}

export interface Priced {
  c: Candidate;
  creditsMin: number;
  creditsMax: number;
  creditsLikely: number;
  requests: number;
  pages: number;
  heldPages: number;
  heldCredits: number;
  /** the held pages reach the list's end: nothing more to pay */
  ended: boolean;
  /** price of one page (floor, ceiling, likely) */
  pp: { min: number; max: number; likely: number };
  /** pages one request reads (max_pages) */
  perRequest: number;
  /** P(the list has at least k pages), k = 1.. (index k − 1); empty: every page exists */
  survival: number[];
  /** the price does not depend on the depth (one answer, or a collect-until-N call) */
  fixed: boolean;
  /** priced by the service's quote */
  quoted: boolean;
  /** the likely figure came from the archive's history */
  fromHistory: boolean;
  /** its first request's ceiling (what the service holds) */
  firstHold: number;
}

const BILLING = ['label', 'relevance', 'include', 'exclude', 'scan_pages', 'brand', 'fit'];
const MIN_WALKS = 5;
const MIN_CHARGES = 3;

const intOf = (v: string | undefined, d: number): number => {
  const n = v === undefined ? NaN : Number.parseInt(v, 10);
  return Number.isFinite(n) && n >= 1 ? n : d;
};

function billingSig(params: Record<string, string>): string {
  let out = '';
  for (const k of BILLING) if (params[k] !== undefined) out += `${k}=${params[k]}&`;
  return out;
}

/** What the archive's history says of an endpoint: a page's real price, and its lists' lengths. */
class History {
  private perPageBy = new Map<string, Map<string, number | null>>();
  private survivalBy = new Map<string, number[] | null>();
  constructor(private readonly archive: Archive) {}

  perPage(platform: string, endpoint: string, params: Record<string, string>): number | null {
    const sig = billingSig(params);
    const ek = `${platform}/${endpoint}`;
    let bySig = this.perPageBy.get(ek);
    if (!bySig) this.perPageBy.set(ek, (bySig = new Map()));
    const known = bySig.get(sig);
    if (known !== undefined) return known;
    const rows = this.archive.collect.pageCharges(platform, endpoint).map((r) => {
      let p: Record<string, string> = {};
      try {
        p = JSON.parse(r.params) as Record<string, string>;
      } catch {
        /* unreadable params: counted with every signature */
      }
      return { p, credits: r.credits };
    });
    const single = (x: { p: Record<string, string> }) => intOf(x.p.max_pages, 1) === 1;
    const same = rows.filter((x) => billingSig(x.p) === sig);
    const use = [same.filter(single), same, rows.filter(single), rows].find((a) => a.length >= MIN_CHARGES) ?? [];
    const v = use.length
      ? use.reduce((s, x) => s + x.credits / (intOf(x.p.scan_pages, 1) * intOf(x.p.max_pages, 1)), 0) / use.length
      : null;
    const perPage = v === null ? null : v * intOf(params.scan_pages, 1);
    bySig.set(sig, perPage);
    return perPage;
  }

  /** Kaplan-Meier over the endpoint's walks: those that reached the end, and those stopped earlier. */
  survival(platform: string, endpoint: string): number[] | null {
    const k = `${platform}/${endpoint}`;
    if (this.survivalBy.has(k)) return this.survivalBy.get(k) as number[] | null;
    const walks = this.archive.collect.walkLengths(platform, endpoint);
    let out: number[] | null = null;
    if (walks.length >= MIN_WALKS) {
      out = [1];
      for (let page = 1; page < 100; page++) {
        const atRisk = walks.filter((w) => w.pages >= page).length;
        const ended = walks.filter((w) => w.ended && w.pages === page).length;
        out.push(atRisk === 0 ? out[page - 1] : out[page - 1] * (1 - ended / atRisk));
      }
    }
    this.survivalBy.set(k, out);
    return out;
  }
}

/** The pages of an input the archive already holds inside their cache window, as the run will ask for them. */
export function heldChain(
  archive: Archive,
  c: Candidate,
  perRequest: number,
  now: number,
  fresh?: ReadonlySet<string>,
): { held: number; ended: boolean } {
  const ttl = c.ep.cache_ttl_seconds;
  if (!(ttl > 0) || fresh?.size === 0) return { held: 0, ended: false };
  const since = now - ttl * 1000;
  let done = 0;
  let params = c.params;
  while (done < c.pages) {
    const want = perRequest > 1 ? Math.min(perRequest, c.pages - done) : 1;
    const q = want > 1 && c.params.max_pages === undefined ? { ...params, max_pages: String(want) } : params;
    const hash = paramsHash(`${c.platform}/${c.endpoint}?${canonicalParams(q)}`);
    // most calls of a plan are not held: the endpoint's fresh answers, read once, say so without a query each
    if (fresh && !fresh.has(hash)) break;
    const hit = archive.findFreshResponse(c.platform, c.endpoint, hash, since);
    if (!hit) break;
    done += c.params.max_pages !== undefined ? intOf(c.params.max_pages, 1) : want;
    const pg = (hit.envelope as Envelope).pagination;
    if (!pg || pg.has_more !== true || !pg.next_cursor) return { held: Math.min(done, c.pages), ended: true };
    params = { ...c.params, cursor: pg.next_cursor };
  }
  return { held: Math.min(done, c.pages), ended: false };
}

/** The shape of a call for quotes: the endpoint and the parameters that do not name the input. */
export function shapeKeys(cs: Candidate[]): Map<Candidate, string> {
  const byGroup = new Map<string, Candidate[]>();
  for (const c of cs) {
    const g = `${c.platform}/${c.endpoint}?${Object.keys(c.params).sort().join(',')}`;
    const a = byGroup.get(g) ?? [];
    a.push(c);
    byGroup.set(g, a);
  }
  const out = new Map<Candidate, string>();
  for (const [g, list] of byGroup) {
    const varying = new Set<string>(list.flatMap((c) => c.idParams ?? []));
    for (const name of Object.keys(list[0].params)) if (list.some((c) => c.params[name] !== list[0].params[name])) varying.add(name);
    for (const c of list) {
      const fixed = Object.fromEntries(
        Object.entries(c.params).filter(([k]) => !varying.has(k) && k !== 'cursor' && !NATIVE_PAGING_PARAMS.includes(k as never)),
      );
      out.set(c, `${g.split('?')[0]}?${canonicalParams(fixed)}|${[...varying].sort().join(',')}`);
    }
  }
  return out;
}

const QUOTE_LIMIT = 40;

/** Prices every input; asks the service's free quote for at most one call of each shape it needs. */
export async function priceAll(deps: PriceDeps, cs: Candidate[]): Promise<{ priced: Priced[]; quotesAsked: number; unquoted: number }> {
  const history = new History(deps.archive);
  const needQuote = cs.filter((c) => c.params.limit !== undefined && c.ep.paginates);
  const shapes = shapeKeys(needQuote);
  let quotesAsked = 0;
  let unquoted = 0;
  for (const c of needQuote) {
    const k = shapes.get(c) as string;
    if (deps.quotes[k] || !deps.quote) continue;
    if (quotesAsked >= QUOTE_LIMIT) {
      unquoted++;
      continue;
    }
    quotesAsked++;
    try {
      deps.quotes[k] = await deps.quote({ platform: c.platform, endpoint: c.endpoint, params: c.params });
    } catch {
      unquoted++;
    }
  }
  const fresh = new Map<string, Set<string>>();
  const freshOf = (c: Candidate): Set<string> => {
    const k = `${c.platform}/${c.endpoint}`;
    let f = fresh.get(k);
    if (!f)
      fresh.set(
        k,
        (f =
          c.ep.cache_ttl_seconds > 0
            ? deps.archive.collect.freshHashes(c.platform, c.endpoint, deps.now - c.ep.cache_ttl_seconds * 1000)
            : new Set()),
      );
    return f;
  };
  const priced = cs.map((c) => priceOne(deps, history, c, shapes.get(c), freshOf(c)));
  return { priced, quotesAsked, unquoted };
}

function priceOne(deps: PriceDeps, history: History, c: Candidate, shape: string | undefined, fresh: ReadonlySet<string>): Priced {
  const price = priceOf(c.ep);
  const scan = intOf(c.params.scan_pages, 1);
  const fixedMp = c.params.max_pages !== undefined ? intOf(c.params.max_pages, 1) : null;
  const perRequest = fixedMp ?? (namesOf(c.ep).has('max_pages') ? 5 : 1);
  // a quote says how many pages a collect-until-N call walks: its range over the catalogue's (a label
  // estimate on label-capable endpoints gives the base price only: its floor tells the pages)
  const q0 = shape ? deps.quotes[shape] : undefined;
  const quotePages = q0 ? Math.max(1, Math.round(q0.max / (price.max * scan)), Math.round(q0.min / Math.max(1, price.min * scan))) : 1;
  const quoted = !!q0 && quotePages > 1;
  const q = q0 ? { min: Math.max(q0.min, quotePages * price.min * scan), max: Math.max(q0.max, quotePages * price.max * scan) } : undefined;
  const fromHist = history.perPage(c.platform, c.endpoint, c.params);
  const pp = {
    min: price.min * scan,
    max: price.max * scan,
    likely: Math.min(price.max * scan, Math.max(price.min * scan, fromHist ?? price.min * scan)),
  };
  const survival = history.survival(c.platform, c.endpoint) ?? [];
  const { held, ended } = heldChain(deps.archive, quoted ? { ...c, pages: 1 } : c, quoted ? 1 : perRequest, deps.now, fresh);
  if (quoted || c.pages === 1) {
    const one = quoted && q ? { min: q.min, max: q.max, likely: q.min } : pp;
    const pages = fixedMp ?? 1;
    const free = held > 0;
    return {
      c,
      creditsMin: free ? 0 : one.min * (quoted ? 1 : pages),
      creditsMax: free ? 0 : one.max * (quoted ? 1 : pages),
      creditsLikely: free ? 0 : one.likely * (quoted ? 1 : pages),
      requests: free ? 0 : 1,
      pages: free ? 0 : pages,
      heldPages: held,
      heldCredits: free ? one.max * (quoted ? 1 : pages) : 0,
      ended: free,
      pp: one,
      perRequest,
      survival,
      fixed: quoted || !c.ep.paginates,
      quoted,
      fromHistory: fromHist !== null,
      firstHold: quoted && q ? q.max : pp.max * pages,
    };
  }
  const left = ended ? 0 : Math.max(0, c.pages - held);
  let likelyPages = 0;
  for (let k = held + 1; k <= c.pages && !ended; k++) likelyPages += survival[k - 1] ?? 1;
  const want = fixedMp ? 1 : Math.min(perRequest, c.pages);
  return {
    c,
    creditsMin: left * pp.min,
    creditsMax: left * pp.max,
    creditsLikely: Math.round(likelyPages * pp.likely),
    requests: Math.ceil(left / perRequest),
    pages: left,
    heldPages: held,
    heldCredits: held * pp.max,
    ended,
    pp,
    perRequest,
    survival,
    fixed: false,
    quoted: false,
    fromHistory: fromHist !== null || survival.length > 0,
    firstHold: pp.max * (fixedMp ?? want),
  };
}

/**
 * The introductory free calls left cover the first requests "priced at 100 credits or less" (spec
 * Limits). Whether that is the listed price or what the call is charged the spec does not say (the
 * sandbox reads the charge): the minimum counts a request whose floor is ≤ 100, the likely figure
 * one whose likely charge is — what they would have cost comes off those two, never off the
 * maximum. Returns the free calls the likely figure expects to use.
 */
export function applyFreeCalls(priced: Array<Pick<Priced, 'creditsMin' | 'creditsLikely' | 'requests'>>, left: number): number {
  const free = new FreeCalls(left);
  for (const p of priced) {
    if (free.done()) break;
    const f = free.take(p.creditsMin, p.creditsLikely, p.requests);
    p.creditsMin = f.min;
    p.creditsLikely = f.likely;
  }
  return free.usedLikely;
}

/** The free calls left, taken off requests one input at a time, in order (min and likely apart). */
export class FreeCalls {
  usedMin = 0;
  usedLikely = 0;
  constructor(readonly left: number) {}

  done(): boolean {
    return this.usedMin >= this.left && this.usedLikely >= this.left;
  }

  /** An input's min and likely with the free calls it takes off (requests priced ≤ 100 each). */
  take(min: number, likely: number, requests: number): { min: number; likely: number } {
    const off = (value: number, used: number): [number, number] => {
      if (used >= this.left || requests === 0 || value === 0) return [value, 0];
      const perRequest = value / requests;
      if (perRequest > 100) return [value, 0];
      const n = Math.min(this.left - used, requests);
      return [Math.max(0, Math.round(value - n * perRequest)), n];
    };
    const [m, nm] = off(min, this.usedMin);
    const [l, nl] = off(likely, this.usedLikely);
    this.usedMin += nm;
    this.usedLikely += nl;
    return { min: m, likely: l };
  }
}
