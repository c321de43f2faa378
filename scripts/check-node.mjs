#!/usr/bin/env node
// The Node version check `npm test` starts with (.ci/run runs npm test): this Node must satisfy
// package.json's engines.node (">=20.19": 20.19+, 22, 24 — the README says so). Exit 1 with the
// reason and the way out otherwise. Below Electron's downloader's floor (22.12 for Electron 45) it
// notes that `npm start` cannot fetch Electron's binary on this Node.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8'));
const want = pkg.engines?.node ?? '';
const m = /^>=\s*(\d+)\.(\d+)(?:\.(\d+))?$/.exec(want.trim());
if (!m) {
  console.error(`package.json engines.node is "${want}": write it as ">=MAJOR.MINOR" for this check.`);
  process.exit(1);
}
const need = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
const have = process.versions.node.split('.').map(Number);
const ok = have[0] !== need[0] ? have[0] > need[0] : have[1] !== need[1] ? have[1] > need[1] : have[2] >= need[2];
if (!ok) {
  console.error(
    `Node ${process.versions.node} is too old for Loupe: it needs Node ${want.replace('>=', '')} or newer (20, 22 and 24 are supported). Install a newer Node and run npm ci again.`,
  );
  process.exit(1);
}
console.log(`Node ${process.versions.node} satisfies engines.node ${want}.`);
// The one thing that needs a newer Node: fetching Electron's binary (its downloader's engines). Said,
// not failed — nothing `npm test` runs fetches it, and `npm start` opens the web host instead.
try {
  const { fetcherNodeProblem } = await import('./lib/electron.mjs');
  const note = fetcherNodeProblem(join(import.meta.dirname, '..'));
  if (note) console.log(`Note: ${note}`);
} catch {}
