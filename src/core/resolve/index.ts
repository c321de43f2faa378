/**
 * Reading lists and what their values name (docs/collect.md "Inputs"): the one reading shared by
 * bulk watches (src/core/watch/import.ts) and collection plans (src/core/collect).
 */
export { cells, readLines, TooManyLines, type LineProblem, type RawLine, type ReadLines, type ReadOptions } from './lines';
export {
  accountOf,
  accountOfAddress,
  asUrl,
  HANDLE,
  HANDLE_PARAMS,
  looksLikeUrl,
  otherNetworkOf,
  platformOfHost,
  readAddress,
  unquote,
  URL_PARAMS,
  type AccountOf,
  type AddressRef,
} from './refs';
