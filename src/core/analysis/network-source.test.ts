import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Graph from 'graphology';
import { afterAll, describe, expect, it } from 'vitest';
import { openArchive } from '../archive';
import { post } from '../archive/test-fixtures';
import { Pseudonymiser } from '../text';
import { buildNetwork, buildNetworkFromFacts, NETWORK_KINDS } from './network';
import { archiveParentLookup, pseudonymousLookup } from './network-export';
import { archiveFacts, factsOptionsFor } from './network-source';

const dir = mkdtempSync(join(tmpdir(), 'loupe-netsrc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function dump(g: Graph): unknown {
  const nodes: Record<string, unknown> = {};
  g.forEachNode((k, a) => (nodes[k] = a));
  const edges: string[] = [];
  // an undirected edge's orientation follows row order (export rows are sorted, facts come in archive order)
  g.forEachEdge((_e, a, s, t) => edges.push(`${(g.type === 'directed' ? [s, t] : [s, t].sort()).join('>')}:${JSON.stringify(a)}`));
  return { nodes, edges: edges.sort() };
}

describe('the archive facts source', () => {
  const a = openArchive(':memory:');
  const users = [
    { id: '9100000000000000001', username: 'Ann', display_name: 'Ann A' },
    { id: '9100000000000000002', username: 'bob', display_name: 'Bob B' },
    { id: '9100000000000000003', username: null, display_name: 'No Handle' },
  ];
  const recs = Array.from({ length: 60 }, (_, i) =>
    post({
      id: `19000000000000${String(1000 + i)}`,
      text: `${['#x #y', '#y #z @Bob', 'hi @ann', '#x', 'no tags'][i % 5]} #t${i % 7}`,
      author: users[i % 3],
      likes: i,
      parent_id: i % 6 === 5 ? `19000000000000${String(1000 + i - 5)}` : i % 11 === 0 ? 'not-archived' : null,
      // odd values as an API change could send them: read like JSON.parse reads them (a numeric text counts, booleans, numbers and objects are no label)
      labels:
        i % 13 === 0
          ? { sponsored: { p: '0.7' }, intent: { label: 5 }, sentiment: { label: 'negative' } }
          : i % 17 === 0
            ? { sponsored: { p: true }, intent: { label: { x: 1 } }, sentiment: { label: ['negative'] } }
            : { sponsored: { p: (i % 10) / 10 }, intent: { label: i % 2 ? 'complaining' : 'promoting' } },
    }),
  );
  a.ingestItems(recs.map((record) => ({ platform: 'micro_net', kind: 'post', record })));
  a.overrideLabel({ platform: 'micro_net', kind: 'post', id: recs[3].id as string }, 'sponsored', 'p', 0.95);
  a.overrideLabel({ platform: 'micro_net', kind: 'post', id: recs[4].id as string }, 'intent', 'label', 'other');
  const lookup = archiveParentLookup(a);

  for (const kind of NETWORK_KINDS)
    it(`${kind}: the same network as from whole export rows (overrides, replies, a query filter)`, () => {
      for (const q of [{}, { author: 'bob' }]) {
        const fromRows = buildNetwork(a.iterateExportRows(q), { kind, lookupParents: lookup });
        const fromFacts = buildNetworkFromFacts(archiveFacts(a, q, null, factsOptionsFor(kind)), { kind, lookupParents: lookup });
        // every column read (authors too) gives the same network
        expect(dump(buildNetworkFromFacts(archiveFacts(a, q), { kind, lookupParents: lookup }).graph)).toEqual(dump(fromRows.graph));
        expect(dump(fromFacts.graph)).toEqual(dump(fromRows.graph));
        expect(fromFacts.stats).toEqual(fromRows.stats);
        expect(fromFacts.graph.order).toBeGreaterThan(0);
      }
    });

  it('pseudonymised: the same network as from pseudonymised export rows', () => {
    const p = Pseudonymiser.forDataDir(dir);
    for (const kind of NETWORK_KINDS) {
      const rows = [...a.iterateExportRows({})].map((r) => p.row(r));
      const fromRows = buildNetwork(rows, { kind, lookupParents: pseudonymousLookup(lookup, p) });
      const fromFacts = buildNetworkFromFacts(archiveFacts(a, {}, p, factsOptionsFor(kind)), {
        kind,
        lookupParents: pseudonymousLookup(lookup, p),
      });
      expect(dump(fromFacts.graph), kind).toEqual(dump(fromRows.graph));
      expect(JSON.stringify(dump(fromFacts.graph))).not.toMatch(/ann|bob|9100000000000000001/i);
    }
  });
});
