/**
 * GET /v1/endpoints (spec "Catalogue record") and GET /v1/openapi.json, both built from ENDPOINTS
 * so they can never disagree with routing or validation. Every summary number is computed.
 */
import type { Catalogue, CatalogueEndpoint, CatalogueParam } from '../../shared/api-types';
import type { EndpointDef } from '../types';
import { ENDPOINTS } from './endpoints';
import { catalogueParam } from './params';

export const SPEC_VERSION = '1.0.0';
export const OPENAPI_INFO_VERSION = '2.0.0';
export const SCHEMA_VERSION = '2';

export function fullPath(def: EndpointDef): string {
  return `/v1/${def.platform}/${def.path}`;
}

export function isMetered(def: EndpointDef): boolean {
  return typeof def.credits !== 'number';
}

/** Listed ceiling per page (the price, or the top of the metered range). */
export function maxCredits(def: EndpointDef): number {
  return typeof def.credits === 'number' ? def.credits : def.credits.max;
}

/** Listed floor per page. */
export function minCredits(def: EndpointDef): number {
  return typeof def.credits === 'number' ? def.credits : def.credits.min;
}

/** The most one call can cost: the ceiling times 5 where `max_pages` is accepted. */
export function maxSingleCallCredits(def: EndpointDef): number {
  return maxCredits(def) * (def.acceptsMaxPages ? 5 : 1);
}

export function meteredCount(defs: readonly EndpointDef[] = ENDPOINTS): number {
  return defs.filter(isMetered).length;
}

export function catalogueEntry(def: EndpointDef): CatalogueEndpoint {
  return {
    path: fullPath(def),
    method: 'GET',
    platform: def.platform,
    group: def.group,
    label: def.label,
    description: def.description,
    credits: typeof def.credits === 'number' ? def.credits : { min: def.credits.min, max: def.credits.max },
    tier: def.tier,
    paginates: def.paging !== null,
    cache_ttl_seconds: def.cacheTtlSeconds,
    order: def.order,
    params: def.params.map(catalogueParam),
    available: def.gettable,
  };
}

export function catalogueSummary(defs: readonly EndpointDef[] = ENDPOINTS): Catalogue['summary'] {
  return {
    endpoints: defs.length,
    gettable: defs.filter((d) => d.gettable).length,
    metered: meteredCount(defs),
    platforms: new Set(defs.map((d) => d.platform)).size,
    spec_version: SPEC_VERSION,
    schema_version: SCHEMA_VERSION,
    max_our_credits: defs.reduce((m, d) => Math.max(m, maxSingleCallCredits(d)), 0),
  };
}

export function buildCatalogue(baseUrl: string): Catalogue {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    success: true,
    base_url: base,
    docs: `${base}/docs`,
    auth: {
      header: 'x-api-key',
      format: '<key_prefix>_live_<43 URL-safe characters> (or <key_prefix>_test_...; same credits)',
      note: 'Send the key in the x-api-key header on every data call. The Authorization header is not read; never put the key in a query string. GET /v1/endpoints and GET /v1/openapi.json need no key.',
    },
    headers: {
      'Idempotency-Key':
        'Optional; a fresh UUID per logical operation, scoped to the account. A repeat of an answered call returns the original result (idempotent_replay true, credits_used 0); a repeat while the original runs gets 409 IDEMPOTENCY_IN_PROGRESS with Retry-After. Ignored when longer than 255 characters or containing characters other than letters, digits, ., _, :, -.',
      'Cache-Control': '`no-cache` forces a fresh fetch; always charged.',
    },
    pricing: {
      note: 'credits is the price per call (per page on paginated endpoints). Metered endpoints show {min,max}: the ceiling is held when the call starts and the actual use is charged when it finishes. With max_pages the hold is the ceiling times max_pages. Repeating the exact same call inside the endpoint cache window (cache_ttl_seconds) is free; a shared-cache answer is quoted at 2 credits for a caller who does not already own it.',
      free: [
        'errors',
        'empty results',
        'dry_run=1',
        'idempotent replays',
        'repeat calls inside the cache window',
        'GET /v1/credits',
        'GET /v1/endpoints',
        'GET /v1/openapi.json',
        'the first 10 calls priced at 100 credits or less (introductory)',
      ],
    },
    tools: {
      mcp: { url: `${base}/mcp`, note: 'Hosted agent tool server (sign-in required).' },
      cli: { note: 'Command-line initialiser.' },
      skills: { note: 'Installable skills package.' },
    },
    summary: catalogueSummary(ENDPOINTS),
    meta_endpoints: [
      { path: '/v1/credits', method: 'GET', key: true, credits: 0, description: "Balance and this period's usage of the key owner." },
      { path: '/v1/endpoints', method: 'GET', key: false, credits: 0, description: 'This catalogue.' },
      { path: '/v1/openapi.json', method: 'GET', key: false, credits: 0, description: 'OpenAPI 3.1 document of every endpoint.' },
      { path: '/v1', method: 'GET', key: false, credits: 0, description: 'Service root; does not count toward the rate limit.' },
    ],
    endpoints: ENDPOINTS.map(catalogueEntry),
  };
}

// ---------------------------------------------------------------------------------------------
// OpenAPI 3.1
// ---------------------------------------------------------------------------------------------

function paramSchema(p: CatalogueParam): Record<string, unknown> {
  const schema: Record<string, unknown> = { type: p.type };
  if (p.enum && p.enum.length > 0) schema.enum = [...p.enum];
  if (p.minimum !== null && p.minimum !== undefined) schema.minimum = p.minimum;
  if (p.maximum !== null && p.maximum !== undefined) schema.maximum = p.maximum;
  return schema;
}

/**
 * The catalogue's example in the parameter's own type: a boolean's `1` (how a query string says
 * it, and how the catalogue shows it) is `true` in the OpenAPI document, whose examples are checked
 * against their schema (Spectral's oas3-valid-media-example, Redocly's
 * no-invalid-parameter-examples); a number given as text becomes the number.
 */
export function typedExample(p: CatalogueParam): unknown {
  const x = p.example;
  if (x === null || x === undefined) return undefined;
  if (p.type === 'boolean') {
    if (typeof x === 'boolean') return x;
    if (x === 1 || x === '1' || x === 'true') return true;
    if (x === 0 || x === '0' || x === 'false') return false;
    return undefined;
  }
  if (p.type === 'integer' || p.type === 'number') {
    const n = typeof x === 'number' ? x : Number(x);
    return Number.isFinite(n) && (p.type === 'number' || Number.isInteger(n)) ? n : undefined;
  }
  return typeof x === 'string' ? x : String(x);
}

function openApiParam(p: CatalogueParam): Record<string, unknown> {
  const o: Record<string, unknown> = {
    name: p.name,
    in: 'query',
    required: p.required,
    description: p.one_of_group ? `${p.description} (one of: ${p.one_of_group.split('|').join(' | ')})` : p.description,
    schema: paramSchema(p),
  };
  const example = typedExample(p);
  if (example !== undefined) o.example = example;
  if (p.one_of_group) o['x-one-of-group'] = p.one_of_group;
  return o;
}

const ERROR_REF = { $ref: '#/components/responses/Error' };

function operation(def: EndpointDef): Record<string, unknown> {
  const op: Record<string, unknown> = {
    operationId: `${def.platform}__${def.path.replace(/[^A-Za-z0-9]+/g, '_')}`,
    summary: def.label,
    description: def.description,
    tags: [def.platform],
    parameters: def.params.map(openApiParam),
    security: [{ ApiKeyAuth: [] }],
    responses: {
      '200': { description: 'Success envelope', content: { 'application/json': { schema: { $ref: '#/components/schemas/Envelope' } } } },
      '400': ERROR_REF,
      '401': ERROR_REF,
      '402': ERROR_REF,
      '404': ERROR_REF,
      '405': ERROR_REF,
      '409': ERROR_REF,
      '429': ERROR_REF,
      '500': ERROR_REF,
      '503': ERROR_REF,
    },
    'x-credits': typeof def.credits === 'number' ? def.credits : { min: def.credits.min, max: def.credits.max },
    'x-group': def.group,
    'x-stability': 'stable',
    'x-tier': def.tier,
    'x-paginates': def.paging !== null,
    'x-cache-ttl-seconds': def.cacheTtlSeconds,
    'x-available': def.gettable,
  };
  return op;
}

export function buildOpenApi(baseUrl: string): Record<string, unknown> {
  const base = baseUrl.replace(/\/+$/, '');
  const paths: Record<string, unknown> = {};
  for (const def of ENDPOINTS) paths[fullPath(def)] = { get: operation(def) };
  paths['/v1/endpoints'] = {
    get: {
      operationId: 'meta__endpoints',
      summary: 'Catalogue',
      description: 'The catalogue record; free, no key.',
      tags: ['meta'],
      security: [],
      parameters: [],
      responses: { '200': { description: 'Catalogue record', content: { 'application/json': { schema: { type: 'object' } } } } },
      'x-credits': 0,
      'x-group': 'meta',
      'x-stability': 'stable',
    },
  };
  paths['/v1/openapi.json'] = {
    get: {
      operationId: 'meta__openapi',
      summary: 'OpenAPI document',
      description: 'This document; free, no key.',
      tags: ['meta'],
      security: [],
      parameters: [],
      responses: { '200': { description: 'OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object' } } } } },
      'x-credits': 0,
      'x-group': 'meta',
      'x-stability': 'stable',
    },
  };
  paths['/v1/credits'] = {
    get: {
      operationId: 'meta__credits',
      summary: 'Credits',
      description: "Balance and this period's usage of the key owner; free.",
      tags: ['meta'],
      security: [{ ApiKeyAuth: [] }],
      parameters: [],
      responses: { '200': { description: 'Balance', content: { 'application/json': { schema: { type: 'object' } } } }, '401': ERROR_REF },
      'x-credits': 0,
      'x-group': 'meta',
      'x-stability': 'stable',
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Social Data Read API',
      version: OPENAPI_INFO_VERSION,
      description: `Read-only public social data across ${new Set(ENDPOINTS.map((d) => d.platform)).size} networks. Catalogue spec_version ${SPEC_VERSION}; schema_version ${SCHEMA_VERSION}.`,
    },
    servers: [{ url: base }],
    security: [{ ApiKeyAuth: [] }],
    tags: [...new Set(ENDPOINTS.map((d) => d.platform)), 'meta'].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: { ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      schemas: {
        Envelope: {
          type: 'object',
          required: [
            'success',
            'platform',
            'endpoint',
            'schema_version',
            'unavailable',
            'credits_used',
            'credits_remaining',
            'request_id',
            'cached',
            'idempotent_replay',
            'charge_reason',
            'free_call',
            'data',
          ],
          properties: {
            success: { type: 'boolean', const: true },
            platform: { type: 'string' },
            endpoint: { type: 'string' },
            schema_version: { type: 'string', const: SCHEMA_VERSION },
            pagination: {
              type: 'object',
              properties: {
                next_cursor: { type: ['string', 'null'] },
                has_more: { type: 'boolean' },
                page_size: { type: 'integer' },
                stopped_at: { type: ['string', 'null'], enum: ['since', 'known_id', 'end', null] },
              },
            },
            unavailable: { type: 'array', items: { type: 'string' } },
            credits_used: { type: 'integer' },
            credits_remaining: { type: ['integer', 'null'] },
            request_id: { type: 'string' },
            cached: { type: 'boolean' },
            idempotent_replay: { type: 'boolean' },
            charge_reason: { type: 'string' },
            free_call: { type: 'boolean' },
            data: { type: 'object' },
          },
        },
        ErrorEnvelope: {
          type: 'object',
          required: ['success', 'error', 'request_id', 'credits_used', 'credits_remaining'],
          properties: {
            success: { type: 'boolean', const: false },
            error: {
              type: 'object',
              required: ['type', 'message'],
              properties: { type: { type: 'string' }, message: { type: 'string' }, reason: { type: 'string' } },
            },
            request_id: { type: 'string' },
            credits_used: { type: 'integer', const: 0 },
            credits_remaining: { type: ['integer', 'null'] },
          },
        },
      },
      responses: {
        Error: {
          description: 'Error envelope',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
        },
      },
    },
  };
}
