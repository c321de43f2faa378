/** Re-checking a saved set (docs/collect.md): its items read again as one priced plan of single-item reads. */
export { planRecheck, type RecheckDeps, resolveTarget, runRecheck } from './recheck';
