/** Re-checking a saved set (docs/datasets.md): its items read again as one priced plan of single-item reads; dataset bundles. */
export { planRecheck, type RecheckDeps, resolveTarget, runRecheck } from './recheck';
export { exportBundle, setSavedOf, type Manifest, type ManifestCall, type SetSaved } from './bundle';
export { importBundle, readVerifiedManifest, verifyBundle } from './bundle-check';
export { planRehydrate, rehydrationWalks, runRehydrate, type RehydrationWalk } from './rehydrate';
export { bundleUploads, type BundleUploads } from './uploads';
