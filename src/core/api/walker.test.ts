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

function page(
  platform: string,
  endpoint: string,
  ids: string[],
  next: string | null,
  hasMore: boolean,
  extra: Record<string, unknown> = {},
) {
  return okEnvelope(
    platform,
    endpoint,
    { items: postItems(ids), total: 0, truncated: false, ext: {} },
    {
      pagination: {
        next_cursor: next,
        has_more: hasMore,
        page_size: ids.length,
        ...(extra.stopped_at !== undefined ? { stopped_at: extra.stopped_at } : {}),
      },
      credits_used: ids.length ? 20 : 0,
    },
  );
}

/** A feed of `pages` pages; `empty` pages carry no items but has_more stays true. */
function feed(pages: number, opts: { empty?: number[]; param?: string; platform?: string; endpoint?: string } = {}) {
  const param = opts.param ?? 'cursor'; // Pagination rule 1: next_cursor goes back as `cursor`
  const platform = opts.platform ?? 'photo_net';
  const endpoint = opts.endpoint ?? 'profile/posts';
  return (r: FakeRequest): FakeReply => {
    const n = pageOf(r.query[param], param);
    const ids = opts.empty?.includes(n) ? [] : [`${n}01`, `${n}02`, `${n}03`];
    const last = n >= pages;
    return { body: page(platform, endpoint, ids, last ? null : cur(n + 1), !last) };
  };
}

async function setup(
  handle: (r: FakeRequest) => FakeReply | Promise<FakeReply>,
  store = new MemoryStore(),
  credits?: () => unknown,
  cancelGraceMs?: number,
) {
  api = await startFakeApi({ catalogue: testCatalogue(), handle, credits });
  if (!store.getBalance()) store.setBalance(100_000, 0);
  const core = createApiCore({
    baseUrl: api.url,
    getKey: () => TEST_KEY,
    store,
    clock: new InstantClock(),
    random: () => 0.5,
    ...(cancelGraceMs !== undefined ? { cancelGraceMs } : {}),
  });
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
    const cursors = api.dataRequests().map((q) => q.query.cursor);
    expect(cursors).toEqual([undefined, cur(2), cur(3), cur(4), cur(5)]);
    expect(api.dataRequests()[1].rawQuery).toContain(`cursor=${encodeURIComponent(cur(2)).replace(/%20/g, '+')}`);
    expect(api.dataRequests().every((q) => q.query.next_max_id === undefined)).toBe(true);
    expect(api.dataRequests().every((q) => q.query.handle === 'alice')).toBe(true);
    expect(store.items.size).toBe(9);
    expect(store.getWalk(r.walkId)).toMatchObject({ status: 'done', pagesDone: 5, cursor: null });
    expect(progress).toContain(5);
    expect(store.ledger.every((l) => l.walkId === r.walkId)).toBe(true);
  });

  it('stops with an error on a repeated cursor', async () => {
    const { core, api } = await setup((r) => {
      const n = pageOf(r.query.cursor);
      return { body: page('photo_net', 'profile/posts', [`${n}1`], cur(n === 3 ? 2 : n + 1), true) };
    });
    const r = await core.walk(posts);
    expect(r.status).toBe('failed');
    expect(r.stopReason).toBe('error:REPEATED_CURSOR');
    expect(r.error?.type).toBe('REPEATED_CURSOR');
    expect(api.dataRequests()).toHaveLength(3);
  });

  it('sends next_cursor as `cursor` where the entry lists it beside a native parameter (one style per walk)', async () => {
    const { core, api } = await setup(feed(3, { platform: 'video_net', endpoint: 'channel/videos' }));
    const r = await core.walk({ platform: 'video_net', endpoint: 'channel/videos', params: { handle: 'c' } });
    expect(r.status).toBe('done');
    expect(r.state.cursorParam).toBe('cursor');
    const reqs = api.dataRequests();
    expect(reqs.map((q) => q.query.cursor)).toEqual([undefined, cur(2), cur(3)]);
    expect(reqs.every((q) => q.query.continuationToken === undefined)).toBe(true);
  });

  it('tries `cursor` first where the entry lists only a native parameter, and keeps it when the service takes it', async () => {
    const { core, api } = await setup(feed(3, { platform: 'video_net', endpoint: 'search/hashtag' }));
    const r = await core.walk({ platform: 'video_net', endpoint: 'search/hashtag', params: { hashtag: 'x' } });
    expect(r).toMatchObject({ status: 'done', pagesDone: 3 });
    expect(api.dataRequests().map((q) => q.query.cursor)).toEqual([undefined, cur(2), cur(3)]);
  });

  it('switches to the native parameter for the rest of the walk when the service refuses `cursor` (free 400)', async () => {
    const { core, api } = await setup((r) => {
      if (r.query.cursor !== undefined) return { status: 400, body: errEnvelope('INVALID_REQUEST', 'unknown parameter cursor') };
      return feed(4, { param: 'continuationToken', platform: 'video_net', endpoint: 'search/hashtag' })(r);
    });
    const r = await core.walk({ platform: 'video_net', endpoint: 'search/hashtag', params: { hashtag: 'x' } });
    expect(r).toMatchObject({ status: 'done', pagesDone: 4, itemsSeen: 12 });
    expect(r.state.cursorParam).toBe('continuationToken');
    const reqs = api.dataRequests();
    expect(reqs.map((q) => [q.query.cursor, q.query.continuationToken])).toEqual([
      [undefined, undefined],
      [cur(2), undefined],
      [undefined, cur(2)],
      [undefined, cur(3)],
      [undefined, cur(4)],
    ]);
    expect(r.notes.join(' ')).toMatch(/continuationToken/);
  });

  it('knows the native parameter of an entry, integer page last', async () => {
    const { core } = await setup(feed(1));
    await core.catalogue.load();
    const { nativePagingParamOf } = await import('./catalogue');
    expect(nativePagingParamOf(core.catalogue.find('photo_net', 'search/reels')!)).toBe('page');
    expect(nativePagingParamOf(core.catalogue.find('photo_net', 'profile/posts')!)).toBe('next_max_id');
    expect(nativePagingParamOf(core.catalogue.find('photo_net', 'profile/reels')!)).toBeNull();
  });

  it('sends since / stop_at_id / max_pages on every page and reports the boundary', async () => {
    const { core, api } = await setup((r) => {
      const n = pageOf(r.query.cursor);
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
      const n = pageOf(r.query.cursor);
      seen.set(n, (seen.get(n) ?? 0) + 1);
      if (n === 2 && seen.get(n) === 1) return { status: 429, body: errEnvelope('RATE_LIMITED'), headers: { 'retry-after': '2' } };
      if (n === 3 && seen.get(n) === 1) return { status: 503, body: errEnvelope('UPSTREAM_ERROR'), headers: { 'retry-after': '5' } };
      return feed(4)(r);
    });
    const r = await core.walk(posts);
    expect(r.pagesDone).toBe(4);
    expect(r.itemsSeen).toBe(12);
    expect(api.dataRequests().map((q) => pageOf(q.query.cursor))).toEqual([1, 2, 2, 3, 3, 4]);
  });

  it('starts again without the cursor when a page sent with one is refused with any free 4xx, and never loops', async () => {
    const refused = new Set<number>();
    const { core, api } = await setup((r) => {
      const n = pageOf(r.query.cursor);
      // page 3's cursor is refused once (an unnamed type, not INVALID_CURSOR), then accepted
      if (n === 3 && !refused.has(3)) {
        refused.add(3);
        return { status: 410, body: errEnvelope('CURSOR_GONE', 'expired') };
      }
      return feed(4)(r);
    });
    const warnings: string[] = [];
    core.events.on('warning', (w) => warnings.push(w.code));
    const r = await core.walk(posts);
    expect(r).toMatchObject({ status: 'done', stopReason: 'end' });
    expect(api.dataRequests().map((q) => pageOf(q.query.cursor))).toEqual([1, 2, 3, 1, 2, 3, 4]);
    expect(warnings).toContain('cursor_rejected');
    expect(r.notes.join(' ')).toMatch(/started again from the first page/);
  });

  it('fails (no loop) when the same position is refused again after starting over', async () => {
    const { core, api } = await setup((r) => {
      const n = pageOf(r.query.cursor);
      if (n === 2) return { status: 400, body: errEnvelope('BAD_REQUEST', 'cursor expired') };
      return feed(4)(r);
    });
    const r = await core.walk(posts);
    expect(r).toMatchObject({ status: 'failed', stopReason: 'error:BAD_REQUEST', cursor: cur(2) });
    expect(r.error?.requestId).toMatch(/^req_/);
    expect(api.dataRequests().map((q) => pageOf(q.query.cursor))).toEqual([1, 2, 1, 2]);
  });

  it('does not start over for refusals page 1 would get too (key, credits)', async () => {
    const { core, api } = await setup((r) => {
      const n = pageOf(r.query.cursor);
      if (n === 2) return { status: 402, body: errEnvelope('INSUFFICIENT_CREDITS', 'hold 340') };
      return feed(4)(r);
    });
    const r = await core.walk(posts);
    expect(r).toMatchObject({ status: 'failed', stopReason: 'error:INSUFFICIENT_CREDITS' });
    expect(api.dataRequests()).toHaveLength(2);
  });

  it('stops when a page repeats rows the walk already has (a sort=top comment walk), before paying for more', async () => {
    const { core, api } = await setup((r) => {
      const n = pageOf(r.query.cursor);
      const ids = n <= 2 ? [`${n}1`, `${n}2`, `${n}3`] : ['11', '12', '21'];
      return { body: page('photo_net', 'profile/reels', ids, cur(n + 1), true) };
    });
    const r = await core.walk({ platform: 'photo_net', endpoint: 'profile/reels', params: { handle: 'a', sort: 'top' } });
    expect(r).toMatchObject({ status: 'paused', stopReason: 'repeating', pagesDone: 3 });
    expect(api.dataRequests()).toHaveLength(3);
  });
});

describe('resume', () => {
  /**
   * Page 3 is in flight when the process stops (a kill: a cancel with no grace for the attempt in
   * flight); the fake service finishes and bills it (the reading where a lost answer was charged).
   * A new process resumes the walk.
   */
  async function cancelMidPage(platform: string, endpoint: string, params: Record<string, string>) {
    const ac = new AbortController();
    const billedKeys = new Set<string>();
    const handler = async (r: FakeRequest): Promise<FakeReply> => {
      const n = pageOf(r.query.cursor);
      const k = String(r.headers['idempotency-key']);
      const reply = feed(5, { platform, endpoint })(r) as { body: Record<string, unknown> };
      // no balance figure (a legal reading): the lost charge is known only from the answer's evidence
      reply.body = { ...reply.body, credits_remaining: null };
      if (n === 3 && !ac.signal.aborted) {
        ac.abort();
        await new Promise((res) => setTimeout(res, 50));
        billedKeys.add(k);
        return reply;
      }
      if (n === 3 && billedKeys.has(k)) reply.body = { ...reply.body, idempotent_replay: true, charge_reason: 'replay', credits_used: 0 };
      else if (n === 3) reply.body = { ...reply.body, cached: true, charge_reason: 'cached', credits_used: 0 }; // owner read
      return reply;
    };
    const store = new MemoryStore();
    // no balance figure either; no free call left (else the least a lost answer cost is 0)
    const { core, api: a } = await setup(handler, store, () => ({ success: true, free_calls_remaining: 0 }), 0);
    const target = { platform, endpoint, params };
    const r1 = await core.walk(target, { signal: ac.signal });
    expect(r1.status).toBe('cancelled');
    expect(r1.pagesDone).toBe(2);
    expect(store.getWalk(r1.walkId)).toMatchObject({ status: 'cancelled', cursor: cur(3), pagesDone: 2 });
    expect(store.pendingJournal().map((j) => j.opKey)).toEqual([`walk:${r1.walkId}:page:3`]);
    // a new process: new core over the same store
    const core2 = createApiCore({ baseUrl: a.url, getKey: () => TEST_KEY, store, clock: new InstantClock() });
    await core2.credits(); // what the app does when it opens: free calls left are known
    const r2 = await core2.resumeWalk(r1.walkId);
    expect(r2).toMatchObject({ status: 'done', pagesDone: 5, itemsSeen: 15 });
    const reqs = a.dataRequests();
    expect(reqs.map((q) => pageOf(q.query.cursor))).toEqual([1, 2, 3, 3, 4, 5]); // only the in-flight page twice
    expect(store.items.size).toBe(15);
    expect(store.pendingJournal()).toHaveLength(0);
    return { r1, r2, reqs, store };
  }

  it('inside the cache window, re-sends the page that was in flight with a fresh key (never the ceiling) and records the charge the service made', async () => {
    const { r1, r2, reqs, store } = await cancelMidPage('photo_net', 'profile/posts', { handle: 'alice' });
    expect(reqs[3].headers['idempotency-key']).not.toBe(reqs[2].headers['idempotency-key']);
    const inferred = store.ledger.filter((l) => l.chargeReason?.startsWith('inferred:'));
    expect(inferred).toHaveLength(1);
    expect(inferred[0]).toMatchObject({ creditsUsed: 20, idempotencyKey: reqs[2].headers['idempotency-key'] });
    // every credit the fake service billed (5 pages × 20) is in the ledger and the walk totals
    expect(store.ledger.reduce((a, l) => a + l.creditsUsed, 0)).toBe(100);
    expect(r1.creditsSpent).toBe(40);
    expect(r2.creditsSpent).toBe(100); // the walk total carries the inferred charge
  });

  it('without a cache window at a fixed price, re-sends it with the same key: a free replay, its charge recorded once', async () => {
    const { reqs, store } = await cancelMidPage('forum_net', 'search/comments', { query: 'kettle' });
    expect(reqs[3].headers['idempotency-key']).toBe(reqs[2].headers['idempotency-key']);
    const inferred = store.ledger.filter((l) => l.chargeReason?.startsWith('inferred:'));
    expect(inferred.map((l) => l.creditsUsed)).toEqual([20]);
    expect(store.ledger.reduce((a, l) => a + l.creditsUsed, 0)).toBe(100);
  });

  it('a cancel while page 3 is in flight lets it finish: stored, in the ledger and the walk, nothing pending, no page 4 (issue 24)', async () => {
    const ac = new AbortController();
    const handler = async (r: FakeRequest): Promise<FakeReply> => {
      const reply = feed(5, { platform: 'photo_net', endpoint: 'profile/posts' })(r) as FakeReply;
      if (pageOf(r.query.cursor) === 3) {
        ac.abort(); // the user cancels; the service still finishes and bills the page
        await new Promise((res) => setTimeout(res, 50));
      }
      return reply;
    };
    const store = new MemoryStore();
    const { core, api: a } = await setup(handler, store);
    const r = await core.walk(posts, { signal: ac.signal });
    expect(r).toMatchObject({ status: 'cancelled', pagesDone: 3, itemsSeen: 9, creditsSpent: 60 });
    expect(a.dataRequests().map((q) => pageOf(q.query.cursor))).toEqual([1, 2, 3]);
    expect(store.ledger.reduce((s, l) => s + l.creditsUsed, 0)).toBe(60);
    expect(store.items.size).toBe(9);
    expect(store.pendingJournal()).toHaveLength(0);
  });

  it('ends with the same archive as an uninterrupted walk', async () => {
    const full = await setup(feed(4));
    const r = await full.core.walk(posts);
    const fullItems = [...full.store.items.keys()].sort();
    expect(r.itemsSeen).toBe(12);
    await api?.close();

    const store = new MemoryStore();
    const part = await setup(feed(4), store);
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
