import type { CatalogueEndpoint } from '../../shared/api-types';
import type { CallTarget, Clock, CoreStore, Priority } from '../ports';
import type { Emitter } from './events';
import type { ApiEvents, CallOptions, CallResult, Quote } from './types';

/**
 * Internal surface the walker uses: built by core.ts (createApiCore), consumed by the walker (walk/). Its own
 * module so the walker does not import core.ts, which imports the walker (no import cycle).
 */
export interface CoreInternals {
  clock: Clock;
  store: CoreStore;
  events: Emitter<ApiEvents>;
  log: (line: string) => void;
  call: <D = Record<string, unknown>>(target: CallTarget, opts?: CallOptions) => Promise<CallResult<D>>;
  endpoint: (target: CallTarget) => Promise<CatalogueEndpoint>;
  /** what a call may hold: ceiling × pages (quote-based for collect-until-N `limit`) */
  holdOf: (ep: CatalogueEndpoint, target: CallTarget) => Promise<number>;
  /** the free price quote (dry_run=1) */
  quote: (target: CallTarget, opts?: Omit<CallOptions, 'fresh' | 'opKey'>) => Promise<Quote>;
  /**
   * per walk, across drive() calls in this process (watches drive one page at a time): the
   * position of the last cursor rejection — a position refused again after starting over fails
   * the walk, never a loop
   */
  restarts: Map<string, { lastRejectedAt: number | null }>;
  /** last known balance (credits_remaining), or null */
  balance: () => number | null;
  eta: (n: number, priority: Priority) => number;
}
