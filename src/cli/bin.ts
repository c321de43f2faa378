/**
 * The built command line's entry: `bin/loupe.js` runs `out/cli/bin.js`, which scripts/build-cli.mjs
 * bundles from this file (`npm install`'s prepare step, `npm run build`). No TypeScript is compiled
 * at run time; the core loads only when a command runs (docs/cli.md "Start-up").
 *
 * An export's worker threads start first, from the arguments alone (./early-workers.ts), and load
 * their code while this thread loads the command line's (`import('./main')`: a static import would
 * load it all before any line here runs); the ones no export took are ended at the end.
 */
import { spawnExportWorkers } from './early-workers';
import { endEarlyWorkers } from '../core/export/worker-spawn';

spawnExportWorkers(process.argv.slice(2), process.env);
const { runCli } = await import('./main');

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  // Ctrl-C and SIGTERM stop the command through its cancel path (./interrupt.ts)
  signals: { on: (s, f) => process.on(s, f), off: (s, f) => process.off(s, f), exit: (code) => process.exit(code) },
});
await endEarlyWorkers();
