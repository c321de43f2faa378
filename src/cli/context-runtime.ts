/**
 * The heavy half of the command line's context (context.ts): the composition of the app, the
 * in-process sandbox, the secret stores, the contract's input schemas and the watchlist service (built on first use).
 * Loaded by `loadRuntime()` when a command runs (main.ts's preAction), never for `--help` or
 * `--version`, so those start without reading the whole core (docs/cli.md "Start-up").
 */
export {
  composeApp,
  doorSetup,
  maintenanceImpl,
  migrationPrinter,
  onDemandWatchFactory,
  pickSecretStoreOnUse,
  prepareDoor,
} from '../core/compose';
export { parseMaintenanceInput } from '../shared/contract-maintenance';
export { parseLocalInput } from '../shared/contract-local';
export { parseInput } from '../shared/contract';
export { toBridgeError } from '../core/bridge';
