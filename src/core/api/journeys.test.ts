/**
 * Walks the spec describes in prose, against the sandbox: paging back by `until` (open-protocol
 * search), fit=goal stubs recalled in full, a row-cap `limit` left off walks, and holds, estimates
 * and budgets that count every multiplier (`scan_pages`, collect-until-N `limit`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../sandbox';
import { openArchive, type Archive } from '../archive';
import { createApiCore, scaledClock, type ApiCore } from '.';
import { testDb } from '../archive/testing';

const TIME_SCALE = 600;
/** one world for every sandbox of a comparison (the default epoch is the minute each one starts) */
const EPOCH = Date.UTC(2026, 0, 5, 12, 0);
const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c();
});

async function setup(balance = 1_000_000): Promise<{ sb: SandboxHandle; api: ApiCore; archive: Archive }> {
  const sb = await startSandbox({ port: 0, seed: 3, balance, freeCalls: 0, timeScale: TIME_SCALE, epoch: EPOCH });
  sb.admin.advance(86_400 * 30);
  const clock = scaledClock(() => sb.admin.now(), TIME_SCALE);
  const archive = openArchive(':memory:', { clock: () => clock.now() });
  const api = createApiCore({ baseUrl: sb.url, getKey: () => sb.key, store: archive, clock });
  open.push(async () => {
    await api.close();
    archive.close();
    await sb.close();
  });
  return { sb, api, archive };
}

const rows = (a: Archive): Array<{ id: string; raw: string }> =>
  testDb(a).prepare('SELECT id, raw FROM items').all() as Array<{ id: string; raw: string }>;

describe('walks the spec describes in prose', () => {
  it('pages open-protocol search back in time by `until` = the oldest published_at of the last page, rows once', async () => {
    const { sb, api, archive } = await setup();
    const r = await api.walk({ platform: 'open_micro_net', endpoint: 'search', params: { query: 'coffee' } }, { maxPages: 4 });
    expect(r.error?.message).toBeUndefined();
    expect(r.pagesDone).toBeGreaterThan(1);
    const sent = sb.admin
      .charges()
      .filter((c) => c.endpoint.endsWith('/search'))
      .map((c) => c.params.until);
    expect(sent[0]).toBeUndefined();
    for (let i = 2; i < sent.length; i++) expect(Date.parse(sent[i] as string)).toBeLessThanOrEqual(Date.parse(sent[i - 1] as string));
    // rows at the boundary second come back on the next page: stored once, counted once
    const ids = rows(archive).map((x) => x.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(r.itemsSeen).toBeGreaterThan(ids.length - 1);
  });

  it('recalls fit=goal stubs in full (free) and never archives a stub as a row', async () => {
    const { sb, api, archive } = await setup();
    const r = await api.walk(
      { platform: 'thread_net', endpoint: 'search', params: { query: 'coffee', fit: 'goal', goal: 'complaints about price' } },
      { maxPages: 2 },
    );
    expect(r.error?.message).toBeUndefined();
    expect(r.heldBack).toBe(0);
    const recalls = sb.admin.charges().filter((c) => c.params.recall !== undefined);
    expect(recalls.length).toBeGreaterThan(0);
    expect(recalls.every((c) => c.credits_used === 0)).toBe(true);
    expect(rows(archive).some((x) => JSON.parse(x.raw).stub === true)).toBe(false);
    expect(rows(archive).length).toBeGreaterThan(0);
  });

  it('leaves a row-cap `limit` off a walk (the cursor would skip the rest of each paid page) and says so', async () => {
    const { sb, api } = await setup();
    const r = await api.walk(
      { platform: 'work_net', endpoint: 'search/people', params: { query: 'engineer', limit: '3' } },
      { maxPages: 2 },
    );
    expect(r.error?.message).toBeUndefined();
    expect(r.notes.join(' ')).toMatch(/limit=3 trims each page/);
    const paid = sb.admin.charges().filter((c) => c.params.dry_run === undefined);
    expect(paid.every((c) => c.params.limit === undefined)).toBe(true);
    expect(r.itemsSeen).toBeGreaterThan(2 * 3);
  });

  it('holds scan_pages × the ceiling: a walk capped below it spends nothing', async () => {
    const { sb, api } = await setup();
    const r = await api.walk(
      { platform: 'photo_net', endpoint: 'post/comments', params: { url: 'https://photo-net.example/p/x/', scan_pages: '3' } },
      { maxCredits: 1000 },
    );
    expect(r).toMatchObject({ status: 'paused', stopReason: 'credit_limit', creditsSpent: 0 });
    expect(sb.admin.charges().filter((c) => c.params.dry_run === undefined)).toHaveLength(0);
  });

  it('estimates, holds and budgets collect-until-N `limit` at the service quote, not the one-page price', async () => {
    const { sb, api } = await setup(1500);
    const target = { platform: 'photo_net', endpoint: 'profile/posts/full', params: { handle: 'natgeo', limit: '50' } };
    const q = await api.quote(target);
    expect(q.credits_max).toBeGreaterThan(500);
    const est = await api.estimateWalk(target, { pages: 1 });
    expect(est.creditsMax).toBe(q.credits_max);
    // the hold exceeds the balance: refused locally, nothing sent
    const e = (await api.call(target).catch((x: unknown) => x)) as { kind: string; message: string };
    expect(e.kind).toBe('insufficient_local');
    expect(e.message).toContain(`holds ${q.credits_max}`);
    expect(sb.admin.charges().filter((c) => c.params.dry_run === undefined)).toHaveLength(0);
    const w = await api.walk(target, { maxCredits: 1000 });
    expect(w).toMatchObject({ status: 'paused', stopReason: 'credit_limit', creditsSpent: 0 });
  });

  it('walks up to 5 pages per request where the entry accepts max_pages: fewer requests, the same rows', async () => {
    const target = { platform: 'short_video_net', endpoint: 'search', params: { query: 'kettle' } };
    const one = await setup();
    const a = await one.api.walk(target, { maxPages: 12, pagesPerRequest: 1 });
    const rowsOne = rows(one.archive)
      .map((x) => x.id)
      .sort();
    const paidOne = one.sb.admin.charges().reduce((s2, c) => s2 + c.credits_used, 0);
    const many = await setup();
    const b = await many.api.walk(target, { maxPages: 12 });
    expect(b.error?.message).toBeUndefined();
    expect(b.pagesDone).toBe(a.pagesDone);
    const requests = many.sb.admin.charges().filter((c) => c.params.dry_run === undefined);
    expect(requests.map((c) => c.params.max_pages)).toEqual(['5', '5', '2']);
    expect(
      rows(many.archive)
        .map((x) => x.id)
        .sort(),
    ).toEqual(rowsOne);
    // each page walked is billed as one call: the same credits as page by page
    expect(many.sb.admin.charges().reduce((s2, c) => s2 + c.credits_used, 0)).toBe(paidOne);
  });

  it('sizes max_pages to the budget: never a hold past the approved credits', async () => {
    const { sb, api } = await setup();
    // short_video_net search holds 840 a page: 2,000 credits allow two pages per request
    const r = await api.walk(
      { platform: 'short_video_net', endpoint: 'search', params: { query: 'kettle' } },
      { maxPages: 10, maxCredits: 2000 },
    );
    const asked = sb.admin
      .charges()
      .filter((c) => c.params.dry_run === undefined)
      .map((c) => c.params.max_pages);
    expect(asked[0]).toBe('2');
    expect(r.creditsSpent).toBeLessThanOrEqual(2000);
  });

  it('continues a max_pages walk from the cursor a page_error returns, without skipping a page', async () => {
    const target = { platform: 'short_video_net', endpoint: 'search', params: { query: 'kettle' } };
    const clean = await setup();
    await clean.api.walk(target, { maxPages: 15 });
    const want = rows(clean.archive)
      .map((x) => x.id)
      .sort();
    const { sb, api, archive } = await setup();
    sb.admin.setChaos({ rate500: 0.3 });
    const r = await api.walk(target, { maxPages: 15 });
    expect(r.error?.message).toBeUndefined();
    const stops = (testDb(archive).prepare('SELECT envelope FROM responses').all() as Array<{ envelope: string }>).map(
      (x) => (JSON.parse(x.envelope) as { data: { walk?: { stopped?: string } } }).data.walk?.stopped,
    );
    expect(stops).toContain('page_error');
    expect(
      rows(archive)
        .map((x) => x.id)
        .sort(),
    ).toEqual(want);
  });
});
