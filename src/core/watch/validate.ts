/**
 * Validation of what a user gives the watch service: schedules, watches (a list endpoint of the
 * catalogue with parameters it accepts, none the service manages itself), first-run pages.
 * Every refusal is an ApiError of kind 'validation' with one sentence.
 */
import { Cron } from 'croner';
import { normalizeEndpoint } from '../api';
import { ApiError } from '../api';
import type { ScheduleDef } from '../archive';
import type { WatchParts } from './types';
import { endpointOf, invalid } from './util';

/** Params a watch must not carry: the service owns paging and the incremental boundary. */
const MANAGED_PARAMS = new Set([
  'cursor',
  'dry_run',
  'stop_at_id',
  'continuationToken',
  'max_cursor',
  'next_page_id',
  'pagination_token',
  'next_max_id',
  'max_id',
  'after',
  'page',
]);

export function checkSchedule(s: ScheduleDef | null | undefined): ScheduleDef | null {
  if (!s) return null;
  const out: ScheduleDef = {};
  if (s.everyHours !== undefined) {
    if (!(s.everyHours > 0) || s.everyHours > 24 * 31) throw invalid('A schedule runs every 0–744 hours.');
    out.everyHours = s.everyHours;
  }
  if (s.cron !== undefined && s.cron.trim() !== '') {
    try {
      new Cron(s.cron.trim(), { paused: true }).stop();
    } catch (e) {
      throw invalid(`The cron expression '${s.cron}' is not valid: ${e instanceof Error ? e.message : String(e)}.`);
    }
    out.cron = s.cron.trim();
  }
  if (out.everyHours !== undefined && out.cron !== undefined)
    throw invalid('Give a schedule as every N hours or as a cron expression, not both.');
  return out.everyHours === undefined && out.cron === undefined ? null : out;
}

export async function checkWatch(
  parts: Pick<WatchParts, 'apiCore' | 'log'>,
  w: { platform: string; endpoint: string; params?: Record<string, string> },
): Promise<{ platform: string; endpoint: string; params: Record<string, string> }> {
  const params = { ...(w.params ?? {}) };
  const managed = Object.keys(params).filter((k) => MANAGED_PARAMS.has(k));
  if (managed.length)
    throw invalid(`A watch manages paging and the incremental boundary itself; leave out ${managed.map((m) => `'${m}'`).join(', ')}.`);
  let endpoint = w.endpoint;
  try {
    const api = await parts.apiCore();
    const ep = endpointOf(api, w);
    if (!ep.paginates)
      throw invalid(
        `${w.platform}/${normalizeEndpoint(w.platform, ep.path)} returns a single answer, not a list; a watch needs a list endpoint.`,
      );
    const v = await api.validate({ platform: w.platform, endpoint: w.endpoint, params });
    if (!v.ok) throw invalid(v.message);
    endpoint = normalizeEndpoint(w.platform, ep.path);
  } catch (e) {
    if (e instanceof ApiError && e.kind === 'validation') throw e;
    // catalogue unreachable: accept as given; the run reports any problem
    parts.log(`watch: could not validate ${w.platform}/${w.endpoint} now: ${e instanceof Error ? e.message : String(e)}`);
    endpoint = normalizeEndpoint(w.platform, w.endpoint);
  }
  return { platform: w.platform, endpoint, params };
}

/** First-run pages: a whole number from 1 to 100. */
export function checkFirstRunPages(n: number): number {
  if (!Number.isInteger(n) || n < 1 || n > 100) throw invalid('First-run pages must be a whole number from 1 to 100.');
  return n;
}

/** Whether two watches name the same call (endpoint spelling and param order aside). */
export const sameTarget = (
  a: { platform: string; endpoint: string; params: Record<string, string> },
  b: { platform: string; endpoint: string; params: Record<string, string> },
) =>
  a.platform === b.platform &&
  normalizeEndpoint(a.platform, a.endpoint) === normalizeEndpoint(b.platform, b.endpoint) &&
  JSON.stringify(Object.entries(a.params).sort()) === JSON.stringify(Object.entries(b.params).sort());
