/**
 * The catalogue (docs/request-core.md "Pipeline of one call", step 1): `GET /v1/endpoints` (keyless,
 * free) loaded once and kept in memory (24 h) and in `catalogueFile` when given; the endpoint of a
 * call looked up and validated, refusing only what is certainly wrong, before anything is spent.
 */
import type { Catalogue, CatalogueEndpoint } from '../../../shared/api-types';
import type { CallTarget, Clock } from '../../ports';
import { normalizeEndpoint } from '../canonical';
import {
  CatalogueIndex,
  isCatalogue,
  readCatalogueFile,
  validateParams,
  writeCatalogueFile,
  type ValidationOk,
  type ValidationResult,
} from '../catalogue';
import { ApiError } from '../errors';
import type { Emitter } from '../events';
import type { ApiEvents, CatalogueApi } from '../types';
import type { MetaGet } from './meta';

export interface Endpoints {
  catalogue: CatalogueApi;
  validate: (target: CallTarget) => Promise<ValidationResult>;
  /** the validated entry of a call, or a validation error (warnings emitted once per endpoint) */
  endpointOf: (target: CallTarget) => Promise<CatalogueEndpoint>;
}

export interface EndpointsDeps {
  meta: MetaGet;
  clock: Clock;
  file?: string;
  maxAgeMs?: number;
  log: (line: string) => void;
  events: Emitter<ApiEvents>;
}

export function createEndpoints(d: EndpointsDeps): Endpoints {
  const { catalogue, loaded } = createCatalogue(d);
  async function validate(target: CallTarget): Promise<ValidationResult> {
    await catalogue.load();
    return validateTarget(loaded(), target);
  }
  const warn = warnOnce(d);
  async function endpointOf(target: CallTarget): Promise<CatalogueEndpoint> {
    const v = await validate(target);
    if (!v.ok) throw new ApiError({ kind: 'validation', message: v.message });
    warn(target, v.warnings);
    return v.endpoint;
  }
  return { catalogue, validate, endpointOf };
}

/** a catalogue fetched at `at` is still used at `now` */
export const isFresh = (at: number, now: number, maxAgeMs: number): boolean => now - at < maxAgeMs;

/**
 * The catalogue in memory: fetched once (concurrent loads share the fetch), kept `maxAgeMs`, read
 * from the file when that copy is fresh; `loaded()` is the index once a load has returned.
 */
function createCatalogue(d: EndpointsDeps): { catalogue: CatalogueApi; loaded: () => CatalogueIndex } {
  let index: CatalogueIndex | undefined;
  let indexAt: number | null = null;
  let loading: Promise<Catalogue> | undefined;
  let openapiDoc: Record<string, unknown> | undefined;
  const maxAge = d.maxAgeMs ?? 24 * 3600_000;

  const fetchCatalogue = async (): Promise<Catalogue> => {
    try {
      const j = await d.meta('endpoints', false);
      if (!isCatalogue(j)) throw new ApiError({ kind: 'network', message: 'The catalogue at /v1/endpoints had an unexpected shape.' });
      index = new CatalogueIndex(j);
      indexAt = d.clock.now();
      if (d.file) writeCatalogueFile(d.file, indexAt, j);
      return j;
    } finally {
      loading = undefined;
    }
  };

  const catalogue: CatalogueApi = {
    async load(o?: { force?: boolean }): Promise<Catalogue> {
      if (!o?.force && index && indexAt !== null && isFresh(indexAt, d.clock.now(), maxAge)) return index.record;
      if (!o?.force && !index && d.file) {
        const f = readCatalogueFile(d.file);
        if (f && isFresh(f.fetchedAt, d.clock.now(), maxAge)) {
          index = new CatalogueIndex(f.catalogue);
          indexAt = f.fetchedAt;
          return f.catalogue;
        }
      }
      loading ??= fetchCatalogue();
      return loading;
    },
    async openapi(o?: { force?: boolean }) {
      if (openapiDoc && !o?.force) return openapiDoc;
      const j = await d.meta('openapi.json', false);
      if (!j || typeof j !== 'object') throw new ApiError({ kind: 'network', message: 'The OpenAPI document had an unexpected shape.' });
      openapiDoc = j as Record<string, unknown>;
      return openapiDoc;
    },
    find: (platform: string, path: string) => index?.find(platform, path),
    list: (platform?: string) => (index ? index.list(platform) : []),
    loadedAt: () => indexAt,
  };
  const loaded = (): CatalogueIndex => {
    if (!index) throw new Error('The catalogue is read before it was loaded.');
    return index;
  };
  return { catalogue, loaded };
}

/**
 * A call's target against the catalogue (pure): an unknown network or endpoint is refused with the
 * ones it serves; otherwise its parameters are checked (catalogue.ts `validateParams`).
 */
export function validateTarget(idx: CatalogueIndex, target: CallTarget): ValidationResult {
  const platform = String(target.platform);
  if (!idx.platforms.includes(platform))
    return { ok: false, message: `Unknown network '${platform}': the catalogue serves ${idx.platforms.join(', ')}.` };
  const ep = idx.find(platform, target.endpoint);
  if (!ep)
    return {
      ok: false,
      message: `Unknown endpoint '${normalizeEndpoint(platform, target.endpoint)}' on ${platform}; see the catalogue for the paths it serves.`,
    };
  return validateParams(ep, target.params);
}

/** Each warning of an endpoint logged and emitted once per process. */
function warnOnce(d: Pick<EndpointsDeps, 'log' | 'events'>): (target: CallTarget, warnings: ValidationOk['warnings']) => void {
  const warned = new Set<string>();
  return (target, warnings) => {
    for (const w of warnings) {
      const id = `${w.code}|${target.platform}/${target.endpoint}`;
      if (warned.has(id)) continue;
      warned.add(id);
      d.log(`warning: ${w.message}`);
      d.events.emit('warning', w);
    }
  };
}
