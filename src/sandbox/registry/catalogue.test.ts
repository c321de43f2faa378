import { describe, expect, it } from 'vitest';
import { ENDPOINTS, buildCatalogue, buildOpenApi, catalogueEntry, findEndpoint } from './index';

const BASE = 'http://127.0.0.1:4010';

type Op = {
  parameters: Array<{ name: string; required: boolean; schema: Record<string, unknown> }>;
  'x-credits': unknown;
  'x-group': string;
  'x-stability': string;
};

function ops(): Record<string, Op> {
  const doc = buildOpenApi(BASE) as { paths: Record<string, { get: Op }> };
  const out: Record<string, Op> = {};
  for (const [p, item] of Object.entries(doc.paths)) out[p] = item.get;
  return out;
}

describe('catalogue (GET /v1/endpoints)', () => {
  const cat = buildCatalogue(BASE);

  it('has the spec top-level record', () => {
    expect(cat.success).toBe(true);
    expect(cat.base_url).toBe(BASE);
    expect(cat.auth.header).toBe('x-api-key');
    expect(Object.keys(cat.headers).sort()).toEqual(['Cache-Control', 'Idempotency-Key']);
    expect(cat.pricing.free).toContain('dry_run=1');
    expect(cat.meta_endpoints.map((m) => m.path)).toEqual(expect.arrayContaining(['/v1/credits', '/v1/endpoints', '/v1/openapi.json']));
    expect(cat.summary.spec_version).toBe('1.0.0');
    expect(cat.summary.schema_version).toBe('2');
  });

  it('summary counts are computed from ENDPOINTS', () => {
    expect(cat.summary.endpoints).toBe(ENDPOINTS.length);
    expect(cat.summary.endpoints).toBe(cat.endpoints.length);
    expect(cat.summary.gettable).toBe(cat.endpoints.filter((e) => e.available).length);
    expect(cat.summary.gettable).toBeLessThan(cat.summary.endpoints);
    expect(cat.summary.metered).toBe(cat.endpoints.filter((e) => typeof e.credits !== 'number').length);
    expect(cat.summary.platforms).toBe(new Set(cat.endpoints.map((e) => e.platform)).size);
    expect(cat.summary.platforms).toBe(15);
    const maxOne = Math.max(
      ...ENDPOINTS.map((d) => (typeof d.credits === 'number' ? d.credits : d.credits.max) * (d.acceptsMaxPages ? 5 : 1)),
    );
    expect(cat.summary.max_our_credits).toBe(maxOne);
    expect(cat.summary.max_our_credits).toBeLessThanOrEqual(5000);
  });

  it('endpoint entries carry every catalogue field, params with every param field', () => {
    const e = cat.endpoints.find((x) => x.path === '/v1/photo_net/profile/reels');
    expect(e).toBeDefined();
    expect(e).toMatchObject({
      method: 'GET',
      platform: 'photo_net',
      credits: { min: 20, max: 360 },
      tier: 'standard',
      paginates: true,
      available: true,
    });
    for (const entry of cat.endpoints) {
      expect(Object.keys(entry).sort()).toEqual(
        [
          'available',
          'cache_ttl_seconds',
          'credits',
          'description',
          'group',
          'label',
          'method',
          'order',
          'params',
          'path',
          'paginates',
          'platform',
          'tier',
        ].sort(),
      );
      for (const p of entry.params) {
        expect(Object.keys(p).sort()).toEqual(
          ['description', 'enum', 'example', 'help', 'in', 'maximum', 'minimum', 'name', 'one_of_group', 'required', 'type'].sort(),
        );
      }
    }
    const handle = e?.params.find((p) => p.name === 'handle');
    expect(handle?.one_of_group).toBe('user_id|handle');
    // internal validation extras do not leak onto the wire
    expect(JSON.stringify(cat)).not.toContain('maxLength');
  });

  it('catalogueEntry paginates mirrors paging', () => {
    const single = findEndpoint('thread_net', 'profile');
    const paged = findEndpoint('thread_net', 'search');
    if (!single || !paged) throw new Error('missing');
    expect(catalogueEntry(single).paginates).toBe(false);
    expect(catalogueEntry(paged).paginates).toBe(true);
    expect(catalogueEntry(paged).credits).toEqual({ min: 20, max: 680 });
  });
});

describe('OpenAPI document (GET /v1/openapi.json)', () => {
  const doc = buildOpenApi(BASE) as Record<string, unknown> & {
    info: { version: string };
    openapi: string;
    components: { securitySchemes: Record<string, unknown> };
  };
  const operations = ops();
  const cat = buildCatalogue(BASE);

  it('is OpenAPI 3.1 with info version 2.0.0 and an x-api-key header scheme', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('2.0.0');
    expect(doc.components.securitySchemes.ApiKeyAuth).toEqual({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    for (const p of ['/v1/endpoints', '/v1/openapi.json', '/v1/credits']) expect(operations[p], p).toBeDefined();
  });

  it('lists exactly the catalogue paths with the same prices, groups and params', () => {
    const dataPaths = Object.keys(operations).filter((p) => !['/v1/endpoints', '/v1/openapi.json', '/v1/credits'].includes(p));
    expect(dataPaths.sort()).toEqual(cat.endpoints.map((e) => e.path).sort());
    for (const e of cat.endpoints) {
      const op = operations[e.path];
      expect(op['x-credits'], e.path).toEqual(e.credits);
      expect(op['x-group']).toBe(e.group);
      expect(op['x-stability']).toBe('stable');
      expect(op.parameters.map((p) => p.name)).toEqual(e.params.map((p) => p.name));
      for (const p of e.params) {
        const o = op.parameters.find((x) => x.name === p.name);
        expect(o?.required).toBe(p.required);
        expect(o?.schema.type).toBe(p.type);
        if (p.enum) expect(o?.schema.enum).toEqual(p.enum);
        if (p.maximum !== null) expect(o?.schema.maximum).toBe(p.maximum);
      }
    }
  });
});
