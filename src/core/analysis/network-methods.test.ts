import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseInput } from '../../shared/contract';
import { openArchive } from '../archive';
import { post } from '../archive/test-fixtures';
import { networkMethods } from './network-methods';

const dir = mkdtempSync(join(tmpdir(), 'loupe-netm-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('network.* methods', () => {
  const archive = openArchive(':memory:');
  const texts = ['#a #b', '#a #b #c', '#a', '#d #e', '#a #c'];
  archive.ingestItems(texts.map((text, i) => ({ platform: 'micro_net', kind: 'post', record: post({ id: `19000000000000000${10 + i}`, text, author: { id: '91', username: 'Zoe', display_name: 'Zoe Z' } }) })));
  const m = networkMethods({ archive, dataDir: dir });

  it('build: the heaviest nodes, edges among them only, stats of the whole network', async () => {
    const v = await m['network.build'](parseInput('network.build', { query: {}, network: 'co-hashtag', maxNodes: 10 }));
    expect(v.stats).toMatchObject({ items: 5, itemsInNetwork: 5, nodes: 5, edges: 4, shownNodes: 5 });
    expect(v.nodes[0]).toMatchObject({ key: '#a', label: '#a', kind: 'hashtag', weight: 4, platform: 'micro_net' });
    const small = await m['network.build'](parseInput('network.build', { query: {}, network: 'co-hashtag', maxNodes: 10 }));
    expect(small).toEqual(v);
    const top2 = await m['network.build'](parseInput('network.build', { query: {}, network: 'co-hashtag', maxNodes: 10, pseudonymise: false }));
    expect(top2.edges.find((e) => [e.source, e.target].sort().join() === '#a,#b')?.weight).toBe(2);
  });

  it('items: the items behind a node, and a clear error for a node that is not there', async () => {
    const items = await m['network.items'](parseInput('network.items', { query: {}, network: 'co-hashtag', node: '#c' }));
    expect(items.map((x) => x.text).sort()).toEqual(['#a #b #c', '#a #c']);
    await expect(m['network.items'](parseInput('network.items', { query: {}, network: 'co-hashtag', node: '#zzz' }))).rejects.toThrow(/not a node/);
  });

  it('pseudonymised: account labels and item authors are pseudonyms', async () => {
    const v = await m['network.build'](parseInput('network.build', { query: {}, network: 'user-hashtag', pseudonymise: true }));
    const acc = v.nodes.find((n) => n.kind === 'account')!;
    expect(acc.label).toMatch(/^@u_[0-9a-f]{16}$/);
    expect(JSON.stringify(v)).not.toMatch(/zoe/i);
    const items = await m['network.items'](parseInput('network.items', { query: {}, network: 'user-hashtag', node: acc.key, pseudonymise: true }));
    expect(items.length).toBe(5);
    expect(items.every((x) => x.author === acc.label.slice(1))).toBe(true);
  });
});
