/**
 * The sandbox: a local, faithful emulator of the Social Data Read API (docs/sandbox.md).
 *   const sb = await startSandbox({ port: 0, timeScale: 60 });
 *   fetch(`${sb.url}/v1/...`, { headers: { 'x-api-key': sb.key } });
 */
import * as registry from './registry';
import { createWorld } from './world';
import { defaultEpoch, startServer, type SandboxHandle, type SandboxOptions } from './server/start';
import type { RegistryLike } from './server/types';

export type { SandboxAdmin, SandboxHandle, SandboxOptions } from './server/start';
export type { ChaosConfig, ChargeRecord, SandboxStats, ServerDeps, RegistryLike } from './server/types';
export { parseChaos } from './server/chaos';
export { SPEC_VARIANTS, parseVariants, type SpecVariant } from './server/variants';
export { FAULT_KINDS, type FaultKind, type FaultSpec, type QueuedFault } from './server/faults';
export { CURSOR_PREFIX } from './server/cursor';
export { startServer } from './server/start';

/** The real registry, in the shape the server takes. */
export const realRegistry: RegistryLike = {
  findEndpoint: registry.findEndpoint,
  servedPlatforms: registry.SERVED_PLATFORMS,
  buildCatalogue: registry.buildCatalogue,
  buildOpenApi: registry.buildOpenApi,
  validateParams: registry.validateParams,
};

/** Start the sandbox with the real registry and the synthetic world of `seed`. */
export async function startSandbox(opts: SandboxOptions = {}): Promise<SandboxHandle> {
  const epoch = opts.epoch ?? defaultEpoch();
  return startServer(
    { registry: realRegistry, world: createWorld(opts.seed ?? 1, { epoch, attrition: opts.attrition }) },
    { ...opts, epoch },
  );
}
