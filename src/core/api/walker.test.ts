import { afterEach, describe, expect, it } from 'vitest';
import { createApiCore } from './core';
import {
  InstantClock,
  MemoryStore,
  TEST_KEY,
  errEnvelope,
  okEnvelope,
  postItems,
  startFakeApi,
  testCatalogue,
  type FakeApi,
  type FakeReply,
  type FakeRequest,
} from './test-helpers';

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** Cursor with characters that need URL encoding: it must travel byte for byte. */
const cur = (n: number) => `sdr_c:p${n}+/=&?x y%2F`;
const pageOf = (c: string | undefined, param = 'cursor'): number => {
  if (c === undefined) return 1;
  const m = /^sdr_c:p(\d+)\+\/=&\?x y%2F$/.exec(c);
  if (!m) throw new Error(`cursor was changed in transit (${param}): ${c}`);
  return Number(m[1]);
};

function page(platform: string, endpoint: string, ids: string[], next: string | null, hasMore: boolean, extra: Record<string, unknown> = {}) {
  return okEnvelope(platform, endpoint, { items: postItems(ids), total: 0, truncated: false, ext: {} }, {
    pagination: { next_cursor: next, has_more: hasMore, page_size: ids.length, ...(extra.stopped_at !== undefined ? { stopped_at: extra.stopped_at } : {}) },
    credits_used: ids.length ? 20 : 0,
  });
}

/** A feed of `pages` pages; `empty` pages carry no items but has_more stays true. */
function feed(pages: number, opts: { empty?: number[]; param?: string; platform?: string; endpoint?: string } = {}) {
  const param = opts.param ?? 'next_max_id'; // the native parameter photo_net/profile/posts lists
  const platform = opts.platform ?? 'photo_net';
  const endpoint = opts.endpoint ?? 'profile/posts';
  return (r: FakeRequest): FakeReply => {
    const n = pageOf(r.query[param], param);
    const ids = opts.empty?.includes(n) ? [] : [`${n}01`, `${n}02`, `${n}03`];
    const last = n >= pages;
    return { body: page(platform, endpoint, ids, last ? null : cur(n + 1), !last) };
  };
}

async function setup(handle: (r: FakeRequest) => FakeReply | Promise<FakeReply>, store = new MemoryStore()) {
  api = await startFakeApi({ catalogue: testCatalogue(), handle });
  if (!store.getBalance()) store.setBalance(100_000, 0);
  const core = createApiCore({ baseUrl: api.url, getKey: () => TEST_KEY, store, clock: new InstantClock(), random: () => 0.5 });
  return { core, store, api };
}

const posts = { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'alice' } };

describe('walker', () => {
  it('follows next_cursor byte for byte and continues through empty pages until has_more is false', async () => {
    const { core, store, api } = await setup(feed(5, { empty: [2, 3] }));
    const progress: number[] = [];
    core.events.on('walk-progress', (p) => progress.push(p.pagesDone));
    const r = await core.walk(posts);
    expect(r.status).toBe('done');
    expect(r.stopReason).toBe('end');
    expect(r.pagesDone).toBe(5);
    expect(r.itemsSeen).toBe(9);
    expect(r.creditsSpent).toBe(60);
    const cursors = api.dataRequests().map((q) => q.query.next_max_id);
    expect(cursors).toEqual([undefined, cur(2), cur(3), cur(4), cur(5)]);
    expect(api.dataRequests()[1].rawQuery).toContain(`next_max_id=${encodeURIComponent(cur(2)).replace(/%20/g, '+')}`);
    expect(api.dataRequests().every((q) => q.query.handle === 'alice')).toBe(true);
    expect(store.items.size).toBe(9);
    expect(store.getWalk(r.walkId)).toMatchObject({ status: 'done', pagesDone: 5, cursor: null });
    expect(progress).toContain(5);
    expect(store.ledger.every((l) => l.walkId === r.walkId)).toBe(true);
  });

  it('stops with an error on a repeated cursor', async () => {
    const { core, api } = await setup((r) => {
      const n = pageOf(r.query.next_max_id);
      return { body: page('photo_net', 'profile/posts', [`${n}1`], cur(n === 3 ? 2 : n + 1), true) };
    });
    const r = await core.walk(posts);
    expect(r.status).toBe('failed');
    expect(r.stopReason).toBe('error:REPEATED_CURSOR');
    expect(r.error?.type).toBe('REPEATED_CURSOR');
    expect(api.dataRequests()).toHaveLength(3);
  });

  it('uses the native paging parameter the catalogue lists, and one style for the whole walk', async () => {
    const { core, api } = await setup(feed(3, { param: 'continuationToken', platform: 'video_net', endpoint: 'channel/videos' }));
    const r = await core.walk({ platform: 'video_net', endpoint: 'channel/videos', params: { handle: 'c' } });
    expect(r.status).toBe('done');
    expect(r.state.cursorParam).toBe('continuationToken');
    const reqs = api.dataRequests();
    expect(reqs.map((q) => q.query.continuationToken)).toEqual([undefined, cur(2), cur(3)]);
    expect(reqs.every((q) => q.query.cursor === undefined)).toBe(true);
  });

  it('keeps `cursor` where the only native parameter is an integer page number', async () => {
    const { core } = await setup(feed(1));
    await core.catalogue.load();
    const { pagingParamOf } = await import('./catalogue');
    expect(pagingParamOf(core.catalogue.find('photo_net', 'search/reels')!)).toBe('cursor');
    expect(pagingParamOf(core.catalogue.find('photo_net', 'profile/posts')!)).toBe('next_max_id');
  });

  it('sends since / stop_at_id / max_pages on every page and reports the boundary', async () => {
    const { core, api } = await setup((r) => {
      const n = pageOf(r.query.next_max_id, 'next_max_id');
      if (n < 3) return { body: page('photo_net', 'profile/posts', [`${n}1`], cur(n + 1), true) };
      return { body: page('photo_net', 'profile/posts', [`${n}1`], null, false, { stopped_at: 'known_id' }) };
    });
    const params = { handle: 'alice', since: '2024-01-01', stop_at_id: '777', max_pages: '2' };
    const r = await core.walk({ ...posts, params });
    expect(r.status).toBe('done');
    expect(r.stopReason).toBe('known_id');
    expect(r.stoppedAt).toBe('known_id');
    const reqs = api.dataRequests();
    expect(reqs).toHaveLength(3);
    for (const q of reqs) expect(q.query).toMatchObject(params);
  });

  it('stops at maxPages and before a page whose hold would pass maxCredits', async () => {
    const a = await setup(feed(10));
    const r1 = await a.core.walk(posts, { maxPages: 2 });
    expect(r1).toMatchObject({ status: 'paused', stopReason: 'page_limit', pagesDone: 2 });
    await api?.close();
    const b = await setup(feed(10));
    // hold per page 340, each page charges 20: spent 0, 20, 40 leave room for a hold; 60 + 340 > 380 stops
    const r2 = await b.core.walk(posts, { maxCredits: 380 });
    expect(r2).toMatchObject({ status: 'paused', stopReason: 'credit_limit', pagesDone: 3 });
    expect(b.api.dataRequests()).toHaveLength(3);
  });

  it('retries the same cursor on 429 / 503 and never skips a page', async () => {
    const seen = new Map<number, number>();
    const { core, api } = await setup((r) => {
      const n = pageOf(r.query.next_max_id, 'next_max_id');
      seen.set(n, (seen.get(n) ?? 0) + 1);
      if (n === 2 && seen.get(n) === 1) return { status: 429, body: errEnvelope('RATE_LIMITED'), headers: { 'retry-after': '2' } };
      if (n === 3 && seen.get(n) === 1) return { status: 503, body: errEnvelope('UPSTREAM_ERROR'), headers: { 'retry-after': '5' } };
      return feed(4, { param: 'next_max_id' })(r);
    });
    const r = await core.walk(posts);
    expect(r.pagesDone).toBe(4);
    expect(r.itemsSeen).toBe(12);
    expect(api.dataRequests().map((q) => pageOf(q.query.next_max_id))).toEqual([1, 2, 2, 3, 3, 4]);
  });

  it('fails the walk on a refused page and keeps the position', async () => {
    const { core } = await setup((r) => {
      const n = pageOf(r.query.next_max_id, 'next_max_id');
      if (n === 2) return { status: 400, body: errEnvelope('INVALID_REQUEST', 'cursor expired') };
      return feed(4, { param: 'next_max_id' })(r);
    });
    const r = await core.walk(posts);
    expect(r).toMatchObject({ status: 'failed', stopReason: 'error:INVALID_REQUEST', pagesDone: 1, cursor: cur(2) });
    expect(r.error?.requestId).toMatch(/^req_/);
  });
});

describe('resume', () => {
  it('resumes a cancelled walk from the saved cursor, re-sending the in-flight page with the same Idempotency-Key', async () => {
    const ac = new AbortController();
    const firstKeyOfPage = new Map<number, string>();
    let replays = 0;
    const handler = async (r: FakeRequest): Promise<FakeReply> => {
      const n = pageOf(r.query.next_max_id, 'next_max_id');
      const k = String(r.headers['idempotency-key']);
      if (!firstKeyOfPage.has(n)) firstKeyOfPage.set(n, k);
      // decided on arrival: a second request with a page's first key is a replay
      const isReplay = firstKeyOfPage.get(n) === k && api!.dataRequests().filter((q) => q.headers['idempotency-key'] === k).length > 1;
      if (n === 3 && !ac.signal.aborted) {
        // page 3 is in flight when the user cancels (the process could as well be killed)
        ac.abort();
        await new Promise((res) => setTimeout(res, 50));
      }
      const reply = feed(5, { param: 'next_max_id' })(r) as { body: Record<string, unknown> };
      if (isReplay) {
        replays++;
        reply.body = { ...reply.body, idempotent_replay: true, charge_reason: 'replay', credits_used: 0 };
      }
      return reply;
    };
    const store = new MemoryStore();
    const { core, api: a } = await setup(handler, store);
    const r1 = await core.walk(posts, { signal: ac.signal });
    expect(r1.status).toBe('cancelled');
    expect(r1.pagesDone).toBe(2);
    expect(store.getWalk(r1.walkId)).toMatchObject({ status: 'cancelled', cursor: cur(3), pagesDone: 2 });
    expect(store.pendingJournal().map((j) => j.opKey)).toEqual([`walk:${r1.walkId}:page:3`]);

    // a new process: new core over the same store
    const core2 = createApiCore({ baseUrl: a.url, getKey: () => TEST_KEY, store, clock: new InstantClock() });
    const r2 = await core2.resumeWalk(r1.walkId);
    expect(r2).toMatchObject({ status: 'done', pagesDone: 5, itemsSeen: 15 });
    const pages = a.dataRequests().map((q) => pageOf(q.query.next_max_id));
    expect(pages).toEqual([1, 2, 3, 3, 4, 5]); // only the in-flight page twice
    const reqs = a.dataRequests();
    expect(reqs[3].headers['idempotency-key']).toBe(reqs[2].headers['idempotency-key']);
    expect(replays).toBe(1);
    expect(store.items.size).toBe(15);
    expect(store.pendingJournal()).toHaveLength(0);
  });

  it('ends with the same archive as an uninterrupted walk', async () => {
    const full = await setup(feed(4, { param: 'next_max_id' }));
    const r = await full.core.walk(posts);
    const fullItems = [...full.store.items.keys()].sort();
    expect(r.itemsSeen).toBe(12);
    await api?.close();

    const store = new MemoryStore();
    const part = await setup(feed(4, { param: 'next_max_id' }), store);
    const p1 = await part.core.walk(posts, { maxPages: 2 });
    expect(p1.status).toBe('paused');
    const p2 = await part.core.resumeWalk(p1.walkId);
    expect(p2.status).toBe('done');
    expect([...store.items.keys()].sort()).toEqual(fullItems);
    expect(part.api.dataRequests()).toHaveLength(4);
  });

  it('refuses to resume an unknown walk', async () => {
    const { core } = await setup(feed(1));
    await expect(core.resumeWalk('nope')).rejects.toMatchObject({ kind: 'validation' });
  });
});
