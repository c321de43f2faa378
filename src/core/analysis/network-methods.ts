/**
 * The contract's `network.*` methods (the app's network view): a network of a library query,
 * trimmed to its heaviest nodes for drawing, and the items behind a node. The last network built
 * is kept (with up to 500 items per node) until the archive changes or another is asked for.
 */
import type { MethodParsedInput } from '../../shared/contract';
import type { NetworkItem, NetworkView } from '../../shared/contract-network';
import type { ExportRow } from '../ports';
import { Pseudonymiser } from '../export/pseudonym';
import { buildNetworkFromFacts, type BuiltNetwork } from './network';
import { archiveFacts, factsOptionsFor, type FactsSource } from './network-source';
import { archiveParentLookup, pseudonymousLookup, type ParentAuthorsSource } from './network-export';

export interface NetworkMethodDeps {
  archive: FactsSource & ParentAuthorsSource & {
    iterateExportRows(q: MethodParsedInput<'network.build'>['query']): Iterable<ExportRow>;
    exportRowsFor(refs: Array<{ platform: string; kind: string; id: string }>): Iterable<ExportRow>;
    count(q: MethodParsedInput<'network.build'>['query']): number;
    dataVersion(): string;
  };
  dataDir: string;
}

const KEEP_ITEMS = 500;

export function networkMethods(deps: NetworkMethodDeps) {
  let last: { key: string; net: BuiltNetwork } | null = null;

  /** the archive's write version: `data_version` (other connections) + `total_changes()` (this one) */
  const version = (): string => deps.archive.dataVersion();

  function built(i: { query: MethodParsedInput<'network.build'>['query']; network: MethodParsedInput<'network.build'>['network']; pseudonymise: boolean }): BuiltNetwork {
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
      const net = built(i);
      const { nodeKeys: keys, nodeAttributes: attrsOf, edges: E } = net;
      // the heaviest nodes (ties: key order, so the same query always shows the same nodes)
      const order = Array.from(keys, (_k, n) => n);
      order.sort((x, y) => Number(attrsOf[y].weight) - Number(attrsOf[x].weight) || (keys[x] < keys[y] ? -1 : 1));
      const shown = order.slice(0, i.maxNodes);
      const keep = new Uint8Array(keys.length);
      for (const n of shown) keep[n] = 1;
      const nodes = shown.map((n) => {
        const { label, kind, weight, platform, ...attrs } = attrsOf[n];
        return { key: keys[n], label: String(label), kind: kind === 'hashtag' ? ('hashtag' as const) : ('account' as const), weight: Number(weight), platform: String(platform ?? ''), attrs };
      });
      const edges: NetworkView['edges'] = [];
      for (let e = 0; e < E.length; e++) if (keep[E.source[e]] === 1 && keep[E.target[e]] === 1) edges.push({ source: keys[E.source[e]], target: keys[E.target[e]], weight: E.weight[e] });
      return {
        network: i.network,
        directed: net.directed,
        nodes,
        edges,
        stats: { ...net.stats, shownNodes: nodes.length, shownEdges: edges.length },
      };
    },

    async 'network.items'(i: MethodParsedInput<'network.items'>): Promise<NetworkItem[]> {
      const net = built(i);
      if (!net.nodeIndex.has(i.node)) throw new Error(`"${i.node}" is not a node of this network (the library may have changed: build it again).`);
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
