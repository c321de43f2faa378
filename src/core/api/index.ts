/**
 * The request core: everything that talks to the Social Data Read API.
 * See docs/request-core.md.
 */
export { createApiCore, type ApiCoreOptions } from './core';
export { retryDelay, classify } from './retry';
export { keyAfterLoss, attribute } from './call/attribution';
export { balanceFigure } from './balance-book';
export { ApiError, exitCodeFor, isApiError, type ApiErrorKind, type ApiErrorInit } from './errors';
export { Pacer, DEFAULT_LIMITS, type PacerLimits, type PacerStats, type Release } from './pacer';
export { KeyPool, NoKeys, type PoolKey } from './key-pool';
export { MemoryPaceBook, SqlitePaceBook, openPaceBook, type PaceBook } from './pace-book';
export {
  validateParams,
  holdOf,
  priceOf,
  isMetered,
  isDryRun,
  maxPagesOf,
  pagesOf,
  nativePagingParamOf,
  CatalogueIndex,
  type PriceRange,
  type ValidationResult,
  type ValidationOk,
  type ValidationFail,
} from './catalogue';
export { canonicalParams, paramsHash, normalizeEndpoint, redact } from './canonical';
export { realClock, scaledClock } from './clock';
export { Emitter } from './events';
export type {
  ApiCore,
  ApiEvents,
  AttemptEvent,
  CallOptions,
  CallResult,
  CallTarget,
  CatalogueApi,
  PacerView,
  Priority,
  Quote,
  WalkEstimate,
  WalkOptions,
  WalkPage,
  WalkProgress,
  WalkResult,
} from './types';
export { paramNames, readCatalogueFile } from './catalogue';
export type { HttpPort } from './http';
export { storedInsideWindow } from './call/serve';
