// Vitest's global setup:
//  - builds the command line (scripts/build-cli.mjs) once before the tests, so the tests that
//    start `bin/loupe.js` in another process run the code of this tree, even where `npm install`
//    (whose prepare step builds it too) was not run, e.g. a worktree sharing node_modules;
//  - gives the run a temporary folder of its own (TMPDIR, which os.tmpdir() and every process the
//    tests start follow) and removes it at the end: a test's data folders, bundles and exports
//    never pile up in the machine's /tmp, even when a test fails before its own clean-up.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCli } from './build-cli.mjs';

export default async function setup() {
  const root = mkdtempSync(join(tmpdir(), 'loupe-tests-'));
  // as /tmp is: open to every user, sticky (tests run the command line as another user to make a
  // data folder read-only to it: it must reach their folders and stage its own files here)
  chmodSync(root, 0o1777);
  const before = process.env.TMPDIR;
  process.env.TMPDIR = root;
  await buildCli({ quiet: true });
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(root, { recursive: true, force: true });
  };
}
