/**
 * The sandbox endpoint registry: one source of truth for routing, parameter validation,
 * GET /v1/endpoints (catalogue) and GET /v1/openapi.json.
 */
import { PLATFORMS } from '../../shared/api-types';
import type { EndpointDef } from '../types';
import { ENDPOINTS } from './endpoints';

export { ENDPOINTS } from './endpoints';
export {
  buildCatalogue,
  buildOpenApi,
  catalogueEntry,
  catalogueSummary,
  fullPath,
  isMetered,
  maxCredits,
  maxSingleCallCredits,
  meteredCount,
  minCredits,
  OPENAPI_INFO_VERSION,
  SCHEMA_VERSION,
  SPEC_VERSION,
} from './catalogue';
export { isTrue, paramDefault, parseDateParam, validateParams, type ValidationResult } from './validate';
export { JUDGMENT_PARAM_NAMES, RELEVANCE_PARAM_NAMES, SHARED_PARAM_NAMES, type RegistryParam } from './params';

/** The 15 served networks (every one has endpoints in ENDPOINTS). */
export const SERVED_PLATFORMS: readonly string[] = [...PLATFORMS];

const INDEX: ReadonlyMap<string, EndpointDef> = new Map(ENDPOINTS.map((d) => [`${d.platform}/${d.path}`, d]));

/** Look up an endpoint by platform and path (after the platform segment; slashes at the ends ignored). */
export function findEndpoint(platform: string, path: string): EndpointDef | undefined {
  const clean = path.replace(/^\/+|\/+$/g, '');
  return INDEX.get(`${platform}/${clean}`);
}

/** Every endpoint of one platform, in catalogue order. */
export function endpointsOf(platform: string): EndpointDef[] {
  return ENDPOINTS.filter((d) => d.platform === platform);
}
