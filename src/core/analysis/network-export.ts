/**
 * A network export: rows of a library query → a network (network.ts) → a GEXF or GraphML file
 * (network-xml.ts). Replies whose parent is not among the rows find the parent's author in the
 * archive (`archiveParentLookup`); in a pseudonymised export those authors are pseudonymised too.
 */
import type { ExportRow } from '../ports';
import type { ParentAuthorRow } from '../archive';
import type { Pseudonymiser } from '../text';
import type { NetworkKind, NetworkStats, ParentLookup } from './network';
import { factsOf, userKey, type RowAuthor, type RowFacts } from './network-entities';
import { writeNetworkFile } from './network-xml';

/** Where the lookup reads authors: the archive (`Archive.parentAuthors`, network-facts.ts). */
export interface ParentAuthorsSource {
  parentAuthors(platform: string, ids: string[]): ParentAuthorRow[];
}

/** Authors of archived items by (platform, id), from the archive's extracted columns. */
export function archiveParentLookup(archive: ParentAuthorsSource): ParentLookup {
  return (platform, ids) => {
    const out = new Map<string, RowAuthor>();
    for (const r of archive.parentAuthors(platform, ids)) {
      const key = userKey(platform, r.author_username, r.author_id);
      if (key) out.set(r.id, { key, id: r.author_id, username: r.author_username, displayName: r.author_display_name, followers: null });
    }
    return out;
  };
}

/** The same lookup, answering with pseudonyms (the rows it completes were pseudonymised). */
export function pseudonymousLookup(lookup: ParentLookup, p: Pseudonymiser): ParentLookup {
  return (platform, ids) => {
    const out = new Map<string, RowAuthor>();
    for (const [id, a] of lookup(platform, ids)) {
      const username = a.username ? p.handle(platform, a.username) : null;
      const uid = a.id ? p.userId(platform, a.id) : null;
      const key = userKey(platform, username, uid);
      if (key) out.set(id, { key, id: uid, username, displayName: username, followers: a.followers });
    }
    return out;
  };
}

export interface NetworkExportOptions {
  network: NetworkKind;
  format: 'gexf' | 'graphml';
  out: string;
  signal?: AbortSignal;
  lookupParents?: ParentLookup;
  onProgress?: (rowsRead: number) => void;
  total?: number;
  /** the source yields RowFacts (network-source.ts), not export rows */
  facts?: boolean;
}

export interface NetworkExportResult {
  rows: number;
  bytes: number;
  path: string;
  stats: NetworkStats;
}

export async function exportNetwork(
  rows: Iterable<ExportRow> | Iterable<RowFacts>,
  opts: NetworkExportOptions,
): Promise<NetworkExportResult> {
  const every = opts.total && opts.total > 0 ? Math.max(1, Math.floor(opts.total / 200)) : 5000;
  let n = 0;
  const facts = function* (): Generator<RowFacts> {
    for (const r of rows) {
      if (++n % every === 0) opts.onProgress?.(n);
      yield opts.facts ? (r as RowFacts) : factsOf(r as ExportRow);
    }
  };
  // graphology and the builder load with the first network, not with every command (docs/cli.md "Start-up")
  const { buildNetworkFromFacts } = await import('./network');
  const net = buildNetworkFromFacts(facts(), { kind: opts.network, lookupParents: opts.lookupParents, signal: opts.signal });
  const file = await writeNetworkFile(net.graph, opts.format, opts.out, opts.signal);
  opts.onProgress?.(net.stats.items);
  return { rows: net.stats.items, bytes: file.bytes, path: file.path, stats: net.stats };
}
