/**
 * The contract's `network.*` methods (the app's network view): a network of a library query,
 * trimmed to its heaviest nodes for drawing, and the items behind a node. The last network built
 * is kept (with up to 500 items per node) until the archive changes or another is asked for.
 */
import type { MethodParsedInput } from '../../shared/contract';
import type { NetworkItem, NetworkView } from '../../shared/contract-network';
import type { ExportRow } from '../ports';
import { Pseudonymiser } from '../text';
import type { BuiltNetwork } from './network';
import { archiveFacts, factsOptionsFor, type FactsSource } from './network-source';
import { archiveParentLookup, pseudonymousLookup, type ParentAuthorsSource } from './network-export';

export interface NetworkMethodDeps {
  archive: FactsSource &
    ParentAuthorsSource & {
      iterateExportRows(q: MethodParsedInput<'network.build'>['query']): Iterable<ExportRow>;
      exportRowsFor(refs: Array<{ platform: string; kind: string; id: string }>): Iterable<ExportRow>;
      count(q: MethodParsedInput<'network.build'>['query']): number;
      dataVersion(): string;
    };
  dataDir: string;
  /** the most edges a view carries (tests lower it); MAX_SHOWN_EDGES */
  maxShownEdges?: number;
}

const KEEP_ITEMS = 500;

/**
 * The most edges a view hands the renderer (the file exports keep every edge). What the drawing
 * lays out and pans / zooms at >= 30 fps in software WebGL: the 10,000-node view of the 50k bench
 * archive (113,686 edges) draws at 39-59 fps; at 1M the 2,000-node view has 411,120 edges and the
 * 10,000-node view 1.6 million (docs/analysis.md "Networks").
 */
export const MAX_SHOWN_EDGES = 120_000;

/** The edges (indexes into `E`, ascending) whose both ends are kept. */
export function edgesAmong(E: BuiltNetwork['edges'], keep: Uint8Array): Uint32Array {
  let n = 0;
  for (let e = 0; e < E.length; e++) if (keep[E.source[e]] === 1 && keep[E.target[e]] === 1) n++;
  const out = new Uint32Array(n);
  let j = 0;
  for (let e = 0; e < E.length; e++) if (keep[E.source[e]] === 1 && keep[E.target[e]] === 1) out[j++] = e;
  return out;
}

/**
 * At most `cap` of the edges `among` (ascending indexes into `E`): the heaviest, ties by the shown
 * ranks of their ends (the edge between heavier nodes first: lower rank of the two, then the
 * other, then a directed edge from the heavier node first), so the same query shows the same
 * edges. Kept in their order in `E`; under the cap, `among` itself. Native numeric sorts only
 * (no comparator): the weights to find the cap's weight, then the tied edges' rank keys.
 */
export function heaviestEdges(
  E: BuiltNetwork['edges'],
  among: Uint32Array,
  shown: readonly number[],
  nodeCount: number,
  cap: number,
): Uint32Array {
  const n = among.length;
  if (n <= cap) return among;
  if (cap <= 0) return new Uint32Array(0);
  const w = new Float64Array(n);
  for (let j = 0; j < n; j++) w[j] = E.weight[among[j]];
  w.sort();
  const t = w[n - cap]; // the cap-th heaviest weight
  let above = 0;
  for (let j = 0; j < n; j++) if (E.weight[among[j]] > t) above++;
  const need = cap - above; // how many of the edges of weight t are kept (>= 1)
  const rank = new Float64Array(nodeCount);
  for (let r = 0; r < shown.length; r++) rank[shown[r]] = r;
  const N = shown.length;
  const keyOf = (e: number): number => {
    const a = rank[E.source[e]];
    const b = rank[E.target[e]];
    return (Math.min(a, b) * N + Math.max(a, b)) * 2 + (a <= b ? 0 : 1);
  };
  const tied: number[] = [];
  for (let j = 0; j < n; j++) if (E.weight[among[j]] === t) tied.push(keyOf(among[j]));
  const tk = Float64Array.from(tied).sort()[need - 1]; // the last tied key kept (keys are unique)
  const out = new Uint32Array(cap);
  let k = 0;
  for (let j = 0; j < n; j++) {
    const e = among[j];
    const we = E.weight[e];
    if ((we > t || (we === t && keyOf(e) <= tk)) && k < cap) out[k++] = e;
  }
  return out;
}

/** what a network is built from (`network.build`'s and `network.items`' input) */
type NetworkInput = Pick<MethodParsedInput<'network.build'>, 'query' | 'network' | 'pseudonymise'>;

export function networkMethods(deps: NetworkMethodDeps) {
  const cap = deps.maxShownEdges ?? MAX_SHOWN_EDGES;
  let last: { key: string; net: BuiltNetwork } | null = null;

  /** the archive's write version: `data_version` (other connections) + `total_changes()` (this one) */
  const version = (): string => deps.archive.dataVersion();

  async function built(i: NetworkInput): Promise<BuiltNetwork> {
    // graphology and the builder load with the first network, not with every command (docs/cli.md
    // "Start-up"); nothing is awaited between the key and the build below
    const { buildNetworkFromFacts } = await import('./network');
    const { after: _a, limit: _l, ...query } = i.query;
    const key = JSON.stringify([query, i.network, i.pseudonymise, version()]);
    if (last?.key === key) return last.net;
    const p = i.pseudonymise ? Pseudonymiser.forDataDir(deps.dataDir) : null;
    const base = archiveParentLookup(deps.archive);
    const net = buildNetworkFromFacts(archiveFacts(deps.archive, query, p, factsOptionsFor(i.network)), {
      kind: i.network,
      keepItems: KEEP_ITEMS,
      lookupParents: p ? pseudonymousLookup(base, p) : base,
    });
    last = { key, net };
    return net;
  }

  return {
    async 'network.build'(i: MethodParsedInput<'network.build'>): Promise<NetworkView> {
      const net = await built(i);
      const { nodeKeys: keys, nodeAttributes: attrsOf, edges: E } = net;
      // the heaviest nodes (ties: key order, so the same query always shows the same nodes)
      const order = Array.from(keys, (_k, n) => n);
      order.sort((x, y) => Number(attrsOf[y].weight) - Number(attrsOf[x].weight) || (keys[x] < keys[y] ? -1 : 1));
      const shown = order.slice(0, i.maxNodes);
      const keep = new Uint8Array(keys.length);
      for (const n of shown) keep[n] = 1;
      const nodes = shown.map((n) => {
        const { label, kind, weight, platform, ...attrs } = attrsOf[n];
        return {
          key: keys[n],
          label: String(label),
          kind: kind === 'hashtag' ? ('hashtag' as const) : ('account' as const),
          weight: Number(weight),
          platform: String(platform ?? ''),
          attrs,
        };
      });
      const among = edgesAmong(E, keep);
      const kept = heaviestEdges(E, among, shown, keys.length, cap);
      const edges: NetworkView['edges'] = new Array(kept.length);
      for (let j = 0; j < kept.length; j++) {
        const e = kept[j];
        edges[j] = { source: keys[E.source[e]], target: keys[E.target[e]], weight: E.weight[e] };
      }
      return {
        network: i.network,
        directed: net.directed,
        nodes,
        edges,
        stats: { ...net.stats, shownNodes: nodes.length, shownEdges: edges.length, edgesAmongShown: among.length, edgeCap: cap },
      };
    },

    async 'network.items'(i: MethodParsedInput<'network.items'>): Promise<NetworkItem[]> {
      const net = await built(i);
      if (!net.nodeIndex.has(i.node))
        throw new Error(`"${i.node}" is not a node of this network (the library may have changed: build it again).`);
      const refs = (net.items.get(i.node) ?? []).slice(0, i.limit);
      const p = i.pseudonymise ? Pseudonymiser.forDataDir(deps.dataDir) : null;
      const out: NetworkItem[] = [];
      for (const raw of deps.archive.exportRowsFor(refs)) {
        const r = p ? p.row(raw) : raw;
        const rec = r.record as { content?: { text?: unknown }; author?: { username?: unknown }; published_at?: unknown };
        out.push({
          platform: r.platform,
          kind: r.kind,
          // the drawer opens the archived item: its real id (a pseudonymised profile row's id is a hash)
          id: raw.id,
          text: typeof rec.content?.text === 'string' ? rec.content.text : null,
          author: typeof rec.author?.username === 'string' ? rec.author.username : null,
          publishedAt: typeof rec.published_at === 'string' ? rec.published_at : null,
        });
      }
      return out;
    },
  };
}
