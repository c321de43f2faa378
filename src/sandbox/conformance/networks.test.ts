/**
 * Per-network behaviours of the spec, on the real registry and world (startSandbox):
 * photo network post/comments `top` vs `recent` walks, open-protocol microblog search.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../index';
import { get, type Res } from './helpers';

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 1, epoch: Date.UTC(2026, 0, 1), timeScale: 1, freeCalls: 0, balance: 1_000_000 });
});
afterAll(() => sb.close());

type Item = { post: { id: string; published_at: string | null; engagement: { comments: number | null } } };
const items = (r: Res) => r.body.data.items as Item[];

async function walkComments(url: string, sort: string, maxPages: number): Promise<Res[]> {
  const out: Res[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < maxPages; i++) {
    const r = await get(
      sb,
      `/v1/photo_net/post/comments?url=${encodeURIComponent(url)}&sort=${sort}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    expect(r.status).toBe(200);
    out.push(r);
    if (!r.body.pagination.has_more) break;
    cursor = r.body.pagination.next_cursor as string;
  }
  return out;
}

describe('Photo network post/comments', () => {
  it('Photo network (post/comments) › a `top` walk repeats comments past the popular head (charged, new cursors); `recent` pages the whole thread newest first without repeats', async () => {
    const pop = await get(sb, '/v1/photo_net/search/popular?query=coffee');
    const post = items(pop).reduce((m, x) => ((x.post.engagement.comments ?? 0) > (m.post.engagement.comments ?? 0) ? x : m)).post;
    expect(post.engagement.comments).toBeGreaterThan(100);
    const url = (pop.body.data.items as Array<{ post: { id: string; url: string } }>).find((x) => x.post.id === post.id)!.post.url;

    const top = await walkComments(url, 'top', 6);
    expect(top).toHaveLength(6);
    const seen = new Set<string>();
    const repeatsPerPage = top.map((p) => {
      const ids = items(p).map((x) => x.post.id);
      expect(new Set(ids).size).toBe(ids.length); // no repeat inside one page
      const rep = ids.filter((id) => seen.has(id)).length;
      ids.forEach((id) => seen.add(id));
      return rep;
    });
    expect(repeatsPerPage.slice(0, 2)).toEqual([0, 0]); // the popular head
    for (const rep of repeatsPerPage.slice(2)) expect(rep).toBeGreaterThan(items(top[2]).length / 2); // mostly repeats
    const cursors = top.map((p) => p.body.pagination.next_cursor as string);
    expect(new Set(cursors).size).toBe(cursors.length); // every page has a new cursor
    for (const p of top) expect(p.body.credits_used).toBeGreaterThanOrEqual(100); // repeats are still charged

    const recent = await walkComments(url, 'recent', 40);
    expect(recent.at(-1)!.body.pagination.has_more).toBe(false);
    const all = recent.flatMap((p) => items(p));
    const ids = all.map((x) => x.post.id);
    expect(new Set(ids).size).toBe(ids.length); // no repeats
    expect(ids.length).toBe(Math.min(400, post.engagement.comments ?? 0));
    const times = all.map((x) => Date.parse(x.post.published_at!));
    for (let i = 1; i < times.length; i++) expect(times[i]).toBeLessThanOrEqual(times[i - 1]); // newest first
    // the top walk's cost: 6 pages for fewer distinct comments than 6 recent pages give
    expect(seen.size).toBeLessThan(new Set(recent.slice(0, 6).flatMap((p) => items(p).map((x) => x.post.id))).size);
  });

  it('Photo network (post/comments) › scan_pages on `top` drops the repeats it read', async () => {
    const pop = await get(sb, '/v1/photo_net/search/popular?query=coffee');
    const url = (pop.body.data.items as Array<{ post: { url: string; engagement: { comments: number } } }>).reduce((m, x) =>
      x.post.engagement.comments > m.post.engagement.comments ? x : m,
    ).post.url;
    const r = await get(sb, `/v1/photo_net/post/comments?url=${encodeURIComponent(url)}&scan_pages=3`);
    const ids = items(r).map((x) => x.post.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeLessThan(60); // page 3 was mostly repeats of pages 1-2
    expect(r.body.data.scan).toMatchObject({ pages_read: 3 });
  });
});

describe('Open-protocol microblog search', () => {
  const S = '/v1/open_micro_net/search?query=espresso';

  it('Other networks (open_micro_net search) › up to 100 rows per call, newest first, no cursor paging; `until` = oldest published_at gives older rows and repeats that second', async () => {
    const a = await get(sb, S);
    expect(a.status).toBe(200);
    expect(a.body.pagination).toBeUndefined();
    const rowsA = items(a);
    expect(rowsA).toHaveLength(100);
    const tA = rowsA.map((x) => Date.parse(x.post.published_at!));
    for (let i = 1; i < tA.length; i++) expect(tA[i]).toBeLessThanOrEqual(tA[i - 1]);
    // timestamps are whole seconds and several rows share a second
    for (const t of tA) expect(t % 1000).toBe(0);
    expect(new Set(tA).size).toBeLessThan(tA.length);

    const oldest = rowsA.at(-1)!.post.published_at!;
    const b = await get(sb, `${S}&until=${encodeURIComponent(oldest)}`);
    expect(b.status).toBe(200);
    const rowsB = items(b);
    expect(rowsB.length).toBeGreaterThan(1);
    for (const x of rowsB) expect(Date.parse(x.post.published_at!)).toBeLessThanOrEqual(Date.parse(oldest));
    const idsA = new Set(rowsA.map((x) => x.post.id));
    const repeated = rowsB.filter((x) => idsA.has(x.post.id));
    // exactly the rows of the boundary second come back again
    expect(repeated.length).toBeGreaterThanOrEqual(1);
    for (const x of repeated) expect(x.post.published_at).toBe(oldest);
    expect(repeated.length).toBe(rowsA.filter((x) => x.post.published_at === oldest).length);
    expect(rowsB.filter((x) => !idsA.has(x.post.id)).length).toBeGreaterThan(0); // older rows
    // an until with an offset timezone is the same instant
    const off = new Date(Date.parse(oldest) + 2 * 3600_000).toISOString().replace('.000Z', '+02:00');
    const c = await get(sb, `${S}&until=${encodeURIComponent(off)}&dry_run=1`);
    expect(c.status).toBe(200);
  });

  it('Errors 7 › `until` shapes other than an ISO date or a datetime with timezone are a free 400 INVALID_REQUEST', async () => {
    const before = sb.admin.balance();
    for (const bad of ['2025-12-01T10:00:00', '12/01/2025', '2025-12-01 10:00:00Z', 'yesterday']) {
      const r = await get(sb, `${S}&until=${encodeURIComponent(bad)}`);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ error: { type: 'INVALID_REQUEST' }, credits_used: 0 });
    }
    expect((await get(sb, `${S}&until=2025-12-01`)).status).toBe(200);
    expect((await get(sb, `${S}&until=2025-12-01T10:00:00Z`)).status).toBe(200);
    expect(sb.admin.balance()).toBe(before - 20);
  });
});
