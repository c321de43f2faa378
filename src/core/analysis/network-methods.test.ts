import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseInput } from '../../shared/contract';
import { openArchive } from '../archive';
import { post } from '../archive/test-fixtures';
import type { BuiltNetwork } from './network';
import { edgesAmong, heaviestEdges, MAX_SHOWN_EDGES, networkMethods } from './network-methods';

const dir = mkdtempSync(join(tmpdir(), 'loupe-netm-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('network.* methods', () => {
  const archive = openArchive(':memory:');
  const texts = ['#a #b', '#a #b #c', '#a', '#d #e', '#a #c'];
  archive.ingestItems(
    texts.map((text, i) => ({
      platform: 'micro_net',
      kind: 'post',
      record: post({ id: `19000000000000000${10 + i}`, text, author: { id: '91', username: 'Zoe', display_name: 'Zoe Z' } }),
    })),
  );
  const m = networkMethods({ archive, dataDir: dir });

  it('build: the heaviest nodes, edges among them only, stats of the whole network', async () => {
    const v = await m['network.build'](parseInput('network.build', { query: {}, network: 'co-hashtag', maxNodes: 10 }));
    expect(v.stats).toMatchObject({ items: 5, itemsInNetwork: 5, nodes: 5, edges: 4, shownNodes: 5 });
    expect(v.nodes[0]).toMatchObject({ key: '#a', label: '#a', kind: 'hashtag', weight: 4, platform: 'micro_net' });
    const small = await m['network.build'](parseInput('network.build', { query: {}, network: 'co-hashtag', maxNodes: 10 }));
    expect(small).toEqual(v);
    const top2 = await m['network.build'](
      parseInput('network.build', { query: {}, network: 'co-hashtag', maxNodes: 10, pseudonymise: false }),
    );
    expect(top2.edges.find((e) => [e.source, e.target].sort().join() === '#a,#b')?.weight).toBe(2);
  });

  it('items: the items behind a node, and a clear error for a node that is not there', async () => {
    const items = await m['network.items'](parseInput('network.items', { query: {}, network: 'co-hashtag', node: '#c' }));
    expect(items.map((x) => x.text).sort()).toEqual(['#a #b #c', '#a #c']);
    await expect(m['network.items'](parseInput('network.items', { query: {}, network: 'co-hashtag', node: '#zzz' }))).rejects.toThrow(
      /not a node/,
    );
  });

  it('pseudonymised: account labels and item authors are pseudonyms', async () => {
    const v = await m['network.build'](parseInput('network.build', { query: {}, network: 'user-hashtag', pseudonymise: true }));
    const acc = v.nodes.find((n) => n.kind === 'account')!;
    expect(acc.label).toMatch(/^@u_[0-9a-f]{16}$/);
    expect(JSON.stringify(v)).not.toMatch(/zoe/i);
    const items = await m['network.items'](
      parseInput('network.items', { query: {}, network: 'user-hashtag', node: acc.key, pseudonymise: true }),
    );
    expect(items.length).toBe(5);
    expect(items.every((x) => x.author === acc.label.slice(1))).toBe(true);
  });
});

/** edges over node indexes, as a built network holds them */
function edgesOf(list: Array<[number, number, number]>): BuiltNetwork['edges'] {
  return {
    length: list.length,
    source: Uint32Array.from(list, (x) => x[0]),
    target: Uint32Array.from(list, (x) => x[1]),
    weight: Uint32Array.from(list, (x) => x[2]),
    replies: null,
  };
}

describe('the edge cap of a view', () => {
  // nodes 0..5 shown in this order (rank = index), node 6 not shown
  const shown = [0, 1, 2, 3, 4, 5];
  const keep = Uint8Array.from([1, 1, 1, 1, 1, 1, 0]);
  const E = edgesOf([
    [0, 1, 5], // 0
    [2, 3, 1], // 1: a tie at weight 1, ranks (2,3)
    [0, 6, 9], // 2: to a node not shown
    [4, 5, 1], // 3: a tie at weight 1, ranks (4,5)
    [1, 2, 3], // 4
    [0, 5, 1], // 5: a tie at weight 1, ranks (0,5): the heaviest nodes of the ties
    [3, 4, 2], // 6
  ]);

  it('keeps only the edges among the shown nodes, in their order', () => {
    expect([...edgesAmong(E, keep)]).toEqual([0, 1, 3, 4, 5, 6]);
  });

  it('under (or at) the cap, every edge among the shown nodes, unchanged', () => {
    const among = edgesAmong(E, keep);
    expect([...heaviestEdges(E, among, shown, 7, 6)]).toEqual([0, 1, 3, 4, 5, 6]);
    expect([...heaviestEdges(E, among, shown, 7, 100)]).toEqual([0, 1, 3, 4, 5, 6]);
  });

  it('over the cap, the heaviest, ties by the ranks of their ends, in their order', () => {
    const among = edgesAmong(E, keep);
    expect([...heaviestEdges(E, among, shown, 7, 3)]).toEqual([0, 4, 6]);
    // one of the three weight-1 edges: the one between the heaviest nodes (ranks 0 and 5)
    expect([...heaviestEdges(E, among, shown, 7, 4)]).toEqual([0, 4, 5, 6]);
    // two: then ranks (2,3) before (4,5)
    expect([...heaviestEdges(E, among, shown, 7, 5)]).toEqual([0, 1, 4, 5, 6]);
    expect([...heaviestEdges(E, among, shown, 7, 1)]).toEqual([0]);
  });

  it('ties do not depend on the order the edges were counted in, nor on which end is the source', () => {
    const flipped = edgesOf([
      [5, 0, 1],
      [6, 0, 9],
      [3, 2, 1],
      [2, 1, 3],
      [5, 4, 1],
      [4, 3, 2],
      [1, 0, 5],
    ]);
    const got = heaviestEdges(flipped, edgesAmong(flipped, keep), shown, 7, 4);
    expect([...got].map((e) => [flipped.source[e], flipped.target[e]].sort().join('-')).sort()).toEqual(['0-1', '0-5', '1-2', '3-4']);
  });

  it('network.build: the heaviest edges under the cap, and the stats say how many were left out', async () => {
    const archive = openArchive(':memory:');
    // #a with #b three times, #a with #c twice, then #d #e #f together once (three edges of weight 1)
    const texts = ['#a #b', '#a #b', '#a #b #c', '#a #c', '#d #e #f'];
    archive.ingestItems(
      texts.map((text, k) => ({
        platform: 'micro_net',
        kind: 'post',
        record: post({ id: `19000000000000001${10 + k}`, text, author: { id: '91', username: 'Zoe', display_name: 'Zoe Z' } }),
      })),
    );
    const build = (maxShownEdges?: number) =>
      networkMethods({ archive, dataDir: dir, maxShownEdges })['network.build'](
        parseInput('network.build', { query: {}, network: 'co-hashtag', maxNodes: 10 }),
      );
    const all = await build();
    expect(all.stats).toMatchObject({ nodes: 6, edges: 6, shownNodes: 6, shownEdges: 6, edgesAmongShown: 6, edgeCap: MAX_SHOWN_EDGES });
    const capped = await build(4);
    expect(capped.stats).toMatchObject({ nodes: 6, edges: 6, shownNodes: 6, shownEdges: 4, edgesAmongShown: 6, edgeCap: 4 });
    const pairs = capped.edges.map((e) => `${[e.source, e.target].sort().join('-')}:${e.weight}`).sort();
    // the two heavier edges, and of the four of weight 1 the two between the heaviest nodes:
    // #b-#c (ranks 1, 2), then #d-#e (#d, #e, #f weigh 1 each: ranked by key)
    expect(pairs).toEqual(['#a-#b:3', '#a-#c:2', '#b-#c:1', '#d-#e:1'].sort());
    expect(await build(4)).toEqual(capped);
  });
});
