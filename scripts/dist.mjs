#!/usr/bin/env node
// `npm run dist [-- --linux|--mac|--win] [--x64|--arm64] [--dir]`: installable packages in dist/
// (AppImage + deb, dmg, NSIS — electron-builder.json). Defaults to this machine's platform and arch.
//   1. electron-vite build (out/)
//   2. better-sqlite3 for Electron, per target (scripts/lib/native.mjs: the prebuilt download for
//      any platform; compiling works for this machine's platform only). electron-builder's own
//      rebuild is off (npmRebuild: false) — it would rebuild node_modules/better-sqlite3 in place
//      and break the Node build the CLI, the web host and the tests use.
//   3. electron-builder --config electron-builder.json with the same flags (it downloads the
//      Electron distribution for each target and flips the fuses).
// Needs internet access (Electron's distribution, the prebuilt). See docs/desktop.md.
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { electronPackage } from './lib/electron.mjs';
import { electronAbi, ensureElectronNative } from './lib/native.mjs';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const PLATFORMS = { '--linux': 'linux', '--mac': 'darwin', '--win': 'win32' };
const ARCHES = ['x64', 'arm64', 'ia32', 'armv7l'];

/** The (platform, arch) pairs a set of electron-builder flags asks for. */
export function targetsOf(argv, host = { platform: process.platform, arch: process.arch }) {
  const platforms = argv.filter((a) => a in PLATFORMS).map((a) => PLATFORMS[a]);
  const arches = argv.filter((a) => ARCHES.includes(a.replace(/^--/, ''))).map((a) => a.replace(/^--/, ''));
  if (argv.includes('--universal'))
    throw new Error('--universal is not supported: build --x64 and --arm64 separately (better-sqlite3 is per arch).');
  const ps = platforms.length ? platforms : [host.platform];
  const as = arches.length ? arches : [host.arch];
  return ps.flatMap((platform) => as.map((arch) => ({ platform, arch })));
}

function step(cmd, argv) {
  const r = spawnSync(cmd, argv, { stdio: 'inherit', cwd: root });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const targets = targetsOf(args);
  step(join(root, 'node_modules', '.bin', 'electron-vite'), ['build']);
  const { version } = electronPackage(root);
  const abi = electronAbi(root, version);
  for (const t of targets) {
    try {
      ensureElectronNative({ root, electronVersion: version, abi, ...t });
    } catch (e) {
      process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    }
  }
  step(join(root, 'node_modules', '.bin', 'electron-builder'), ['--config', 'electron-builder.json', '--publish', 'never', ...args]);
}
