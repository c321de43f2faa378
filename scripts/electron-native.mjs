#!/usr/bin/env node
// `node scripts/electron-native.mjs [--platform P] [--arch A] [--force]`: better-sqlite3 for
// Electron's ABI in .electron-native/<platform>-<arch>/ (prebuilt download, else compiled), without
// touching the Node build in node_modules. `npm start` and `npm run dist` run it; see
// scripts/lib/native.mjs and docs/desktop.md.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { electronPackage, installedElectron } from './lib/electron.mjs';
import { electronAbi, ensureElectronNative, verifyInElectron } from './lib/native.mjs';

const root = resolve(import.meta.dirname, '..');
const { values } = parseArgs({ options: { platform: { type: 'string' }, arch: { type: 'string' }, force: { type: 'boolean' } } });
const platform = values.platform ?? process.platform;
const arch = values.arch ?? process.arch;
const { version } = electronPackage(root);
try {
  const abi = electronAbi(root, version);
  const r = ensureElectronNative({ root, electronVersion: version, abi, platform, arch, force: values.force });
  const bin = platform === process.platform && arch === process.arch ? installedElectron(root) : null;
  if (bin) {
    const err = verifyInElectron(bin, r.path);
    if (err) throw new Error(`the build does not load in Electron ${version}: ${err}`);
  }
  process.stderr.write(`${r.built ? `Built (${r.via})` : 'Up to date'}: ${r.path}${bin ? ' — loads in Electron' : ''}\n`);
} catch (e) {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
}
