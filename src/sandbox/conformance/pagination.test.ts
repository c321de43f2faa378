import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../server/start';
import { FIXTURE_EPOCH } from './fixtures';
import { fixtureSandbox, get, ids, walk } from './helpers';

let sb: SandboxHandle;
afterEach(() => sb.close());

const POSTS = '/v1/photo_net/profile/posts?handle=alice';
const iso = (ms: number) => new Date(ms).toISOString();
const H = 3600_000;
const cur = (c: string) => encodeURIComponent(c);

describe('Pagination', () => {
  it('Pagination 1-2 › opaque prefixed cursors walk the whole list; has_more false and next_cursor null on the last page', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    const pages = await walk(sb, POSTS);
    expect(pages).toHaveLength(5);
    for (const p of pages.slice(0, -1)) {
      expect(p.body.pagination.next_cursor).toMatch(/^sdrc1\./);
      expect(p.body.pagination.has_more).toBe(true);
    }
    const last = pages.at(-1)!;
    expect(last.body.pagination).toMatchObject({ has_more: false, next_cursor: null, page_size: 4 });
    const all = pages.flatMap(ids);
    expect(all).toHaveLength(24);
    expect(new Set(all).size).toBe(24);
    expect(all[0]).toBe('500'); // pinned first
  });

  it('Pagination 4 › edited, foreign-endpoint, other-params and expired cursors → 400 INVALID_CURSOR, free', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    const c = (await get(sb, POSTS)).body.pagination.next_cursor as string;
    const bal = sb.admin.balance();
    const edited = c.slice(0, 10) + (c[10] === 'A' ? 'B' : 'A') + c.slice(11);
    const bad = [
      `${POSTS}&cursor=${cur(edited)}`,
      `/v1/photo_net/profile/reels?handle=alice&cursor=${cur(c)}`,
      `/v1/photo_net/profile/posts?handle=bob&cursor=${cur(c)}`,
      `${POSTS}&cursor=garbage`,
    ];
    for (const p of bad) {
      const r = await get(sb, p);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ error: { type: 'INVALID_CURSOR' }, credits_used: 0 });
    }
    // judgment / sync params do not bind the cursor
    const labelled = await get(sb, `${POSTS}&label=quality&cursor=${cur(c)}`);
    expect(labelled.status).toBe(200);
    sb.admin.advance(6 * 3600 + 1); // cursor lifetime = max(1 h, cache window 6 h)
    const expired = await get(sb, `${POSTS}&cursor=${cur(c)}`);
    expect(expired.status).toBe(400);
    expect(expired.body.error.type).toBe('INVALID_CURSOR');
    expect(expired.body.error.message).toMatch(/expired/);
    expect(sb.admin.balance()).toBe(bal - labelled.body.credits_used);
  });

  it('Pagination › include is bound into the cursor (a cursor without include=stats cannot continue a walk with it)', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    const c = (await get(sb, '/v1/photo_net/profile/reels?handle=alice')).body.pagination.next_cursor as string;
    expect((await get(sb, `/v1/photo_net/profile/reels?handle=alice&include=stats&cursor=${cur(c)}`)).status).toBe(400);
    expect((await get(sb, `/v1/photo_net/profile/reels?handle=alice&max_id=${cur(c)}`)).status).toBe(200);
  });

  it('Pagination › keyset positions: new posts arriving at the head do not shift later pages', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    const p1 = await get(sb, POSTS);
    expect(ids(p1)).toEqual(['500', '999999', '999998', '999997', '999996']);
    sb.admin.advance(4 * 3600); // one new post arrives (the cursor lives 6 h)
    expect(ids(await get(sb, POSTS, { headers: { 'Cache-Control': 'no-cache' } }))[1]).toBe('2000001');
    const p2 = await get(sb, `${POSTS}&cursor=${cur(p1.body.pagination.next_cursor)}`);
    expect(ids(p2)).toEqual(['999995', '999994', '999993', '999992', '999991']);
  });

  it('Pagination 5 › native paging params carry the same token (continuationToken); page endpoints take integers', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    const pages = await walk(sb, '/v1/video_net/channel/videos?handle=n12', 10, 'continuationToken');
    expect(pages.flatMap(ids)).toHaveLength(12);
    const p2 = await get(sb, '/v1/work_net/post/reposts?url=x&page=2');
    const viaCursor = await get(
      sb,
      `/v1/work_net/post/reposts?url=x&cursor=${cur((await get(sb, '/v1/work_net/post/reposts?url=x')).body.pagination.next_cursor)}`,
    );
    expect(ids(p2)).toEqual(ids(viaCursor));
    expect(p2.body.pagination.next_cursor).toMatch(/^sdrc1\./);
  });

  it('Pagination 6 › limit as a row cap trims one page; the cursor still skips the whole page', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    const r = await get(sb, '/v1/work_net/search/people?query=x&limit=2');
    expect(ids(r)).toEqual(['1', '2']);
    const next = await get(sb, `/v1/work_net/search/people?query=x&limit=2&cursor=${cur(r.body.pagination.next_cursor)}`);
    expect(ids(next)).toEqual(['6', '7']);
  });

  it('Pagination 6 › collect-until-N walks pages for you and bills per page used', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    const r = await get(sb, '/v1/photo_net/profile/posts/full?handle=alice&limit=12');
    expect(r.body.data.items).toHaveLength(12);
    expect(r.body.credits_used).toBe(300); // 3 pages × 100
    const next = await get(sb, `/v1/photo_net/profile/posts/full?handle=alice&limit=12&cursor=${cur(r.body.pagination.next_cursor)}`);
    expect(ids(next)[0]).toBe('999985'); // 15 rows consumed (pinned + 14): page 3 skipped whole
  });

  it('Shared query parameters (max_pages) › one request walks up to N pages, bills each page, data.walk.stopped; next_cursor continues', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    const r = await get(sb, '/v1/micro_net/user/tweets?handle=alice&max_pages=3');
    expect(r.body.data.items).toHaveLength(15);
    expect(r.body.credits_used).toBe(60);
    expect(r.body.data.walk).toEqual({ stopped: 'max_pages' });
    const rest = await get(sb, `/v1/micro_net/user/tweets?handle=alice&max_pages=3&cursor=${cur(r.body.pagination.next_cursor)}`);
    expect(rest.body.data.items).toHaveLength(9);
    expect(rest.body.data.walk).toEqual({ stopped: 'end' });
    expect(rest.body.credits_used).toBe(40);
    expect(rest.body.pagination).toMatchObject({ has_more: false, next_cursor: null });
  });

  it('Pagination 2 › empty pages are not the end: has_more stays true and the walk continues', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    let sawEmpty = false;
    for (const p of ['/v1/micro_net/search/tweets?query=q', '/v1/forum_net/search/comments?query=q']) {
      const pages = await walk(sb, p);
      const all = pages.flatMap(ids);
      expect(new Set(all).size).toBe(30);
      for (const pg of pages)
        if (pg.body.data.items.length === 0 && pg.body.pagination.has_more) {
          sawEmpty = true;
          expect(pg.body.credits_used).toBe(0);
        }
    }
    expect(sawEmpty).toBe(true);
  });
});

describe('Incremental sync', () => {
  it('Incremental sync › stop_at_id (id or url) stops just before it: no next_cursor, stopped_at known_id', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    for (const v of ['999997', 'https://photo_net.example/p/999997']) {
      const r = await get(sb, `${POSTS}&stop_at_id=${encodeURIComponent(v)}`);
      expect(ids(r)).toEqual(['500', '999999', '999998']);
      expect(r.body.pagination).toMatchObject({ next_cursor: null, has_more: false, stopped_at: 'known_id' });
    }
  });

  it('Incremental sync › stop_at_id not on the page → full page and its cursor; pinned posts are never the stop point', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    const a = await get(sb, `${POSTS}&stop_at_id=999990`);
    expect(ids(a)).toHaveLength(5);
    expect(a.body.pagination.stopped_at).toBeNull();
    expect(a.body.pagination.next_cursor).toMatch(/^sdrc1\./);
    const b = await get(sb, `${POSTS}&stop_at_id=500`);
    expect(ids(b)).toHaveLength(5);
    expect(b.body.pagination.has_more).toBe(true);
  });

  it('Incremental sync › since leaves older posts off and the page that reaches one ends the walk (stopped_at since); old pinned posts do not end it', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    const r = await get(sb, `${POSTS}&since=${iso(FIXTURE_EPOCH - 10 * H)}`);
    expect(ids(r)).toEqual(['999999', '999998', '999997']);
    expect(r.body.pagination).toMatchObject({ next_cursor: null, has_more: false, stopped_at: 'since' });
    expect(r.body.credits_used).toBe(20);
    const far = await walk(sb, `/v1/photo_net/profile/posts?handle=n7&since=2000-01-01`);
    expect(far.at(-1)!.body.pagination.stopped_at).toBe('end');
    expect(far[0].body.pagination.stopped_at).toBeNull();
  });

  it('Incremental sync › on lists not in date order since/until only filter each page; the walk continues, each page costs, undated rows kept', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    const pages = await walk(sb, `/v1/open_micro_net/user/posts?handle=o&since=${iso(FIXTURE_EPOCH - 5 * 24 * H)}`);
    expect(pages).toHaveLength(3);
    for (const p of pages) expect(p.body.credits_used).toBe(10);
    const rows = pages.flatMap((p) => p.body.data.items.map((i: { post: { published_at: string | null } }) => i.post.published_at));
    expect(rows.filter((d: string | null) => d === null)).toHaveLength(3);
    for (const d of rows) if (d !== null) expect(Date.parse(d)).toBeGreaterThanOrEqual(FIXTURE_EPOCH - 5 * 24 * H);
  });

  it('Shared query parameters › recent_days removes older posts (pinned too); the page reaching older posts has no next_cursor but still costs', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    sb.admin.advance(60); // now = epoch + 1 min: post 8 (24 h old at the epoch) is out
    const p1 = await get(sb, `${POSTS}&recent_days=1`);
    expect(ids(p1)).toEqual(['999999', '999998', '999997', '999996']);
    const p2 = await get(sb, `${POSTS}&recent_days=1&cursor=${cur(p1.body.pagination.next_cursor)}`);
    expect(ids(p2)).toEqual(['999995', '999994', '999993']);
    expect(p2.body.pagination).toMatchObject({ next_cursor: null, has_more: false });
    expect(p2.body.credits_used).toBe(20);
  });

  it('Shared query parameters › exclude_pinned drops pinned rows; trim lightens records and keeps rows whose pin state is unknown', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    expect(ids(await get(sb, `${POSTS}&exclude_pinned=true`))).not.toContain('500');
    const t = await get(sb, `${POSTS}&exclude_pinned=true&trim=true`);
    expect(ids(t)).toContain('500');
    for (const it of t.body.data.items) {
      expect(it.post.flags.pinned).toBeNull();
      expect(it.post.ext.coauthors).toBeUndefined();
    }
    const reels = await get(sb, '/v1/photo_net/profile/reels?handle=alice&trim=true');
    expect(reels.body.data.items[0].post.content.media_urls).toBeNull();
    expect(reels.body.data.items[0].post.content.thumbnail_url).toMatch(/jpg$/);
  });
});
