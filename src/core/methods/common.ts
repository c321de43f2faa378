/** Small helpers more than one method slice uses. */
import type { CatalogueEndpoint } from '../../shared/api-types';
import type { Target } from '../../shared/contract';
import type { ApiCore } from '../api';
import { normalizeEndpoint } from '../api';
import { AppError } from '../bridge';

export function parseParams(s: string): Record<string, string> {
  try {
    const v: unknown = JSON.parse(s);
    if (v && typeof v === 'object' && !Array.isArray(v))
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, String(x)]));
  } catch {}
  return {};
}

export function toTarget(t: Target) {
  return { platform: t.platform, endpoint: t.endpoint, params: { ...t.params } };
}

export async function findEndpoint(core: ApiCore, t: Target): Promise<CatalogueEndpoint> {
  await core.catalogue.load();
  const ep = core.catalogue.find(t.platform, t.endpoint);
  if (!ep)
    throw new AppError(
      'validation',
      `The catalogue has no endpoint "${normalizeEndpoint(t.platform, t.endpoint)}" on ${t.platform}.`,
      'UNKNOWN_ENDPOINT',
    );
  return ep;
}
