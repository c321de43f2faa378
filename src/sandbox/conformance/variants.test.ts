/**
 * Spec-variants mode: every variant serves another legal reading of the spec. One test per
 * variant, titled by the spec section that allows it; each compares with the default reading so
 * it fails if the variant stops changing anything.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SPEC_VARIANTS, startSandbox } from '../index';
import type { SandboxHandle } from '../server/start';
import { fixtureSandbox, get, ids, type Body } from './helpers';

let sb: SandboxHandle | null = null;
afterEach(async () => {
  await sb?.close();
  sb = null;
});

const POSTS = '/v1/photo_net/profile/posts?handle=alice';
const COMMENTS = '/v1/photo_net/post/comments?url=u';
const PEOPLE = '/v1/work_net/search/people?query=dev';
const cur = (c: string) => encodeURIComponent(c);
const idem = (k: string) => ({ headers: { 'Idempotency-Key': k } });

async function post(path: string, body: unknown): Promise<{ status: number; body: Body }> {
  const r = await fetch(`${sb!.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json()) as Body };
}

describe('Spec variants: selection', () => {
  it('SPEC_VARIANTS lists every variant with a description; unknown names are rejected (option, admin method, admin route)', async () => {
    expect(SPEC_VARIANTS.map((v) => v.name)).toEqual([
      'judgments-beside',
      'record-kinds',
      'lean-envelope',
      'extra-fields',
      'null-remaining',
      'cursor-error',
      'own-params-only',
      'native-ignores-foreign',
      'drop-charged',
      'strict-ceiling',
      'idempotency-per-key',
      'no-cache-window',
      'cache-exact-cursor',
      'cache-window-purchase',
      'cache-window-slides',
    ]);
    for (const v of SPEC_VARIANTS) expect(v.description.length).toBeGreaterThan(20);
    await expect(fixtureSandbox({ variants: ['lean-envelope', 'no-such-variant'] })).rejects.toThrow(
      /unknown spec variant 'no-such-variant'.*known variants: judgments-beside/,
    );
    sb = await fixtureSandbox({ variants: ['lean-envelope'] });
    expect(sb.admin.variants()).toEqual(['lean-envelope']);
    expect(() => sb!.admin.setVariants(['bogus'])).toThrow(/unknown spec variant 'bogus'/);
    expect(sb.admin.variants()).toEqual(['lean-envelope']); // unchanged after a refused switch
    const bad = await post('/__admin/variants', { variants: ['lean-envelope', 'nope'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/unknown spec variant 'nope'/);
    const ok = await post('/__admin/variants', { variants: ['null-remaining', 'extra-fields'] });
    expect(ok.body).toEqual({ success: true, variants: ['extra-fields', 'null-remaining'] });
    expect(((await fetch(`${sb.url}/__admin/variants`).then((r) => r.json())) as Body).variants).toEqual([
      'extra-fields',
      'null-remaining',
    ]);
    expect(sb.admin.stats().variants).toEqual(['extra-fields', 'null-remaining']);
  });

  it('the default (no variant) keeps the default reading; variants switch at runtime and combine', async () => {
    sb = await fixtureSandbox();
    const a = await get(sb, POSTS);
    expect(Object.keys(a.body.data.items[0])).toEqual(['post']);
    expect(a.body.data.items[0].post.computed).toBeDefined();
    sb.admin.setVariants(['judgments-beside', 'record-kinds']);
    const b = await get(sb, COMMENTS);
    expect(Object.keys(b.body.data.items[0]).sort()).toEqual(['comment', 'computed', 'position', 'source']);
    sb.admin.setVariants([]);
    expect(Object.keys((await get(sb, COMMENTS)).body.data.items[0])).toEqual(['post']);
  });
});

describe('Spec variants: response shapes', () => {
  it('judgments-beside (Computed judgments "added to rows" / List items `{ post }`) › list items carry computed beside the record', async () => {
    sb = await fixtureSandbox({ variants: ['judgments-beside'] });
    const r = await get(sb, `${POSTS}&label=quality&label_evidence=1`);
    expect(r.status).toBe(200);
    for (const it of r.body.data.items as Body[]) {
      expect(Object.keys(it).sort()).toEqual(['computed', 'post']);
      expect(it.post.computed).toBeUndefined();
      expect(it.computed).toHaveProperty('labels');
      expect(it.computed).toHaveProperty('labels_evidence');
    }
    const rel = await get(sb, '/v1/micro_net/search/tweets?query=tea');
    expect(rel.body.data.items[0].computed).toHaveProperty('relevance');
    expect(rel.body.data.items[0].post.computed).toBeUndefined();
    // judgments off: no computed at all
    const off = await get(sb, `${POSTS}&judgments=off`);
    expect(Object.keys(off.body.data.items[0])).toEqual(['post']);
    // the cached (canonical) answer is reshaped again on a re-read, not stored reshaped
    sb.admin.setVariants([]);
    const again = await get(sb, `${POSTS}&label=quality&label_evidence=1`);
    expect(again.body.cached).toBe(true);
    expect(again.body.data.items[0].post.computed.labels).toBeDefined();
  });

  it('record-kinds (Data payload shapes: profile, comment, user, group, advertiser records) › items keyed by record kind with extra keys beside it', async () => {
    sb = await fixtureSandbox({ variants: ['record-kinds'] });
    const c = await get(sb, COMMENTS);
    (c.body.data.items as Body[]).forEach((it, i) => {
      expect(Object.keys(it).sort()).toEqual(['comment', 'position', 'source']);
      expect(it.comment.id).toEqual(expect.any(String));
      expect(it.position).toBe(i + 1);
      expect(it.source).toBe('upstream');
    });
    const people = await get(sb, PEOPLE);
    expect(Object.keys(people.body.data.items[0]).sort()).toEqual(['position', 'source', 'user']);
    const posts = await get(sb, POSTS);
    expect(posts.body.data.items[0]).toHaveProperty('post');
    sb.admin.setVariants([]);
    expect(Object.keys((await get(sb, PEOPLE)).body.data.items[0])).toEqual(['profile']);
  });

  it('record-kinds › real registry: comment search → comment, followers → user, search/profiles → profile, groups → group, ad companies → advertiser', async () => {
    sb = await startSandbox({ seed: 1, freeCalls: 0, variants: ['record-kinds'] });
    const key = async (path: string) => {
      const r = await get(sb!, path);
      expect(r.status, `${path}: ${JSON.stringify(r.body.error)}`).toBe(200);
      const first = (r.body.data.items as Body[])[0];
      expect(first, `${path} has rows`).toBeDefined();
      return Object.keys(first).filter((k) => k !== 'position' && k !== 'source');
    };
    expect(await key('/v1/forum_net/search/comments?query=coffee')).toEqual(['comment']);
    expect(await key('/v1/photo_net/followers?handle=sample.creator')).toEqual(['user']);
    expect(await key('/v1/photo_net/search/profiles?query=coffee')).toEqual(['profile']);
    expect(await key('/v1/social_net/search/groups?query=coffee')).toEqual(['group']);
    expect(await key('/v1/social_net/adlibrary/search/companies?query=coffee')).toEqual(['advertiser']);
    expect(await key('/v1/micro_net/search/users?query=coffee')).toEqual(['user']);
  });

  it('lean-envelope (Response envelope / Pagination object: optional fields) › success envelopes omit every optional field', async () => {
    sb = await fixtureSandbox({ variants: ['lean-envelope'] });
    const r = await get(sb, `${POSTS}&since=2020-01-01`, idem('lean-1'));
    expect(r.status).toBe(200);
    for (const k of ['charge_reason', 'cached', 'free_call', 'idempotent_replay', 'unavailable']) expect(r.body).not.toHaveProperty(k);
    expect(r.body.pagination).not.toHaveProperty('stopped_at');
    expect(r.body.pagination).toHaveProperty('next_cursor');
    for (const k of ['total', 'truncated', 'ext']) expect(r.body.data).not.toHaveProperty(k);
    expect(r.body).toMatchObject({ success: true, credits_used: 20, schema_version: '2' });
    const replay = await get(sb, `${POSTS}&since=2020-01-01`, idem('lean-1'));
    expect(replay.body.idempotent_replay).toBe(true);
    expect(replay.body).not.toHaveProperty('charge_reason');
    sb.admin.setVariants([]);
    const full = await get(sb, `${POSTS}&since=2020-01-01`);
    expect(full.body.pagination).toHaveProperty('stopped_at');
    expect(full.body).toHaveProperty('charge_reason');
  });

  it('extra-fields (Resources: fields "not shown") › unknown extra fields in the envelope, pagination, data and every record; cursors still walk', async () => {
    sb = await fixtureSandbox({ variants: ['extra-fields'] });
    const r = await get(sb, POSTS);
    expect(r.body.meta).toEqual(expect.any(Object));
    expect(r.body.trace_id).toEqual(expect.any(String));
    expect(Date.parse(r.body.pagination.cursor_expires_at as string)).toBeGreaterThan(0);
    expect(r.body.data.debug).toEqual(expect.any(Object));
    for (const it of r.body.data.items as Body[]) expect(it.post).toHaveProperty('x_unknown');
    const single = await get(sb, '/v1/thread_net/profile?handle=x');
    expect(single.body.data.profile).toHaveProperty('x_unknown');
    const p2 = await get(sb, `${POSTS}&cursor=${cur(r.body.pagination.next_cursor as string)}`);
    expect(p2.status).toBe(200);
    expect(ids(p2)[0]).not.toBe(ids(r)[0]);
    const err = await get(sb, '/v1/thread_net/profile');
    expect(err.status).toBe(400);
    expect(err.body).toMatchObject({ success: false, trace_id: expect.any(String), meta: expect.any(Object) });
    const unauth = await get(sb, POSTS, { key: null });
    expect(unauth.status).toBe(401);
    expect(unauth.body).toMatchObject({ success: false, credits_remaining: null, trace_id: expect.any(String) });
    sb.admin.setVariants([]);
    expect((await get(sb, POSTS)).body).not.toHaveProperty('meta');
  });

  it('null-remaining (Response envelope: credits_remaining "integer or null") › credits_remaining is null on every answer, success included', async () => {
    sb = await fixtureSandbox({ variants: ['null-remaining'] });
    const ok = await get(sb, POSTS);
    expect(ok.body).toMatchObject({ success: true, credits_used: 20, credits_remaining: null });
    const err = await get(sb, '/v1/photo_net/profile/posts?handle=missing');
    expect(err.status).toBe(404);
    expect(err.body.credits_remaining).toBeNull();
    const dry = await get(sb, `${POSTS}&dry_run=1`);
    expect(dry.body.credits_remaining).toBeNull();
    expect(sb.admin.balance()).toBe(10_000 - 20); // billing unchanged
    expect((await get(sb, '/v1/credits')).body.credits_remaining).toBe(10_000 - 20);
    sb.admin.setVariants([]);
    expect((await get(sb, POSTS)).body.credits_remaining).toBe(10_000 - 20);
  });
});

describe('Spec variants: behaviour', () => {
  it('cursor-error (Pagination 4 "rejected with an error"; Errors rule 1 "open set") › a rejected cursor is a free 4xx that is not INVALID_CURSOR: 400, 410, 422 in turn', async () => {
    sb = await fixtureSandbox({ variants: ['cursor-error'], timeScale: 0.001 });
    const c = (await get(sb, POSTS)).body.pagination.next_cursor as string;
    const bal = sb.admin.balance();
    const edited = c.slice(0, 10) + (c[10] === 'A' ? 'B' : 'A') + c.slice(11);
    const seen: Array<[number, string]> = [];
    for (const p of [
      `${POSTS}&cursor=${cur(edited)}`,
      `/v1/photo_net/profile/posts?handle=bob&cursor=${cur(c)}`,
      `${POSTS}&cursor=garbage`,
      `${POSTS}&cursor=x`,
    ]) {
      const r = await get(sb, p);
      expect(r.body).toMatchObject({ success: false, credits_used: 0 });
      expect(r.body.error.type).not.toBe('INVALID_CURSOR');
      seen.push([r.status, r.body.error.type as string]);
    }
    expect(seen).toEqual([
      [400, 'BAD_REQUEST'],
      [410, 'CURSOR_EXPIRED'],
      [422, 'UNPROCESSABLE'],
      [400, 'BAD_REQUEST'],
    ]);
    expect(sb.admin.balance()).toBe(bal);
    expect((await get(sb, `${POSTS}&cursor=${cur(c)}`)).status).toBe(200); // a good cursor still works
    sb.admin.setVariants([]);
    expect((await get(sb, `${POSTS}&cursor=garbage`)).body.error.type).toBe('INVALID_CURSOR');
  });

  it('own-params-only (Catalogue record: params[]; Shared query parameters "on endpoints that accept it") › the catalogue lists only own params, the server still accepts the shared ones', async () => {
    sb = await startSandbox({ seed: 1, freeCalls: 0, variants: ['own-params-only'] });
    const cat = (await get(sb, '/v1/endpoints', { key: null })).body;
    const names = (path: string) => ((cat.endpoints as Body[]).find((e) => e.path === path)!.params as Body[]).map((p) => p.name as string);
    const shared = ['dry_run', 'cursor', 'since', 'until', 'stop_at_id', 'recent_days', 'max_pages', 'include', 'trim', 'exclude_pinned'];
    const judgment = [
      'judgments',
      'label',
      'exclude',
      'brand',
      'brand_description',
      'offer',
      'label_evidence',
      'fit',
      'goal',
      'fit_tokens',
      'relevance',
      'relevance_threshold',
      'relevant_to',
    ];
    for (const e of cat.endpoints as Body[]) for (const p of e.params as Body[]) expect([...shared, ...judgment]).not.toContain(p.name);
    expect(names('/v1/photo_net/profile/posts')).toEqual(expect.arrayContaining(['handle', 'next_max_id']));
    expect(names('/v1/photo_net/post/comments')).toEqual(expect.arrayContaining(['url', 'sort', 'scan_pages', 'safe_url']));
    expect(names('/v1/video_net/channel/videos')).toEqual(expect.arrayContaining(['continuationToken']));
    expect(names('/v1/work_net/post/reposts')).toEqual(expect.arrayContaining(['page']));
    expect(names('/v1/thread_net/search')).toEqual(expect.arrayContaining(['query', 'limit']));
    expect(names('/v1/short_video_net_b/user/posts')).toEqual(expect.arrayContaining(['count']));
    const oa = (await get(sb, '/v1/openapi.json', { key: null })).body;
    const opNames = (oa.paths['/v1/photo_net/profile/posts'].get.parameters as Body[]).map((p) => p.name);
    expect(opNames).toContain('handle');
    expect(opNames).not.toContain('since');
    expect(opNames).not.toContain('label');
    // still accepted exactly where they were
    const r = await get(sb, '/v1/photo_net/profile/posts?handle=sample.creator&since=2020-01-01&label=quality&judgments=on&trim=true');
    expect(r.status).toBe(200);
    expect((await get(sb, '/v1/photo_net/profile/posts?handle=sample.creator&dry_run=1')).status).toBe(200);
    expect(
      (await get(sb, `/v1/photo_net/profile/posts?handle=sample.creator&cursor=${cur(r.body.pagination.next_cursor as string)}`)).status,
    ).toBe(200);
    expect((await get(sb, '/v1/thread_net/profile?handle=x&since=2020-01-01')).status).toBe(400); // and refused where they were
    sb.admin.setVariants([]);
    const full = (await get(sb, '/v1/endpoints', { key: null })).body;
    expect(
      ((full.endpoints as Body[]).find((e) => e.path === '/v1/photo_net/profile/posts')!.params as Body[]).map((p) => p.name),
    ).toContain('since');
  });

  it('native-ignores-foreign (Pagination 5 "use the one the endpoint lists and keep one style") › a service cursor in a native param is ignored: page 1 again, charged', async () => {
    const REELS = '/v1/photo_net/profile/reels?handle=alice';
    for (const variant of [false, true]) {
      sb = await fixtureSandbox({ variants: variant ? ['native-ignores-foreign'] : [], timeScale: 0.001 });
      const p1 = await get(sb, REELS);
      const c = p1.body.pagination.next_cursor as string;
      const viaNative = await get(sb, `${REELS}&max_id=${cur(c)}`);
      const viaCursor = await get(sb, `${REELS}&cursor=${cur(c)}`);
      expect(viaCursor.status).toBe(200);
      expect(ids(viaCursor)[0]).not.toBe(ids(p1)[0]);
      if (variant) {
        expect(ids(viaNative)).toEqual(ids(p1)); // the first page again
        expect(viaNative.body).toMatchObject({ cached: false, credits_used: 20, charge_reason: 'miss' });
      } else {
        expect(ids(viaNative)).toEqual(ids(viaCursor)); // default: the native param carries the token
      }
      await sb.close();
      sb = null;
    }
    sb = await fixtureSandbox({ variants: ['native-ignores-foreign'] });
    const c = (await get(sb, '/v1/video_net/channel/videos?handle=alice')).body.pagination.next_cursor as string;
    const p = await get(sb, `/v1/video_net/channel/videos?handle=alice&continuationToken=${cur(c)}`);
    expect(p.body.credits_used).toBe(20);
    expect(ids(p)).toEqual(ids(await get(sb, '/v1/video_net/channel/videos?handle=alice')));
  });

  it('no-cache-window (Limits 7 "windows seen" / catalogue cache_ttl_seconds) › cache_ttl_seconds 0 everywhere and every repeat is charged', async () => {
    sb = await startSandbox({ seed: 1, freeCalls: 0, variants: ['no-cache-window'] });
    const cat = (await get(sb, '/v1/endpoints', { key: null })).body;
    expect((cat.endpoints as Body[]).every((e) => e.cache_ttl_seconds === 0)).toBe(true);
    const oa = (await get(sb, '/v1/openapi.json', { key: null })).body;
    expect(oa.paths['/v1/photo_net/profile/posts'].get['x-cache-ttl-seconds']).toBe(0);
    await sb.close();
    sb = await fixtureSandbox({ variants: ['no-cache-window'] });
    const a = await get(sb, POSTS);
    const b = await get(sb, POSTS);
    expect([a.body.credits_used, b.body.credits_used]).toEqual([20, 20]);
    expect(b.body.cached).toBe(false);
    // another account pays the full price, not the 2-credit shared read
    const k = sb.admin.createKey('b', sb.admin.createAccount({ balance: 1000, freeCalls: 0 }));
    expect((await get(sb, POSTS, { key: k })).body.credits_used).toBe(20);
    sb.admin.setVariants([]);
    await get(sb, POSTS);
    expect((await get(sb, POSTS)).body).toMatchObject({ cached: true, credits_used: 0 });
  });

  it('cache-exact-cursor (Limits 7 "the exact same call"; cursors opaque) › a page under another cursor is another call, even at a position the account owns', async () => {
    for (const variant of [false, true]) {
      sb = await fixtureSandbox({ variants: variant ? ['cache-exact-cursor'] : [] });
      const p1 = await get(sb, POSTS);
      const c1 = p1.body.pagination.next_cursor as string;
      expect((await get(sb, `${POSTS}&cursor=${cur(c1)}`)).body.credits_used).toBe(20);
      sb.admin.advance(60);
      // page 1 fetched again (forced fresh): the same page 2 under a new cursor
      const again = await get(sb, POSTS, { headers: { 'Cache-Control': 'no-cache' } });
      const c2 = again.body.pagination.next_cursor as string;
      expect(c2).not.toBe(c1);
      const p2 = await get(sb, `${POSTS}&cursor=${cur(c2)}`);
      // default: known by its position, owned; the variant: another call, charged
      expect([p2.body.cached, p2.body.credits_used]).toEqual(variant ? [false, 20] : [true, 0]);
      // the exact call repeated is owned under both
      expect((await get(sb, `${POSTS}&cursor=${cur(c1)}`)).body).toMatchObject({ cached: true, credits_used: 0 });
      await sb.close();
      sb = null;
    }
  });

  it('cache-window-purchase, cache-window-slides (Limits 7 "inside the endpoint\'s window": from when?) › the window from the fetch, the own purchase, or the last free repeat', async () => {
    const start = { default: [] as string[], purchase: ['cache-window-purchase'], slides: ['cache-window-slides'] };
    for (const [reading, variants] of Object.entries(start)) {
      sb = await fixtureSandbox({ variants });
      const w = 21_600; // the fixture's window of photo_net/profile/posts (6 h)
      const at = (k?: string) => get(sb!, POSTS, k ? idem(k) : {}).then((r) => [r.body.charge_reason, r.body.credits_used]);
      // bought, repeated free at 0.6 W, repeated at 1.2 W: only a sliding window still covers it
      expect(await at()).toEqual(['miss', 20]);
      sb.admin.advance(0.6 * w);
      expect(await at()).toEqual(['cached', 0]);
      sb.admin.advance(0.6 * w);
      expect(await at()).toEqual(reading === 'slides' ? ['cached', 0] : ['miss', 20]);
      // a replay is a free repeat too: it restarts the sliding window
      const other = '/v1/photo_net/profile/posts?handle=carol';
      expect((await get(sb, other, idem('w-1'))).body.credits_used).toBe(20);
      sb.admin.advance(0.6 * w);
      expect((await get(sb, other, idem('w-1'))).body.charge_reason).toBe('replay');
      sb.admin.advance(0.6 * w);
      expect((await get(sb, other)).body.credits_used).toBe(reading === 'slides' ? 0 : 20);
      // a 2-credit shared read half a window after another account's fetch: its own window or the entry's
      const k = sb.admin.createKey('b', sb.admin.createAccount({ balance: 1000, freeCalls: 0 }));
      const third = '/v1/photo_net/profile/posts?handle=dave';
      expect((await get(sb, third, { key: k })).body.credits_used).toBe(20);
      sb.admin.advance(0.5 * w);
      expect((await get(sb, third)).body).toMatchObject({ charge_reason: 'shared_cache', credits_used: 2 });
      sb.admin.advance(0.6 * w);
      expect((await get(sb, third)).body.credits_used).toBe(reading === 'default' ? 20 : 0);
      await sb.close();
      sb = null;
    }
  });

  it('drop-charged (Idempotency retry charging "never answered successfully" read from the service side) › a dropped body is charged, owned, and replayed free', async () => {
    sb = await fixtureSandbox({ variants: ['drop-charged'] });
    sb.admin.queueFaults([{ kind: 'drop', match: 'profile/posts' }]);
    await expect(get(sb, POSTS, idem('dc-1'))).rejects.toThrow();
    expect(sb.admin.balance()).toBe(10_000 - 20);
    expect(sb.admin.charges().at(-1)).toMatchObject({ status: 200, credits_used: 20, charge_reason: 'miss', fault: 'drop' });
    const same = await get(sb, POSTS, idem('dc-1'));
    expect(same.body).toMatchObject({ idempotent_replay: true, charge_reason: 'replay', credits_used: 0 });
    const fresh = await get(sb, POSTS, idem('dc-2'));
    expect(fresh.body).toMatchObject({ cached: true, credits_used: 0, idempotent_replay: false });
    expect(sb.admin.balance()).toBe(10_000 - 20);
    // chaos drops follow the same rule
    sb.admin.setChaos({ rateDrop: 1 });
    await expect(get(sb, '/v1/thread_net/profile?handle=z', idem('dc-3'))).rejects.toThrow();
    sb.admin.setChaos(0);
    expect(sb.admin.charges().at(-1)).toMatchObject({ status: 200, credits_used: 20, fault: 'chaos:drop' });
    expect((await get(sb, '/v1/thread_net/profile?handle=z', idem('dc-3'))).body.charge_reason).toBe('replay');
  });

  it('idempotency-per-key (whose Idempotency-Keys: the spec does not say) › the same Idempotency-Key from another key of the account is a new, charged call; from the same key a replay', async () => {
    for (const variant of [false, true]) {
      sb = await fixtureSandbox({ variants: variant ? ['idempotency-per-key'] : [] });
      const other = sb.admin.createKey('second');
      const a = await get(sb, POSTS, idem('pk-1'));
      expect(a.body).toMatchObject({ credits_used: 20 });
      const same = await get(sb, POSTS, idem('pk-1'));
      expect(same.body).toMatchObject({ idempotent_replay: true, credits_used: 0 });
      const fromOther = await get(sb, POSTS, { key: other, ...idem('pk-1') });
      if (variant)
        expect(fromOther.body).toMatchObject({ idempotent_replay: false, charge_reason: 'cached', credits_used: 0 }); // a new call: here the account's own cached answer
      else expect(fromOther.body).toMatchObject({ idempotent_replay: true, credits_used: 0 });
      await sb.close();
      sb = null;
    }
  });

  it('strict-ceiling (Idempotency retry charging "never answered successfully", strictest reading) › a same-key retry after an error answer pays the ceiling', async () => {
    for (const variant of [false, true]) {
      sb = await fixtureSandbox({ variants: variant ? ['strict-ceiling'] : [] });
      sb.admin.queueFaults([{ kind: 'status', status: 503, type: 'UPSTREAM_ERROR', retryAfter: 1 }]);
      const a = await get(sb, POSTS, idem('sc-1'));
      expect(a.status).toBe(503);
      const b = await get(sb, POSTS, idem('sc-1'));
      expect(b.body).toMatchObject({ idempotent_replay: false, charge_reason: 'miss', credits_used: variant ? 340 : 20 });
      sb.admin.queueFaults([{ kind: 'status', status: 500, type: 'INTERNAL_ERROR' }]);
      expect((await get(sb, '/v1/micro_net/search/tweets?query=x&max_pages=2', idem('sc-2'))).status).toBe(500);
      expect((await get(sb, '/v1/micro_net/search/tweets?query=x&max_pages=2', idem('sc-2'))).body.credits_used).toBe(variant ? 360 : 40);
      // an unkeyed retry is an ordinary call either way
      sb.admin.queueFaults([{ kind: 'status', status: 429, type: 'RATE_LIMITED', retryAfter: 1 }]);
      expect((await get(sb, '/v1/photo_net/profile/posts?handle=bob')).status).toBe(429);
      expect((await get(sb, '/v1/photo_net/profile/posts?handle=bob')).body.credits_used).toBe(20);
      await sb.close();
      sb = null;
    }
  });
});
