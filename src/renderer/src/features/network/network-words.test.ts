import { describe, expect, it } from 'vitest';
import type { NetworkView } from '../../../../shared/contract-network';
import { heaviestEdgeWeight, networkStatsText } from './network-words';

const stats = (s: Partial<NetworkView['stats']>): NetworkView['stats'] => ({
  items: 1_000_000,
  itemsInNetwork: 844_720,
  nodes: 20_000,
  edges: 2_668_673,
  shownNodes: 2_000,
  shownEdges: 120_000,
  edgesAmongShown: 411_120,
  edgeCap: 120_000,
  unresolvedReplies: 0,
  ...s,
});

describe('the network view in words', () => {
  it('past the edge cap: the heaviest edges of how many, and that the exports keep every edge', () => {
    expect(networkStatsText(stats({}))).toBe(
      '20,000 nodes and 2,668,673 edges from 844,720 of 1,000,000 items · showing the 2,000 largest nodes and the 120,000 heaviest of the 411,120 edges between them (the GEXF and GraphML exports include every edge)',
    );
    expect(networkStatsText(stats({ nodes: 2_000, edges: 411_120 }))).toBe(
      '2,000 nodes and 411,120 edges from 844,720 of 1,000,000 items · showing the 120,000 heaviest of the 411,120 edges (the GEXF and GraphML exports include every edge)',
    );
  });

  it('under the cap: as before', () => {
    expect(networkStatsText(stats({ shownEdges: 113_686, edgesAmongShown: 113_686 }))).toBe(
      '20,000 nodes and 2,668,673 edges from 844,720 of 1,000,000 items · showing the 2,000 largest nodes and 113,686 edges between them',
    );
    expect(
      networkStatsText(
        stats({ nodes: 5, edges: 4, shownNodes: 5, shownEdges: 4, edgesAmongShown: 4, items: 5, itemsInNetwork: 5, unresolvedReplies: 2 }),
      ),
    ).toBe('5 nodes and 4 edges from 5 of 5 items · 2 replies to items not in the archive');
  });

  it('the heaviest edge of 400,000 (no spread into Math.max)', () => {
    const edges = Array.from({ length: 400_000 }, (_v, k) => ({ source: 'a', target: 'b', weight: (k * 7919) % 100_003 }));
    expect(heaviestEdgeWeight(edges)).toBe(100_002);
    expect(heaviestEdgeWeight([])).toBe(1);
  });
});
