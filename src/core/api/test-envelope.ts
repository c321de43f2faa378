/** Test fixtures' successful answer, as the service sends it (its keys in the service's order). */
import type { Envelope } from '../../shared/api-types';

export function successEnvelope(
  platform: string,
  endpoint: string,
  data: Record<string, unknown>,
  charge: Pick<Envelope, 'credits_used' | 'credits_remaining' | 'request_id'>,
): Envelope {
  const { credits_used, credits_remaining, request_id } = charge;
  return {
    success: true,
    platform,
    endpoint,
    schema_version: '2',
    unavailable: [],
    credits_used,
    credits_remaining,
    request_id,
    cached: false,
    idempotent_replay: false,
    charge_reason: 'miss',
    free_call: false,
    data,
  };
}
