/** Small helpers the watch service's modules share. */
import type { CatalogueEndpoint } from '../../shared/api-types';
import { ApiError } from '../api';
import type { ApiCore } from '../api';
import type { WatchlistRow, WatchStore } from '../archive';

export const HOUR = 3_600_000;
export const DAY = 86_400_000;

export function invalid(message: string): ApiError {
  return new ApiError({ kind: 'validation', message });
}

export function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export function isoOf(ms: number): string {
  return new Date(ms).toISOString();
}

export function parseTime(v: string | undefined): number | null {
  if (!v) return null;
  const t = /^\d{4}-\d{2}-\d{2}$/.test(v) ? Date.parse(`${v}T00:00:00Z`) : Date.parse(v);
  return Number.isFinite(t) ? t : null;
}

export function endpointOf(api: ApiCore, w: { platform: string; endpoint: string }): CatalogueEndpoint {
  const ep = api.catalogue.find(w.platform, w.endpoint);
  if (!ep) throw invalid(`${w.platform}/${w.endpoint} is not in the catalogue.`);
  return ep;
}

export const accepts = (ep: CatalogueEndpoint, name: string) => ep.params.some((p) => p.name === name);

export function mustList(store: WatchStore, id: string): WatchlistRow {
  const l = store.list(id);
  if (!l) throw invalid(`No watchlist with id ${id}.`);
  return l;
}
