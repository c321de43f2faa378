/**
 * Networks from any library query (docs/analysis.md "Networks"), built with graphology from the
 * export's row source (`Archive.iterateExportRows`), one pass, constant memory per row:
 *
 *  - `co-hashtag`   hashtags; an edge joins two hashtags used in the same item (weight = items)
 *  - `co-mention`   mentioned accounts; an edge joins two accounts mentioned in the same item
 *  - `user-hashtag` bipartite: accounts and hashtags; an edge = the account used the hashtag (weight = items)
 *  - `mentions`     directed: account → account it mentions or replies to (weight = items; `mentions`, `replies`)
 *
 * Node weight (`weight`) = the items behind the node. Node attributes: `kind` (hashtag / account),
 * `platform` (the most frequent platform of its items), `platforms` (how many), `likes` (sum of known
 * likes), label shares over its items (`sponsored_share`: sponsored.p ≥ 0.5 among items judged for it;
 * `intent_top` and `intent_top_share`; `negative_share`: comment sentiment negative), and for
 * accounts `username`, `user_id`, `display_name`, `followers` (the largest count seen). Node keys
 * are strings: `#tag`, `@platform:handle` (or `@platform:id:<id>` without a handle).
 */
import Graph from 'graphology';
import type { ExportRow } from '../ports';
import { factsOf, handleKey, type RowAuthor, type RowFacts } from './network-entities';
import { PairCounts } from './pair-counts';

import { NETWORK_KIND_DEFS, type NetworkHands } from './network-kinds';
import { isNetworkKind, NETWORK_KINDS, type NetworkKind } from './network-kind-names';

export { isNetworkKind, NETWORK_KINDS, type NetworkKind };

export interface ItemRef {
  platform: string;
  kind: string;
  id: string;
}

/** The author of a replied-to item that is not among the query's rows (looked up in the archive). */
export type ParentLookup = (platform: string, ids: string[]) => Map<string, RowAuthor>;

export interface NetworkOptions {
  kind: NetworkKind;
  /** keep up to this many item refs per node (click-through in the app); default 0 */
  keepItems?: number;
  /** `mentions`: find the authors of replied-to items outside the rows */
  lookupParents?: ParentLookup;
  /** stop early (the app's cancel) */
  signal?: AbortSignal;
}

export interface NetworkStats {
  /** rows read */
  items: number;
  /** rows that put at least one node in the network */
  itemsInNetwork: number;
  nodes: number;
  edges: number;
  /** `mentions`: replies whose parent (or its author) is not in the archive */
  unresolvedReplies: number;
}

/** A network's edges in typed arrays (node indexes into `BuiltNetwork.nodeKeys`), in the order of the graph's edges. */
export interface NetworkEdges {
  length: number;
  source: Uint32Array;
  target: Uint32Array;
  /** items behind the edge */
  weight: Uint32Array;
  /** `mentions`: how many of them are replies (the rest are mentions); null for the other networks */
  replies: Uint32Array | null;
}

export interface BuiltNetwork {
  kind: NetworkKind;
  directed: boolean;
  stats: NetworkStats;
  /** node keys, by node index */
  nodeKeys: string[];
  /** node attributes (label, kind, weight, …), by node index */
  nodeAttributes: Array<Record<string, string | number>>;
  /** node key → node index */
  nodeIndex: Map<string, number>;
  edges: NetworkEdges;
  /**
   * The same network as a graphology graph (the GEXF / GraphML writers read it), made on first
   * use: its edge objects cost about as much as the rest of the build, and the app's view does
   * not need them (docs/analysis.md "Networks", Performance).
   */
  readonly graph: Graph;
  /** node key → up to keepItems items behind it (empty when keepItems is 0) */
  items: Map<string, ItemRef[]>;
}

/** Per-node accumulators (numbers, so 10⁵ nodes stay small). */
class NodeAcc {
  items = 0;
  likes = 0;
  likesKnown = 0;
  /** items per platform, by the platform's number in `Words` */
  platforms: number[] = [];
  spJudged = 0;
  spYes = 0;
  /** items per intent label, by the label's number */
  intents: number[] = [];
  intentJudged = 0;
  sentJudged = 0;
  sentNeg = 0;
  followers: number | null = null;
  refs: ItemRef[] | null = null;
  constructor(
    readonly key: string,
    readonly kind: 'hashtag' | 'account',
    public label: string,
    public user: { username: string | null; id: string | null; displayName: string | null } | null,
  ) {}

  /** `platform` and `intent`: the row's platform and intent label as numbers (`Words`; intent -1 when none) */
  add(f: RowFacts, keep: number, platform: number, intent: number): void {
    this.items++;
    if (f.likes !== null) {
      this.likes += f.likes;
      this.likesKnown++;
    }
    this.platforms[platform] = (this.platforms[platform] ?? 0) + 1;
    const l = f.labels;
    if (l.sponsoredP !== null) {
      this.spJudged++;
      if (l.sponsoredP >= 0.5) this.spYes++;
    }
    if (intent >= 0) {
      this.intentJudged++;
      this.intents[intent] = (this.intents[intent] ?? 0) + 1;
    }
    if (l.sentiment !== null) {
      this.sentJudged++;
      if (l.sentiment === 'negative') this.sentNeg++;
    }
    if (keep > 0) {
      this.refs ??= [];
      if (this.refs.length < keep) this.refs.push({ platform: f.platform, kind: f.kind, id: f.id });
    }
  }

  attributes(platforms: Words, intents: Words): Record<string, string | number> {
    const a: Record<string, string | number> = {
      label: this.label,
      kind: this.kind,
      weight: this.items,
      platform: top(this.platforms, platforms)[0] ?? '',
      platforms: this.platforms.filter((n) => n > 0).length,
    };
    if (this.likesKnown > 0) a.likes = this.likes;
    if (this.spJudged > 0) a.sponsored_share = this.spYes / this.spJudged;
    if (this.intentJudged > 0) {
      const [label, n] = top(this.intents, intents);
      if (label !== undefined) {
        a.intent_top = label;
        a.intent_top_share = n / this.intentJudged;
      }
    }
    if (this.sentJudged > 0) a.negative_share = this.sentNeg / this.sentJudged;
    if (this.user) {
      if (this.user.username) a.username = this.user.username;
      if (this.user.id) a.user_id = this.user.id;
      if (this.user.displayName) a.display_name = this.user.displayName;
    }
    if (this.followers !== null) a.followers = this.followers;
    return a;
  }
}

/** Short words (platforms, intent labels) numbered in order of appearance. */
class Words {
  readonly names: string[] = [];
  private readonly ids = new Map<string, number>();
  id(w: string): number {
    let i = this.ids.get(w);
    if (i === undefined) this.ids.set(w, (i = this.names.push(w) - 1));
    return i;
  }
}

/** The most frequent word of counts by word number (ties: the first in key order, so results do not depend on row order). */
function top(counts: number[], words: Words): [string | undefined, number] {
  let best: string | undefined;
  let n = -1;
  for (let i = 0; i < counts.length; i++) {
    const v = counts[i];
    if (!v) continue;
    const k = words.names[i];
    if (v > n || (v === n && best !== undefined && k < best)) [best, n] = [k, v];
  }
  return [best, Math.max(0, n)];
}

/** The network of export rows (pseudonymised rows give a pseudonymous network). */
export function buildNetwork(rows: Iterable<ExportRow>, opts: NetworkOptions): BuiltNetwork {
  return buildNetworkFromFacts(
    (function* () {
      for (const r of rows) yield factsOf(r);
    })(),
    opts,
  );
}

/** The network of rows already read down to what a network needs (network-source.ts reads them straight from the archive). */
export function buildNetworkFromFacts(facts: Iterable<RowFacts>, opts: NetworkOptions): BuiltNetwork {
  const { kind } = opts;
  if (!isNetworkKind(kind)) throw new Error(`network: unknown kind '${String(kind)}' (one of ${NETWORK_KINDS.join(', ')})`);
  const keep = Math.max(0, opts.keepItems ?? 0);
  const nodes: NodeAcc[] = [];
  const index = new Map<string, number>();
  const edges = new PairCounts(4096);
  const stats: NetworkStats = { items: 0, itemsInNetwork: 0, nodes: 0, edges: 0, unresolvedReplies: 0 };

  const node = (key: string, make: () => NodeAcc): number => {
    let i = index.get(key);
    if (i === undefined) {
      i = nodes.length;
      nodes.push(make());
      index.set(key, i);
    }
    return i;
  };
  // hashtags by their text (no `#` + text per occurrence, no closure)
  const tagIndex = new Map<string, number>();
  const tagNode = (t: string): number => {
    let i = tagIndex.get(t);
    if (i === undefined) {
      const key = `#${t}`;
      i = node(key, () => new NodeAcc(key, 'hashtag', key, null));
      tagIndex.set(t, i);
    }
    return i;
  };
  const platformWords = new Words();
  const intentWords = new Words();
  const accountNode = (
    key: string,
    a: { username: string | null; id: string | null; displayName: string | null; followers?: number | null },
  ): number => {
    const i = node(
      `@${key}`,
      () =>
        new NodeAcc(`@${key}`, 'account', a.username ? `@${a.username}` : `id ${a.id ?? '?'}`, {
          username: a.username,
          id: a.id,
          displayName: a.displayName,
        }),
    );
    const n = nodes[i];
    // a mention knows only the handle: the author record fills in the rest when it comes
    if (n.user && a.id && !n.user.id) {
      n.user = { username: a.username ?? n.user.username, id: a.id, displayName: a.displayName ?? n.user.displayName };
      if (a.username) n.label = `@${a.username}`;
    }
    if (a.followers != null && (n.followers === null || a.followers > n.followers)) n.followers = a.followers;
    return i;
  };
  const mentionNode = (platform: string, handle: string): number =>
    accountNode(handleKey(platform, handle), { username: handle, id: null, displayName: null });

  // what the kind does with each row, and after the pass (./network-kinds.ts)
  const def = NETWORK_KIND_DEFS[kind];
  const hands: NetworkHands = {
    tagNode,
    mentionNode,
    accountNode,
    edges,
    stats,
    hasNode: (key) => index.has(key),
    lookupParents: opts.lookupParents,
  };
  const run = def.start(hands);
  for (const f of facts) {
    if (opts.signal?.aborted) throw opts.signal.reason instanceof Error ? opts.signal.reason : new Error('cancelled');
    stats.items++;
    const touched: number[] = [];
    run.item(f, touched);
    if (touched.length > 0) {
      stats.itemsInNetwork++;
      const platform = platformWords.id(f.platform);
      const intent = f.labels.intent === null ? -1 : intentWords.id(f.labels.intent);
      // co-occurrence networks touch each node once (their entities are unique per item)
      const once = def.uniquePerItem ? touched : new Set(touched);
      for (const i of once) nodes[i].add(f, keep, platform, intent);
    }
  }
  run.finish?.();

  const directed = def.directed;
  const nodeKeys = nodes.map((n) => n.key);
  const nodeAttributes = nodes.map((n) => n.attributes(platformWords, intentWords));
  const m = edges.size;
  const net: NetworkEdges = {
    length: m,
    source: edges.source.subarray(0, m),
    target: edges.target.subarray(0, m),
    weight: edges.count.subarray(0, m),
    replies: directed ? edges.flagged.subarray(0, m) : null,
  };
  stats.nodes = nodes.length;
  stats.edges = m;
  const items = new Map<string, ItemRef[]>();
  if (keep > 0) for (const n of nodes) items.set(n.key, n.refs ?? []);
  let graph: Graph | null = null;
  return {
    kind,
    directed,
    stats,
    nodeKeys,
    nodeAttributes,
    nodeIndex: index,
    edges: net,
    items,
    get graph(): Graph {
      return (graph ??= toGraph(kind, nodeKeys, nodeAttributes, net));
    },
  };
}

/** The graphology graph of a built network (GEXF / GraphML files, tests). */
function toGraph(kind: NetworkKind, keys: string[], attributes: Array<Record<string, string | number>>, edges: NetworkEdges): Graph {
  const directed = edges.replies !== null;
  const graph = new Graph({ type: directed ? 'directed' : 'undirected', multi: false, allowSelfLoops: directed });
  graph.setAttribute('network', kind);
  // nodes without items (a replied-to author found only in the archive) still get their attributes
  for (let i = 0; i < keys.length; i++) graph.addNode(keys[i], { ...attributes[i] });
  // explicit edge keys: graphology's generated ones differ from one graph instance to the next,
  // and two exports of the same rows must be the same bytes
  for (let e = 0; e < edges.length; e++) {
    const w = edges.weight[e];
    const attrs: Record<string, number> = { weight: w };
    if (edges.replies) {
      attrs.replies = edges.replies[e];
      attrs.mentions = w - edges.replies[e];
    }
    graph.addEdgeWithKey(`e${e}`, keys[edges.source[e]], keys[edges.target[e]], attrs);
  }
  return graph;
}
