// What the command line may import of src/core (docs/architecture.md "One contract for every
// door", issue 25): the CLI composes the same app as the other doors and calls the contract's
// methods (src/shared/contract*.ts, implemented by src/core/methods/<domain>.ts); of core it sees
// only the composition and the ground every door stands on. One table, read per import by the
// layer rule (eslint-rules/layers.js) and over the whole graph by scripts/structure.mjs. There is
// no list of exceptions: the last reach-arounds (the export to a file, the watchlist looked up by
// name) went through the contract in issue 25, and the list that held them was removed with them.

/** The core modules every CLI file may import (paths relative to src/core), with why. */
export const CLI_CORE = {
  'compose.ts': 'the composition every door starts an app with (and its options: the archive mode, the migration printer)',
  'app.ts': "the composed app's type",
  'paths.ts': 'where the data folder, the archive and the settings file are',
  'storage-error.ts': 'the storage error a closed pipe or a full disk becomes (exit 6)',
  'bridge.ts': 'an error in the terms every door reports it in',
  'partial-files.ts':
    "the temporary name an output file (`--out`) is written under, and the sweep of what a killed run left there (every file Loupe writes beside the user's uses it)",
  'export/worker-spawn.ts':
    "an export's worker threads, started by the built command line's entry before it loads its code (src/cli/early-workers.ts); the export takes them through local.exportFile",
};

/** Tests and their harnesses may read anything (a test may build the whole app). */
const isTestCode = (rel) => /(^|[\\/])(test-[\w-]+\.ts|[\w.-]+\.test\.tsx?|run-captured\.ts|test-driver\.ts)$/.test(rel);

/**
 * What is wrong with an import from a CLI file to a core file (paths relative to src/cli and
 * src/core, '/'-separated), or null.
 */
export function cliImportProblem(fromRel, toRel) {
  if (isTestCode(fromRel)) return null;
  if (CLI_CORE[toRel]) return null;
  return `src/cli/${fromRel} imports src/core/${toRel}: the command line calls the contract's methods (add one in src/core/methods/ and its schema in src/shared/contract*.ts); of core it may import only ${Object.keys(CLI_CORE).join(', ')}`;
}
