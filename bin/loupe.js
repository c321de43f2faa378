#!/usr/bin/env node
// `loupe` (npx loupe): runs the built command line, plain JavaScript in out/cli, built by
// `npm install` (the prepare step) or `npm run build` — no TypeScript is compiled at run time.
// From the sources, for development: `npm run loupe -- <command>`.
import { existsSync } from 'node:fs';

const entry = new URL('../out/cli/bin.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    'loupe: the command line is not built yet. Run `npm run build:cli` (or `npm install`) in the Loupe folder, then try again.\n',
  );
  process.exit(1);
}
await import(entry.href);
