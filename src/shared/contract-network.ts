/**
 * The network view's part of the contract (issue 16; docs/analysis.md "Networks"): inputs as zod
 * schemas, outputs as types. Imported by contract.ts.
 */
import { z } from 'zod';
import { NETWORK_KINDS, type NetworkKindName } from './contract-constants';
import { libraryQuerySchema } from './query';

export { NETWORK_ENTITIES, NETWORK_KINDS, NETWORK_WORDS, type NetworkKindName } from './contract-constants';

export const networkBuildInputSchema = z.object({
  query: libraryQuerySchema,
  network: z.enum(NETWORK_KINDS),
  /** the heaviest nodes shown (the file exports keep every node) */
  maxNodes: z.number().int().min(10).max(20_000).default(2_000),
  pseudonymise: z.boolean().default(false),
});

export const networkItemsInputSchema = z.object({
  query: libraryQuerySchema,
  network: z.enum(NETWORK_KINDS),
  node: z.string().min(1).max(1_000),
  pseudonymise: z.boolean().default(false),
  limit: z.number().int().min(1).max(500).default(100),
});

export interface NetworkNode {
  key: string;
  label: string;
  kind: 'hashtag' | 'account';
  /** items behind the node */
  weight: number;
  platform: string;
  /** every other attribute (followers, label shares, ids as strings) */
  attrs: Record<string, string | number>;
}

export interface NetworkEdge {
  source: string;
  target: string;
  weight: number;
}

export interface NetworkView {
  network: NetworkKindName;
  directed: boolean;
  nodes: NetworkNode[];
  edges: NetworkEdge[];
  stats: {
    items: number;
    itemsInNetwork: number;
    nodes: number;
    edges: number;
    shownNodes: number;
    /** the edges sent: the heaviest `edgeCap` of `edgesAmongShown` at most */
    shownEdges: number;
    /** every edge between the shown nodes, before the cap */
    edgesAmongShown: number;
    /** the most edges a view carries (the GEXF / GraphML exports keep every edge) */
    edgeCap: number;
    unresolvedReplies: number;
  };
}

export interface NetworkItem {
  platform: string;
  kind: string;
  id: string;
  text: string | null;
  author: string | null;
  publishedAt: string | null;
}
