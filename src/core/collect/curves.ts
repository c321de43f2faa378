/**
 * The plan's trade-off curves (docs/collect.md "Curves"): what the plan costs at another depth
 * (pages per input), and — for a set's fan-out — with only its top K by engagement; and its
 * figures by network, so leaving a network out reads at once. Computed from the priced inputs
 * (no request, no database): a point is a sum over inputs.
 */
import type { CollectCurvePoint, CollectFigures, CollectNetworkPart } from '../../shared/contract-collect';
import { FreeCalls, type Priced } from './price';

const DEPTHS = [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50, 75, 100];

/** An input's figures at depth `d` (its held pages and its list's known end still count). */
function atDepth(p: Priced, d: number): { min: number; max: number; likely: number; requests: number } {
  if (p.fixed || !p.c.ep.paginates) return { min: p.creditsMin, max: p.creditsMax, likely: p.creditsLikely, requests: p.requests };
  const held = Math.min(p.heldPages, d);
  const left = p.ended && p.heldPages <= d ? 0 : Math.max(0, d - held);
  let likelyPages = 0;
  if (left > 0) for (let k = held + 1; k <= d; k++) likelyPages += p.survival[k - 1] ?? 1;
  return {
    min: left * p.pp.min,
    max: left * p.pp.max,
    likely: Math.round(likelyPages * p.pp.likely),
    requests: Math.ceil(left / p.perRequest),
  };
}

/** The plan at other depths (the free calls left taken off each point as off the plan). */
export function depthCurve(priced: Priced[], depth: number, freeCallsLeft: number): CollectCurvePoint[] {
  const top = Math.min(100, Math.max(10, depth * 3));
  const xs = [...new Set([...DEPTHS.filter((x) => x <= top), depth])].sort((a, b) => a - b);
  return xs.map((x) => {
    const pt: CollectCurvePoint = { x, inputs: priced.length, creditsMin: 0, creditsLikely: 0, creditsMax: 0 };
    const free = freeCallsLeft > 0 ? new FreeCalls(freeCallsLeft) : null;
    for (const p of priced) {
      const f = atDepth(p, x);
      const off = free && !free.done() ? free.take(f.min, f.likely, f.requests) : f;
      pt.creditsMin += off.min;
      pt.creditsMax += f.max;
      pt.creditsLikely += off.likely;
    }
    return pt;
  });
}

/** Points at K = 1, 2, 5, 10, 20, 50… of the groups (posts, authors, hashtags) in rank order. */
export function topKCurve(priced: Priced[], chosen: number | null): CollectCurvePoint[] {
  const groups = priced.reduce((m, p) => Math.max(m, (p.c.group ?? -1) + 1), 0);
  if (groups === 0) return [];
  const xs = new Set<number>([groups]);
  for (let b = 1; b < groups; b *= 10) for (const m of [1, 2, 5]) if (b * m < groups) xs.add(b * m);
  if (chosen !== null && chosen < groups) xs.add(chosen);
  const sorted = [...xs].sort((a, b) => a - b);
  const byGroup = [...priced].sort((a, b) => (a.c.group ?? 0) - (b.c.group ?? 0));
  const out: CollectCurvePoint[] = [];
  const acc = { inputs: 0, creditsMin: 0, creditsLikely: 0, creditsMax: 0 };
  let i = 0;
  for (const k of sorted) {
    while (i < byGroup.length && (byGroup[i].c.group ?? 0) < k) {
      acc.inputs++;
      acc.creditsMin += byGroup[i].creditsMin;
      acc.creditsLikely += byGroup[i].creditsLikely;
      acc.creditsMax += byGroup[i].creditsMax;
      i++;
    }
    out.push({ x: k, ...acc });
  }
  return out;
}

export function emptyFigures(): CollectFigures {
  return { creditsMin: 0, creditsMax: 0, creditsLikely: 0, requests: 0, pages: 0, heldPages: 0, heldCredits: 0, freeCalls: 0, etaMs: 0 };
}

export function addTo(f: CollectFigures, p: Priced): void {
  f.creditsMin += p.creditsMin;
  f.creditsMax += p.creditsMax;
  f.creditsLikely += p.creditsLikely;
  f.requests += p.requests;
  f.pages += p.pages;
  f.heldPages += p.heldPages;
  f.heldCredits += p.heldCredits;
}

/** The plan by network and endpoint, most expensive first. */
export function byNetwork(priced: Priced[], eta: (requests: number) => number): CollectNetworkPart[] {
  const parts = new Map<string, CollectNetworkPart>();
  for (const p of priced) {
    const k = `${p.c.platform}/${p.c.endpoint}`;
    let part = parts.get(k);
    if (!part) {
      const price = p.c.ep.credits;
      part = {
        platform: p.c.platform,
        endpoint: p.c.endpoint,
        inputs: 0,
        price: typeof price === 'number' ? { min: price, max: price } : { min: price.min, max: price.max },
        ...emptyFigures(),
      };
      parts.set(k, part);
    }
    part.inputs++;
    addTo(part, p);
  }
  for (const part of parts.values()) part.etaMs = eta(part.requests);
  return [...parts.values()].sort((a, b) => b.creditsMax - a.creditsMax || a.platform.localeCompare(b.platform));
}
