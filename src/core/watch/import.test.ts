/**
 * Bulk watches (import.ts): a pasted list or a CSV → one watch per account; duplicates and
 * malformed lines reported by line, never dropped; one estimate for the whole import, checked
 * against the catalogue's price and against what the first run then really costs on the sandbox.
 */
import { describe, expect, it } from 'vitest';
import { priceOf } from '../api/catalogue';
import { applyImport, planImport, readAccountLines } from './index';
import { watchEnvs } from './test-env';

const watchEnv = watchEnvs();
const setup = () => watchEnv({ seed: 11 });

describe('reading an account list', () => {
  it('one per line: blank lines and # comments skipped, every other line kept with its number', () => {
    const r = readAccountLines('\uFEFFnasa\n\n# brands\n@esa\r\nhttps://photo-net.example/jaxa/\n');
    expect(r.column).toBeNull();
    expect(r.lines).toBe(3);
    expect(r.raw.map((x) => [x.line, x.value])).toEqual([
      [1, 'nasa'],
      [4, '@esa'],
      [5, 'https://photo-net.example/jaxa/'],
    ]);
  });

  it('a CSV: the handle / username / url column (any case, quoted cells, ; or tab), empty cells reported', () => {
    const r = readAccountLines('Name;"Username";Followers\n"NASA; the agency";nasa;100\nESA;;50\n');
    expect(r.column).toBe('username');
    expect(r.raw.map((x) => [x.line, x.value])).toEqual([[2, 'nasa']]);
    expect(r.problems).toEqual([{ line: 3, text: 'ESA;;50', reason: 'no username in this row' }]);
    expect(readAccountLines('id\tURL\n1\thttps://x.example/a\n').column).toBe('url');
  });

  it('a CSV cell quoted over several lines is one record, numbered by its first line', () => {
    const r = readAccountLines('name,handle,bio\nNASA,nasa,"space\nand more\nlines"\nESA,esa,short\n"multi\nline name",jaxa,x\n');
    expect(r.raw.map((x) => [x.line, x.value])).toEqual([
      [2, 'nasa'],
      [5, 'esa'],
      [6, 'jaxa'],
    ]);
    expect(r.problems).toEqual([]);
  });

  it('a CSV without an account column is reported on every line, nothing guessed', () => {
    const r = readAccountLines('name,followers\nnasa,100\n');
    expect(r.raw).toEqual([]);
    expect(r.problems.map((p) => p.line)).toEqual([1, 2]);
    expect(r.problems[0].reason).toContain('needs a column named handle, username or url');
  });
});

describe('importing accounts into a watchlist', () => {
  const LIST = [
    'nasa',
    '@ESA', // 2
    'nasa', // 3: same as line 1
    'https://photo-net.example/@esa', // 4: same account as line 2
    'https://photo-net.example/p/123', // 5: a post, not an account
    'two words', // 6
    'bad!handle', // 7
    '',
    '# comment',
    'jaxa', // 10
  ].join('\n');

  it('plans without writing: accounts, duplicates and problems by line, and one estimate', async () => {
    const e = await setup();
    const plan = await planImport(
      { service: e.watch, api: e.api },
      { text: LIST, platform: 'photo_net', endpoint: 'profile/posts', list: { name: 'Agencies' }, params: {} },
    );
    expect(plan.accounts.map((a) => [a.line, a.params])).toEqual([
      [1, { handle: 'nasa' }],
      [2, { handle: 'ESA' }],
      [10, { handle: 'jaxa' }],
    ]);
    expect(plan.accounts.map((a) => a.label)).toEqual(['@nasa', '@ESA', '@jaxa']);
    expect(plan.duplicates).toEqual([
      { line: 3, text: 'nasa', account: 'nasa', sameAs: 1 },
      { line: 4, text: 'https://photo-net.example/@esa', account: 'esa', sameAs: 2 },
    ]);
    expect(plan.problems.map((p) => p.line)).toEqual([5, 6, 7]);
    expect(plan.problems[0].reason).toContain("not an account's address");
    expect(plan.problems[1].reason).toContain('one account per line');
    expect(plan.problems[2].reason).toContain('not a handle');
    // every non-blank, non-comment line is accounted for
    expect(plan.accounts.length + plan.duplicates.length + plan.problems.length).toBe(plan.lines);
    // one estimate: 3 first runs of one page at the catalogue's price
    const p = priceOf(e.api.catalogue.find('photo_net', 'profile/posts')!);
    expect(plan.estimate).toMatchObject({ requests: 3, creditsMin: 3 * p.min, creditsMax: 3 * p.max, pagesPerAccount: 1 });
    expect(plan.list).toEqual({ id: null, name: 'Agencies', watches: 0 });
    expect(await e.watch.list()).toEqual([]); // nothing created
    expect(e.sb.admin.charges().length).toBe(0); // nothing spent
  });

  it("refuses another network's profile address, keeps this network's and any other host", async () => {
    const e = await setup();
    const text = [
      'https://micro-net.example/nasa',
      'https://photo-net.example/natgeo',
      'https://www.video-net-b.example/@someone',
      'https://elsewhere.example/jaxa',
    ].join('\n');
    const plan = await planImport(
      { service: e.watch, api: e.api },
      { text, platform: 'photo_net', endpoint: 'profile/posts', list: { name: 'x' }, params: {} },
    );
    expect(plan.accounts.map((a) => a.params)).toEqual([{ handle: 'natgeo' }, { handle: 'jaxa' }]);
    expect(plan.problems.map((p) => [p.line, p.reason])).toEqual([
      [1, "an address on micro-net.example, another network's (micro_net), not photo_net's: import it into a watch of micro_net"],
      [3, "an address on www.video-net-b.example, another network's (video_net_b), not photo_net's: import it into a watch of video_net_b"],
    ]);
  });

  it('creates the list; a second import into it reports what it already watches; the first run costs what was estimated', async () => {
    const e = await setup();
    const deps = { service: e.watch, api: e.api };
    const r = await applyImport(deps, {
      text: LIST,
      platform: 'photo_net',
      endpoint: 'profile/posts',
      list: { name: 'Agencies' },
      firstRunPages: 2,
    });
    expect(r.added).toBe(3);
    expect(r.watchlist.watches.map((w) => w.params.handle)).toEqual(['nasa', 'ESA', 'jaxa']);
    expect(r.watchlist.firstRunPages).toBe(2);
    expect(r.plan.estimate.requests).toBe(6);

    const again = await planImport(deps, {
      text: 'NASA\nhttps://photo-net.example/kari\n',
      platform: 'photo_net',
      endpoint: 'profile/posts',
      list: { id: r.watchlist.id },
    });
    expect(again.duplicates).toEqual([{ line: 1, text: 'NASA', account: 'NASA', sameAs: null }]); // already in the list
    expect(again.accounts.map((a) => a.params)).toEqual([{ handle: 'kari' }]);
    expect(again.estimate.pagesPerAccount).toBe(2); // the list's first-run depth
    const more = await applyImport(deps, {
      text: 'NASA\nhttps://photo-net.example/kari\n',
      platform: 'photo_net',
      endpoint: 'profile/posts',
      list: { id: r.watchlist.id },
    });
    expect(more.watchlist.watches.map((w) => w.params.handle)).toEqual(['nasa', 'ESA', 'jaxa', 'kari']);
    await expect(
      applyImport(deps, { text: 'nasa\n@kari', platform: 'photo_net', endpoint: 'profile/posts', list: { id: r.watchlist.id } }),
    ).rejects.toThrow(/Nothing to import: every account is already in the list/);

    // the estimate of the first run and what it costs: within the range, request for request
    const est = (
      await planImport(deps, {
        text: 'nasa\nESA\njaxa\nkari',
        platform: 'photo_net',
        endpoint: 'profile/posts',
        list: { name: 'fresh' },
        firstRunPages: 2,
      })
    ).estimate;
    const run = await e.watch.run(r.watchlist.id, { approved: true });
    expect(run.creditsSpent).toBeGreaterThanOrEqual(est.creditsMin);
    expect(run.creditsSpent).toBeLessThanOrEqual(est.creditsMax);
    expect(e.sb.admin.charges().filter((c) => c.charge_reason !== 'dry_run').length).toBeLessThanOrEqual(est.requests);
  });

  it('a profile address with a /user/, /u/ or /in/ segment names the account after it; an address written without https:// is one', async () => {
    const e = await setup();
    const text = ['https://forum-net.example/user/alice', 'forum-net.example/u/bob', 'www.forum-net.example/carol/'].join('\n');
    const plan = await planImport(
      { service: e.watch, api: e.api },
      { text, platform: 'forum_net', endpoint: 'profile/posts', list: { name: 'x' } },
    );
    expect(plan.problems).toEqual([]);
    expect(plan.accounts.map((a) => a.params)).toEqual([{ handle: 'alice' }, { handle: 'bob' }, { handle: 'carol' }]);
  });

  it('an endpoint that takes addresses only refuses handles with that reason; a single-answer endpoint is refused whole', async () => {
    const e = await setup();
    const deps = { service: e.watch, api: e.api };
    await e.api.catalogue.load();
    expect(e.api.catalogue.find('work_net', 'profile/posts')?.params.map((p) => p.name)).not.toContain('handle');
    const plan = await planImport(deps, {
      text: 'somebody\nhttps://work-net.example/in/somebody\n',
      platform: 'work_net',
      endpoint: 'profile/posts',
      list: { name: 'x' },
    });
    expect(plan.problems).toEqual([
      { line: 1, text: 'somebody', reason: expect.stringContaining('takes a profile address (url), not a handle') },
    ]);
    expect(plan.accounts.map((a) => [a.line, a.params, a.label])).toEqual([
      [2, { url: 'https://work-net.example/in/somebody' }, 'https://work-net.example/in/somebody'],
    ]);
    await expect(planImport(deps, { text: 'nasa', platform: 'photo_net', endpoint: 'profile', list: { name: 'x' } })).rejects.toThrow(
      /not a list/,
    );
    await expect(planImport(deps, { text: 'nasa', platform: 'photo_net', endpoint: 'no/such', list: { name: 'x' } })).rejects.toThrow(
      /not in the catalogue/,
    );
  });
});
