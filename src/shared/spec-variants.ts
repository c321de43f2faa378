/**
 * The names of the readings of the API spec Loupe is tested under (the sandbox's spec variants,
 * docs/sandbox.md "Spec variants"), for what a bundle's manifest records (`spec_variants_tested`)
 * when the door that asks is not one that knows the sandbox (the app). Kept equal to the sandbox's
 * list by src/core/datasets/spec-variants.test.ts.
 */
export const SPEC_VARIANT_NAMES: readonly string[] = [
  'judgments-beside',
  'record-kinds',
  'lean-envelope',
  'extra-fields',
  'null-remaining',
  'cursor-error',
  'own-params-only',
  'native-ignores-foreign',
  'drop-charged',
  'strict-ceiling',
  'idempotency-per-key',
  'no-cache-window',
  'cache-exact-cursor',
  'cache-window-purchase',
  'cache-window-slides',
];
