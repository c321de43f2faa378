export { planRecheck, type RecheckDeps, resolveTarget, runRecheck } from './recheck';
