/**
 * Planning (plan.ts, inputs.ts, sources.ts, price.ts): lists written the way analysts write them
 * resolve line by line with nothing dropped; the plan is priced as a whole before anything is
 * spent — floor and ceiling × pages, pages the archive holds inside their cache window free, a
 * collect-until-N limit priced by one free quote per call shape — and a search fans out over several
 * networks in one plan; a saved set fans out to its posts' comments, top K by engagement.
 */
import { describe, expect, it } from 'vitest';
import { priceOf } from '../api/catalogue';
import { collectEnvs } from './test-env';

const env = collectEnvs();

const MESSY = [
  '\uFEFFnasa', // 1
  '@ESA', // 2
  '', // blank
  'https://photo-net.example/nasa/', // 4: same account as line 1
  'photo-net.example/@esa?utm_source=x', // 5: same as line 2 (mixed form)
  'https://micro-net.example/jaxa', // 6: another network's address
  'https://photo-net.example/p/Cx1aB/', // 7: a post, not an account
  '# a comment',
  'two words', // 9
  'HTTP://WWW.PHOTO-NET.EXAMPLE/natgeo', // 10
  'nasa', // 11: duplicate of 1
].join('\r\n');

describe('a list resolved line by line', () => {
  it('accounts: @handles, mixed address forms, duplicates, other networks, posts and blank lines — every line accounted for, nothing spent', async () => {
    const e = await env();
    const d = e.design({ name: 'Agencies', source: { type: 'text', text: MESSY }, do: 'feed', networks: ['photo_net'], pages: 2 });
    const plan = await e.collect.preview(d);
    expect(plan.sample.map((i) => [i.line, i.params.handle])).toEqual([
      [1, 'nasa'],
      [2, 'ESA'],
      [10, 'natgeo'],
    ]);
    expect(plan.duplicates.map((x) => [x.line, x.sameAs])).toEqual([
      [4, 1],
      [5, 2],
      [11, 1],
    ]);
    expect(plan.problems.map((p) => p.line)).toEqual([6, 7, 9]);
    expect(plan.problems[0].reason).toContain("another network's (micro_net)");
    expect(plan.problems[1].reason).toContain("a post's address, not an account's");
    expect(plan.read).toBe(9);
    expect(plan.inputs + plan.duplicates.length + plan.problems.length).toBe(plan.read);
    expect(e.sb.admin.charges()).toEqual([]); // planning spends nothing
    expect(e.collect.list()).toEqual([]); // and writes nothing
  });

  it('prices the whole plan: pages × floor and ceiling, requests by max_pages, the pacer’s time', async () => {
    const e = await env();
    const plan = await e.collect.preview(
      e.design({ name: 'x', source: { type: 'text', text: 'a\nb\nc' }, do: 'feed', networks: ['photo_net'], pages: 3 }),
    );
    const p = priceOf(e.api.catalogue.find('photo_net', 'profile/posts')!);
    // photo_net profile/posts takes no max_pages: a request a page
    expect(plan.figures).toMatchObject({ creditsMin: 9 * p.min, creditsMax: 9 * p.max, pages: 9, requests: 9, heldPages: 0 });
    expect(plan.figures.creditsLikely).toBe(9 * p.min); // no history yet: the floor
    expect(plan.figures.etaMs).toBeGreaterThanOrEqual(0);
    expect(plan.curves.depth.find((c) => c.x === 1)).toMatchObject({ creditsMin: 3 * p.min, creditsMax: 3 * p.max });
    expect(plan.curves.depth.find((c) => c.x === 3)).toMatchObject({ creditsMin: 9 * p.min, creditsMax: 9 * p.max });
    expect(plan.byNetwork).toEqual([
      expect.objectContaining({ platform: 'photo_net', endpoint: 'profile/posts', inputs: 3, creditsMax: 9 * p.max }),
    ]);
  });

  it('a search fans out over several networks in one plan; a network without a search is said once', async () => {
    const e = await env();
    const text = 'running shoes\n"trail shoes", waterproof\nrunning shoes\nhttps://micro-net.example/x\n';
    const plan = await e.collect.preview(
      e.design({
        name: 's',
        source: { type: 'text', text },
        do: 'search',
        networks: ['micro_net', 'forum_net', 'pin_net', 'social_net'],
        pages: 2,
      }),
    );
    expect(plan.sample.map((i) => `${i.platform}/${i.endpoint}:${Object.values(i.params)[0]}`)).toEqual([
      'micro_net/search/tweets:running shoes',
      'forum_net/search:running shoes',
      'pin_net/search:running shoes',
      'micro_net/search/tweets:"trail shoes", waterproof',
      'forum_net/search:"trail shoes", waterproof',
      'pin_net/search:"trail shoes", waterproof',
    ]);
    expect(plan.duplicates.map((d) => [d.line, d.sameAs])).toEqual([[3, 1]]);
    expect(plan.problems.map((p) => p.line)).toEqual([4]);
    expect(plan.warnings.join(' ')).toContain('social_net has no endpoint for a search of posts');
    expect(plan.byNetwork.map((n) => n.platform).sort()).toEqual(['forum_net', 'micro_net', 'pin_net']);
    await expect(e.collect.preview(e.design({ name: 's', source: { type: 'text', text }, do: 'search' }))).rejects.toThrow(
      /Choose the networks/,
    );
  });

  it('comments of posts given by address on their own networks; an account address or a bare id is a problem with its reason', async () => {
    const e = await env();
    const text = [
      'post_url,note',
      'https://photo-net.example/p/AAA1/,x',
      'https://micro-net.example/kari/status/1790000000000000001,y',
      'https://photo-net.example/nasa,z',
      '12345,w',
    ].join('\n');
    const plan = await e.collect.preview(e.design({ name: 'c', source: { type: 'text', text }, do: 'comments', pages: 2 }));
    expect(plan.column).toBe('post_url');
    expect(plan.sample.map((i) => [i.line, i.platform, i.endpoint, i.params])).toEqual([
      [2, 'photo_net', 'post/comments', { url: 'https://photo-net.example/p/AAA1/', sort: 'recent' }],
      [3, 'micro_net', 'tweet/replies', { url: 'https://micro-net.example/kari/status/1790000000000000001' }],
    ]);
    expect(plan.problems.map((p) => [p.line, p.reason])).toEqual([
      [4, expect.stringContaining("an account's address, not a post's")],
      [5, expect.stringContaining('a post id alone does not say which network')],
    ]);
  });
});

describe('pricing against the archive and the service', () => {
  it('pages the archive holds inside their cache window are free; a held list that ended costs nothing more', async () => {
    const e = await env();
    await e.api.walk({ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'heldone' } }, { maxPages: 2, source: 'test' });
    const p = priceOf(e.api.catalogue.find('photo_net', 'profile/posts')!);
    // the walk's two pages are the plan's first two calls of that account
    const plan = await e.collect.preview(
      e.design({ name: 'h', source: { type: 'text', text: 'heldone\nfresh' }, do: 'feed', networks: ['photo_net'], pages: 2 }),
    );
    expect(plan.figures.heldPages).toBe(2);
    expect(plan.figures).toMatchObject({ creditsMin: 2 * p.min, creditsMax: 2 * p.max, requests: 2 });
    expect(plan.sample[0].estimate).toMatchObject({ heldPages: 2, creditsMin: 0, creditsMax: 0 });
    // a profile read inside its window: held, and one answer (nothing more to pay)
    await e.api.call({ platform: 'micro_net', endpoint: 'profile', params: { handle: 'kari' } }, { source: 'test' });
    const prof = await e.collect.preview(
      e.design({ name: 'p', source: { type: 'text', text: '@kari\n@other' }, do: 'profile', networks: ['micro_net'] }),
    );
    expect(prof.sample.map((i) => i.estimate.creditsMax)).toEqual([0, 20]);
  });

  it('a collect-until-N limit is priced by the service’s free quote, one per call shape, reused', async () => {
    const e = await env();
    const text = 'alpha\nbeta\ngamma\ndelta';
    const plan = await e.collect.preview(
      e.design({ name: 'q', source: { type: 'text', text }, do: 'search', networks: ['thread_net'], params: { limit: '60' } }),
    );
    const dry = e.sb.admin.charges().filter((c) => c.charge_reason === 'dry_run');
    expect(dry.length).toBe(1);
    expect(plan.quotes).toBe(1);
    const q = dry[0];
    expect(q.params.limit).toBe('60');
    const ep = priceOf(e.api.catalogue.find('thread_net', 'search')!);
    // ceil(60 / 20 a page) = 3 pages a call (the quote says so), each at most the ceiling: 4 calls
    expect(plan.figures).toMatchObject({ creditsMin: 4 * 3 * ep.min, creditsMax: 4 * 3 * ep.max, requests: 4 });
    // the quote is kept with a saved plan and not asked again
    await e.collect.create(
      e.design({ name: 'q', source: { type: 'text', text }, do: 'search', networks: ['thread_net'], params: { limit: '60' } }),
    );
    await e.collect.create(
      e.design({
        name: 'q',
        source: { type: 'text', text: `${text}\nepsilon` },
        do: 'search',
        networks: ['thread_net'],
        params: { limit: '60' },
      }),
    );
    expect(e.sb.admin.charges().filter((c) => c.charge_reason === 'dry_run').length).toBe(2);
    expect(e.sb.admin.charges().filter((c) => c.credits_used > 0)).toEqual([]);
  });

  it('the introductory free calls left come off the minimum and the likely figure, never the maximum', async () => {
    const e = await env({ freeCalls: 3 });
    const plan = await e.collect.preview(
      e.design({ name: 'f', source: { type: 'text', text: 'a\nb\nc\nd\ne' }, do: 'profile', networks: ['micro_net'] }),
    );
    expect(plan.figures).toMatchObject({ creditsMin: 2 * 20, creditsLikely: 2 * 20, creditsMax: 5 * 20, freeCalls: 3 });
  });
});

describe('a saved set fanned out', () => {
  it('comments of each post of a set, top K by likes: the K best, the curve over every K, the rest counted', async () => {
    const e = await env();
    await e.api.walk({ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'fanout' } }, { maxPages: 1, source: 'seed' });
    const set = e.archive.saveResultSet('Fanout posts', { source: { type: 'source', id: 'seed' } });
    const rows = e.archive.listQuery({ source: { type: 'source', id: 'seed' }, limit: 1000 }).rows.filter((r) => r.kind === 'post');
    const byLikes = [...rows].sort((a, b) => (b.engagement.likes ?? 0) - (a.engagement.likes ?? 0));
    const plan = await e.collect.preview(
      e.design({ name: 'fan', source: { type: 'set', id: set.id }, do: 'comments', topK: { n: 3, by: 'likes' } }),
    );
    expect(plan.inputs).toBe(3);
    expect(plan.belowTopK).toBe(rows.length - 3);
    expect(plan.sample.map((i) => i.params.url)).toEqual(byLikes.slice(0, 3).map((r) => r.url));
    expect(plan.sample.map((i) => i.rank)).toEqual(byLikes.slice(0, 3).map((r) => r.engagement.likes ?? 0));
    const curve = plan.curves.topK!;
    expect(curve[curve.length - 1].x).toBe(rows.length);
    expect(curve.find((c) => c.x === 3)?.creditsMax).toBe(plan.figures.creditsMax);
    expect(curve.map((c) => c.creditsMax)).toEqual([...curve.map((c) => c.creditsMax)].sort((a, b) => a - b));
  });
});

describe('calls handed over as they are (another caller: a dataset’s re-reads)', () => {
  it('endpoint + params + pages priced with the same machinery; unknown endpoints and bad params are problems', async () => {
    const e = await env();
    const plan = await e.collect.preview(
      e.design({
        name: 'dataset re-read',
        source: {
          type: 'calls',
          calls: [
            { platform: 'micro_net', endpoint: 'user/tweets', params: { handle: 'kari' }, pages: 2 },
            { platform: 'micro_net', endpoint: 'profile', params: { handle: 'kari' } },
            { platform: 'micro_net', endpoint: 'no/such', params: {} },
            { platform: 'photo_net', endpoint: 'profile/posts', params: {} },
          ],
        },
      }),
    );
    expect(plan.inputs).toBe(2);
    expect(plan.problems.map((p) => p.line)).toEqual([3, 4]);
    const ut = priceOf(e.api.catalogue.find('micro_net', 'user/tweets')!);
    expect(plan.figures.creditsMax).toBe(2 * ut.max + 20);
    expect(plan.sample[0].feed).toBe(true);
  });
});
