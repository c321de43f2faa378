/** The public startSandbox() wires the real registry and world: routing, catalogue, a charged call, a walk. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../index';
import { get } from './helpers';

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 1, timeScale: 60, freeCalls: 0 });
});
afterAll(() => sb.close());

describe('startSandbox (real registry and world)', () => {
  it('Versioning 4 › the catalogue and OpenAPI document are served keyless from the registry', async () => {
    const c = await get(sb, '/v1/endpoints', { key: null });
    expect(c.status).toBe(200);
    expect(c.body.summary).toMatchObject({ spec_version: '1.0.0', schema_version: '2' });
    expect(c.body.base_url).toBe(sb.url);
    const o = await get(sb, '/v1/openapi.json', { key: null });
    expect(o.body.info.version).toBe('2.0.0');
  });

  it('Routing › real endpoints: unknown network, unknown path, a charged list call and its second page', async () => {
    expect((await get(sb, '/v1/myspace/profile')).body.error.type).toBe('UNKNOWN_PLATFORM');
    expect((await get(sb, '/v1/photo_net/nope')).body.error.type).toBe('UNKNOWN_ENDPOINT');
    const p1 = await get(sb, '/v1/photo_net/profile/posts?handle=sample.creator');
    expect(p1.status).toBe(200);
    expect(p1.body.credits_used).toBeGreaterThanOrEqual(20);
    expect(p1.body.credits_used).toBeLessThanOrEqual(340);
    expect(p1.body.pagination.next_cursor).toMatch(/^sdrc1\./);
    const p2 = await get(
      sb,
      `/v1/photo_net/profile/posts?handle=sample.creator&cursor=${encodeURIComponent(p1.body.pagination.next_cursor)}`,
    );
    expect(p2.status).toBe(200);
    const a = new Set((p1.body.data.items as Array<{ post: { id: string } }>).map((x) => x.post.id));
    for (const it of p2.body.data.items as Array<{ post: { id: string } }>) expect(a.has(it.post.id)).toBe(false);
    const total = sb.admin.charges().reduce((s, c) => s + c.credits_used, 0);
    expect(10_000 - sb.admin.balance()).toBe(total);
  });
});
