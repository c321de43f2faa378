/**
 * Types of the sandbox HTTP server (src/sandbox/server). The registry and the world are
 * injected through `ServerDeps` so the server can run against fixtures in tests.
 */
import type { EndpointDef, World } from '../types';

export type ValidateResult = { ok: true; params: Record<string, string> } | { ok: false; type: string; message: string };

/** What the server needs from src/sandbox/registry. */
export interface RegistryLike {
  findEndpoint(platform: string, path: string): EndpointDef | null | undefined;
  /** Platforms that have at least one endpoint (first path segment that is "known"). */
  servedPlatforms: readonly string[];
  buildCatalogue(baseUrl: string): unknown;
  buildOpenApi(baseUrl: string): unknown;
  validateParams(def: EndpointDef, query: Record<string, string>): ValidateResult;
}

export interface ServerDeps {
  registry: RegistryLike;
  world: World;
}

/** Fault injection. Rates are shares (0..1) of data requests that reach the upstream stage. */
export interface ChaosConfig {
  /** 429 RATE_LIMITED with Retry-After (sandbox seconds 1..retryAfter429Max, sent as real seconds). */
  rate429?: number;
  /** 500 INTERNAL_ERROR. */
  rate500?: number;
  /** 503: half UPSTREAM_ERROR (Retry-After 5 sandbox s), half SERVICE_UNAVAILABLE (Retry-After 30 sandbox s). */
  rate503?: number;
  /** Headers and half the JSON body are written, then the socket is destroyed. */
  rateDrop?: number;
  /** Answer normally but `slowMs` real milliseconds later. */
  rateSlow?: number;
  slowMs?: number;
}

/** One row of the server-side billing ledger (`admin.charges()` / `GET /__admin/charges`). */
export interface ChargeRecord {
  request_id: string;
  /** SHA-256 hex of the API key (never the key). */
  key_hash: string;
  account: string;
  platform: string;
  endpoint: string;
  /** Query parameters as received (minus nothing: keys are never in the query). */
  params: Record<string, string>;
  idempotency_key: string | null;
  credits_used: number;
  /** `miss`, `replay`, `cached` (owner re-read), `shared_cache` (2-credit read), `empty`, `dry_run`, or null on errors. */
  charge_reason: string | null;
  cached: boolean;
  free_call: boolean;
  replay: boolean;
  /** HTTP status the server sent (499 when the response never reached the client). */
  status: number;
  error_type: string | null;
  /**
   * Fault that shaped this answer: a scripted fault kind (`drop`, `trickle`, `stall`, `stall-charged`,
   * `status`, `truncate-charged`), `chaos:<kind>` (`chaos:429`, `chaos:drop`...), or null.
   */
  fault: string | null;
  /** the request asked `Cache-Control: no-cache` (a forced fresh fetch, always charged) */
  no_cache?: boolean;
  /**
   * Charged at the reserved ceiling as the retry of an undelivered keyed original (spec
   * "Idempotency retry charging"), with what the same call cost fresh (`fresh_cost`).
   */
  ceiling_retry?: boolean;
  fresh_cost?: number;
  /** ids of the rows of a data answer (list items or the single record), as the service sent them */
  item_ids?: string[];
  /** Sandbox time, ms since epoch. */
  at: number;
  /** Real time, ms since epoch. */
  at_real: number;
}

export interface SandboxStats {
  requests: number;
  counted: number;
  by_status: Record<string, number>;
  credits_charged: number;
  free_calls_used: number;
  in_flight: number;
  keys: number;
  accounts: number;
  chaos_faults: Record<string, number>;
  /** Scripted faults applied so far, by kind. */
  scripted_faults: Record<string, number>;
  /** Scripted faults still queued. */
  faults_queued: number;
  /** Active spec variants. */
  variants: string[];
}
