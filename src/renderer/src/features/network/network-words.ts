/**
 * The network view's words for what it shows (docs/analysis.md "Networks"): the whole network,
 * the heaviest nodes shown, and, past the edge cap, the heaviest edges between them.
 */
import type { NetworkView } from '../../../../shared/contract-network';
import { fmtExact } from '../../lib/format';

export function networkStatsText(s: NetworkView['stats']): string {
  const parts = [
    `${fmtExact(s.nodes)} nodes and ${fmtExact(s.edges)} edges from ${fmtExact(s.itemsInNetwork)} of ${fmtExact(s.items)} items`,
  ];
  const trimmed = s.nodes > s.shownNodes;
  const capped = s.edgesAmongShown > s.shownEdges;
  if (trimmed && capped)
    parts.push(
      `showing the ${fmtExact(s.shownNodes)} largest nodes and the ${fmtExact(s.shownEdges)} heaviest of the ${fmtExact(s.edgesAmongShown)} edges between them (the GEXF and GraphML exports include every edge)`,
    );
  else if (trimmed) parts.push(`showing the ${fmtExact(s.shownNodes)} largest nodes and ${fmtExact(s.shownEdges)} edges between them`);
  else if (capped)
    parts.push(
      `showing the ${fmtExact(s.shownEdges)} heaviest of the ${fmtExact(s.edgesAmongShown)} edges (the GEXF and GraphML exports include every edge)`,
    );
  if (s.unresolvedReplies) parts.push(`${fmtExact(s.unresolvedReplies)} replies to items not in the archive`);
  return parts.join(' · ');
}

/** The heaviest edge of a view (a loop: a view's edges are too many to spread into Math.max). */
export function heaviestEdgeWeight(edges: NetworkView['edges']): number {
  let m = 1;
  for (const e of edges) if (e.weight > m) m = e.weight;
  return m;
}
