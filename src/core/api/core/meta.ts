/**
 * Meta calls (docs/request-core.md "Pipeline of one call"): `/v1/endpoints`, `/v1/openapi.json`,
 * `/v1/credits` — free and not rate counted, so they skip the pacer and the ledger; retried up to 3
 * times on network failures and 5xx.
 */
import { RETRYABLE_ERROR_TYPES } from '../../../shared/api-types';
import type { Clock } from '../../ports';
import { cancelled } from '../call-errors';
import { ApiError, describeApiError } from '../errors';
import type { HttpOutcome, HttpPort } from '../http';
import { asErrorEnvelope, retryAfterOf, retryDelay } from '../retry';

export const META_RETRIES = 3;

export interface MetaDeps {
  http: HttpPort;
  clock: Clock;
  random: () => number;
  /** the checked base address (throws a validation error when it is not http(s)) */
  baseUrl: () => string;
  /** the key for the calls that need one */
  key: () => Promise<string>;
  scrub: (text: string) => string;
  timeoutMs: () => number;
}

export type MetaGet = (path: string, withKey: boolean, signal?: AbortSignal) => Promise<unknown>;

export function createMeta(d: MetaDeps): MetaGet {
  return async function metaGet(path, withKey, signal) {
    const headers: Record<string, string> = {};
    if (withKey) headers['x-api-key'] = await d.key();
    let lastErr: ApiError | undefined;
    for (let attempt = 0; attempt <= META_RETRIES; attempt++) {
      let out: HttpOutcome;
      try {
        out = await d.http.get(`${d.baseUrl()}/v1/${path}`, headers, signal, d.timeoutMs());
      } catch (e) {
        throw cancelled(e);
      }
      if (!out.failure && out.status !== null && out.status < 400 && out.json !== undefined) return out.json;
      const env = asErrorEnvelope(out.json);
      const type = env?.error.type;
      const retryable =
        !!out.failure || (out.status !== null && out.status >= 500) || (type !== undefined && RETRYABLE_ERROR_TYPES.has(type));
      lastErr = env
        ? new ApiError({
            kind: 'api',
            type,
            status: out.status ?? undefined,
            requestId: env.request_id,
            message: describeApiError(type ?? 'ERROR', d.scrub(env.error.message ?? ''), env.request_id, out.status ?? undefined),
          })
        : new ApiError({
            kind: 'network',
            status: out.status ?? undefined,
            message: `Could not read /v1/${path}: ${out.failure?.message ?? `HTTP ${out.status}`}.`,
          });
      if (!retryable) throw lastErr;
      if (attempt < META_RETRIES) {
        try {
          await d.clock.sleep(retryDelay(attempt, retryAfterOf(out), d.random), signal);
        } catch (e) {
          throw cancelled(e);
        }
      }
    }
    throw new ApiError({
      kind: 'gave_up',
      type: lastErr?.type,
      status: lastErr?.status,
      requestId: lastErr?.requestId,
      message: `Gave up reading /v1/${path} after ${META_RETRIES} retries: ${lastErr?.message ?? 'no answer'}`,
    });
  };
}

/** The base address as given (a trailing slash or /v1 tolerated), checked before each use. */
export function baseUrlOf(given: string): { url: string; checked: () => string } {
  const url = given.replace(/\/+$/, '').replace(/\/v1$/, '');
  return {
    url,
    checked: () => {
      let u: URL | null = null;
      try {
        u = new URL(url);
      } catch {
        u = null;
      }
      if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:'))
        throw new ApiError({
          kind: 'validation',
          message: `The base URL "${url}" is not an http(s) address; set it in Settings, --base-url or LOUPE_BASE_URL (e.g. https://api.example.com).`,
        });
      return url;
    },
  };
}
