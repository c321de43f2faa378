import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Graph from 'graphology';
import { parse as parseGexf } from 'graphology-gexf';
import { parse as parseGraphml } from 'graphology-graphml';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExportRow } from '../ports';
import { buildNetwork } from './network';
import { hashtagsOf, mentionsOf } from './network-entities';
import { extractTerms } from '../text';
import { writeNetworkFile, xmlSafe } from './network-xml';

const dir = mkdtempSync(join(tmpdir(), 'loupe-net-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let seq = 0;
function row(o: {
  platform?: string;
  kind?: string;
  id?: string;
  text: string;
  user?: string;
  userId?: string;
  name?: string;
  followers?: number;
  parent?: string;
  likes?: number;
  labels?: Record<string, Record<string, unknown>>;
  overrides?: ExportRow['overrides'];
}): ExportRow {
  const id = o.id ?? (1_800_000_000_000_000_000n + BigInt(seq++)).toString();
  const record = {
    id,
    parent_id: o.parent ?? null,
    content: { text: o.text },
    author: {
      id: o.userId ?? `9${(o.user ?? 'anon').length}000000000000000001`,
      username: o.user ?? 'anon',
      display_name: o.name ?? null,
      followers: o.followers ?? null,
    },
    engagement: { likes: o.likes ?? null },
    computed: { labels: o.labels ?? null },
  };
  return {
    platform: o.platform ?? 'micro_net',
    kind: o.kind ?? 'post',
    id,
    record,
    firstSeenAt: 0,
    lastSeenAt: 0,
    tags: [],
    note: null,
    overrides: o.overrides ?? {},
  };
}

/** Deterministic texts of space-separated words, some of them `#tags` from a small vocabulary. */
function corpus(n: number): ExportRow[] {
  let s = 12345;
  const rnd = (): number => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const TAGS = ['food', 'Food', 'café', '日本', 'run_2024', 'x', 'tech', 'news', 'ai', 'cats'];
  const out: ExportRow[] = [];
  for (let i = 0; i < n; i++) {
    const words = ['hello', 'world'];
    const k = Math.floor(rnd() * 5);
    for (let j = 0; j < k; j++) words.push('#' + TAGS[Math.floor(rnd() * TAGS.length)]);
    words.push('mail me at a#b', 'issue #12');
    out.push(row({ text: words.join(' '), user: `user${i % 7}`, likes: i }));
  }
  return out;
}

/** The independent count: tokens of the form #word split on spaces, case-folded (the test texts have no punctuation around tags). */
function independentCoHashtag(rows: ExportRow[]): { nodes: Map<string, number>; edges: Map<string, number> } {
  const nodes = new Map<string, number>();
  const edges = new Map<string, number>();
  for (const r of rows) {
    const text = (r.record.content as { text: string }).text;
    const tags = [
      ...new Set(
        text
          .split(' ')
          .filter((w) => w.startsWith('#') && /\p{L}/u.test(w))
          .map((w) => w.toLowerCase()),
      ),
    ];
    for (const t of tags) nodes.set(t, (nodes.get(t) ?? 0) + 1);
    const sorted = [...tags].sort();
    for (let a = 0; a < sorted.length; a++)
      for (let b = a + 1; b < sorted.length; b++) edges.set(`${sorted[a]}|${sorted[b]}`, (edges.get(`${sorted[a]}|${sorted[b]}`) ?? 0) + 1);
  }
  return { nodes, edges };
}

function edgeMap(g: Graph): Map<string, number> {
  const m = new Map<string, number>();
  g.forEachEdge((_e, a, s, t) => m.set([s, t].sort().join('|'), Number(a.weight)));
  return m;
}

describe('entities', () => {
  it('hashtags: case-folded, unique, at least one letter, not inside words, URLs or entities', () => {
    expect(hashtagsOf('#Food and #food, #café! #日本 #123 a#b &#39; https://x.io/#frag (#Tag_2)')).toEqual([
      'food',
      'café',
      '日本',
      'tag_2',
    ]);
    expect(hashtagsOf(null)).toEqual([]);
  });
  it('hashtags and mentions as the frequency tables find them (not inside a link; a trailing underscore kept)', () => {
    const texts = [
      'see https://h.example/p?q=#frag and #Real',
      '#2024_ wins, #2024 does not',
      'mail bob@mail.example or @Bob',
      'café #Café #cafe',
    ];
    for (const t of texts) {
      expect(hashtagsOf(t), t).toEqual([...new Set(extractTerms(t, null, ['hashtags']).hashtags)].map((x) => x.slice(1)));
      expect(mentionsOf(t), t).toEqual([...new Set(extractTerms(t, null, ['mentions']).mentions)].map((x) => x.slice(1)));
    }
    expect(hashtagsOf(texts[0])).toEqual(['real']);
    expect(hashtagsOf(texts[1])).toEqual(['2024_']);
  });

  it('mentions: handles with dots inside, not e-mail addresses', () => {
    expect(mentionsOf('hi @Alice.B. and @bob_1, mail a@b.com, @alice.b again')).toEqual(['alice.b', 'bob_1']);
  });
});

describe('networks', () => {
  const rows = corpus(400);
  const want = independentCoHashtag(rows);

  it('co-hashtag: node and edge weights equal an independent count, after a GEXF and a GraphML round trip', async () => {
    const net = buildNetwork(rows, { kind: 'co-hashtag' });
    expect(net.graph.order).toBe(want.nodes.size);
    expect(net.graph.size).toBe(want.edges.size);
    for (const [t, n] of want.nodes) expect(net.graph.getNodeAttribute(t, 'weight')).toBe(n);
    expect(edgeMap(net.graph)).toEqual(want.edges);
    expect(net.stats.items).toBe(400);

    for (const format of ['gexf', 'graphml'] as const) {
      const out = join(dir, `co.${format}`);
      await writeNetworkFile(net.graph, format, out);
      const text = readFileSync(out, 'utf8');
      const g = format === 'gexf' ? parseGexf(Graph, text) : parseGraphml(Graph, text);
      expect(g.order, format).toBe(want.nodes.size);
      expect(g.size, format).toBe(want.edges.size);
      for (const [t, n] of want.nodes) expect(Number(g.getNodeAttribute(t, 'weight')), `${format} ${t}`).toBe(n);
      expect(edgeMap(g), format).toEqual(want.edges);
    }
  });

  it('user-hashtag is bipartite; account attributes keep ids as exact strings through both formats', async () => {
    const big = '18446744073709551615';
    const rs = [
      row({ text: '#a #b', user: 'Zed', userId: big, followers: 10, name: 'Zed Z' }),
      row({ text: '#a', user: 'zed', userId: big, followers: 12 }),
      row({ text: '#b', user: 'amy', userId: '42' }),
      row({ text: 'no tags', user: 'bob', userId: '43' }),
    ];
    const net = buildNetwork(rs, { kind: 'user-hashtag' });
    const g = net.graph;
    expect(g.order).toBe(4); // zed, amy, #a, #b
    g.forEachEdge((_e, _a, s, t) => expect(g.getNodeAttribute(s, 'kind')).not.toBe(g.getNodeAttribute(t, 'kind')));
    const zed = '@micro_net:zed';
    expect(g.getNodeAttributes(zed)).toMatchObject({ kind: 'account', user_id: big, followers: 12, weight: 2 });
    expect(g.getEdgeAttribute(zed, '#a', 'weight')).toBe(2);
    for (const format of ['gexf', 'graphml'] as const) {
      const out = join(dir, `uh.${format}`);
      await writeNetworkFile(g, format, out);
      const back = format === 'gexf' ? parseGexf(Graph, readFileSync(out, 'utf8')) : parseGraphml(Graph, readFileSync(out, 'utf8'));
      expect(back.getNodeAttribute(zed, 'user_id'), format).toBe(big);
      expect(typeof back.getNodeAttribute(zed, 'user_id')).toBe('string');
    }
  });

  it('mentions: directed mention and reply edges, parents found in the rows or through the lookup, self-mentions left out', () => {
    const rs = [
      row({ id: 'p1', text: 'hello @Bob and @carol and @ann', user: 'ann' }),
      row({ id: 'c1', text: 'reply to the post', user: 'bob', parent: 'p1' }),
      row({ id: 'c2', text: 'reply to outside @ann', user: 'carol', parent: 'p-outside' }),
      row({ id: 'c3', text: 'reply to nowhere', user: 'carol', parent: 'p-missing' }),
    ];
    const net = buildNetwork(rs, {
      kind: 'mentions',
      lookupParents: (platform, ids) =>
        new Map(
          ids
            .filter((i) => i === 'p-outside')
            .map((i) => [i, { key: `${platform}:dave`, id: '77', username: 'Dave', displayName: null, followers: null }]),
        ),
    });
    const g = net.graph;
    expect(g.type).toBe('directed');
    expect(g.hasEdge('@micro_net:ann', '@micro_net:ann')).toBe(false);
    expect(g.getEdgeAttributes('@micro_net:ann', '@micro_net:bob')).toEqual({ weight: 1, mentions: 1, replies: 0 });
    expect(g.getEdgeAttributes('@micro_net:bob', '@micro_net:ann')).toEqual({ weight: 1, mentions: 0, replies: 1 });
    expect(g.getEdgeAttributes('@micro_net:carol', '@micro_net:ann')).toEqual({ weight: 1, mentions: 1, replies: 0 });
    expect(g.getEdgeAttributes('@micro_net:carol', '@micro_net:dave')).toEqual({ weight: 1, mentions: 0, replies: 1 });
    expect(net.stats.unresolvedReplies).toBe(1);
    expect(g.getNodeAttribute('@micro_net:dave', 'label')).toBe('@Dave');
  });

  it('mentions: an author is a node only when they mention, reply or are replied to — no weight-0 isolates', () => {
    const rs = [
      row({ id: 'p1', text: 'a post nobody mentions', user: 'quiet', followers: 5 }),
      row({ id: 'p2', text: 'another quiet post', user: 'quiet', followers: 9 }),
      row({ id: 'p3', text: 'replied to, mentions nobody', user: 'host', followers: 3 }),
      row({ id: 'p4', text: 'host again', user: 'host', followers: 30 }),
      row({ id: 'c1', text: 'a reply', user: 'guest', parent: 'p3' }),
      row({ id: 'm1', text: 'hi @someone', user: 'talker' }),
    ];
    const net = buildNetwork(rs, { kind: 'mentions' });
    const g = net.graph;
    expect(g.hasNode('@micro_net:quiet')).toBe(false);
    expect(g.nodes().sort()).toEqual(['@micro_net:guest', '@micro_net:host', '@micro_net:someone', '@micro_net:talker']);
    g.forEachNode((n) => expect(g.degree(n), n).toBeGreaterThan(0));
    // the replied-to author carries what all their items say (the most followers)
    expect(g.getNodeAttribute('@micro_net:host', 'followers')).toBe(30);
    expect(g.getEdgeAttributes('@micro_net:guest', '@micro_net:host')).toEqual({ weight: 1, mentions: 0, replies: 1 });
  });

  it('node label shares use effective labels (the override wins) and items are kept for click-through', () => {
    const rs = [
      row({ text: '#x', labels: { sponsored: { p: 0.9 }, intent: { label: 'complaining' } } }),
      row({ text: '#x', labels: { sponsored: { p: 0.1 }, intent: { label: 'complaining' } }, overrides: { sponsored: { p: 0.7 } } }),
      row({ text: '#x', labels: { sponsored: { p: 0.1 }, intent: { label: 'promoting' } } }),
      row({ text: '#x', labels: { sentiment: { label: 'negative' } } }),
    ];
    const net = buildNetwork(rs, { kind: 'co-hashtag', keepItems: 2 });
    expect(net.graph.getNodeAttributes('#x')).toMatchObject({
      sponsored_share: 2 / 3,
      intent_top: 'complaining',
      intent_top_share: 2 / 3,
      negative_share: 1,
      weight: 4,
    });
    expect(net.items.get('#x')).toEqual(rs.slice(0, 2).map((r) => ({ platform: r.platform, kind: r.kind, id: r.id })));
  });

  it('control characters, lone surrogates and markup in any text do not break either file', async () => {
    const nasty = 'A\u0000B\u0001C\u000bD\uFFFE\uD800E <&>"\' \t\r\n';
    const rs = [row({ text: '#one #two', user: 'x\u0007y', name: nasty }), row({ text: '#two #three', user: 'q', name: '=1+1' })];
    for (const kind of ['user-hashtag', 'co-hashtag'] as const) {
      const net = buildNetwork(rs, { kind });
      for (const format of ['gexf', 'graphml'] as const) {
        const out = join(dir, `nasty-${kind}.${format}`);
        await writeNetworkFile(net.graph, format, out);
        const text = readFileSync(out, 'utf8');
        const g = format === 'gexf' ? parseGexf(Graph, text) : parseGraphml(Graph, text);
        expect(g.order).toBe(net.graph.order);
        expect(g.size).toBe(net.graph.size);
        if (kind === 'user-hashtag') {
          const key = xmlSafe('@micro_net:x\u0007y');
          expect(g.getNodeAttribute(key, 'display_name'), format).toBe(xmlSafe(nasty)); // tab, CR and LF kept exactly
        }
      }
    }
  });
});
