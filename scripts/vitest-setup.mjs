// Vitest's global setup: builds the command line (scripts/build-cli.mjs) once before the tests, so
// the tests that start `bin/loupe.js` in another process run the code of this tree, even where
// `npm install` (whose prepare step builds it too) was not run, e.g. a worktree sharing node_modules.
import { buildCli } from './build-cli.mjs';

export default async function setup() {
  await buildCli({ quiet: true });
}
