#!/usr/bin/env node
// `npm start`: the desktop app.
//   1. Electron's binary: used when installed; else fetched (progress on stderr, bounded waits).
//   2. better-sqlite3 for Electron's ABI, beside the Node build (scripts/lib/native.mjs).
//   3. electron-vite build when out/ is missing or older than the sources, then Electron starts.
// When step 1 or 2 cannot be done (no internet access, a blocked download, no compiler), it says
// why and starts the same app as a web page through the web host (scripts/serve.mjs) instead.
// `npm start -- --web` goes straight to the web host; ELECTRON_SKIP_BINARY_DOWNLOAD=1 never downloads.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { downloadFailure, electronPackage, fetchElectron, fetcherNodeProblem, installedElectron, progressLine } from './lib/electron.mjs';
import { electronAbi, ensureElectronNative, verifyInElectron } from './lib/native.mjs';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const say = (m) => process.stderr.write(`${m}\n`);

function newest(dir) {
  let n = 0;
  if (!existsSync(dir)) return 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    n = Math.max(n, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return n;
}

/** Progress on one rewritten line on a terminal; every 10 % on a log. */
function progressPrinter(version, target) {
  let last = -1;
  return (p) => {
    const line = progressLine(version, target, p);
    if (process.stderr.isTTY) process.stderr.write(`\r${line}\x1b[K`);
    else {
      const step = p.total ? Math.floor((p.transferred / p.total) * 10) : -1;
      if (step !== last) say(line);
      last = step;
    }
  };
}

/**
 * The Electron binary, fetched when missing; null (with the reason said, in one sentence) when it
 * cannot be had. Options for tests: root, web, nodeVersion, say, and fetchElectron's own (mirror, …).
 */
export async function electronBinary({
  root: at = root,
  web = args.includes('--web'),
  nodeVersion = process.versions.node,
  say: tell = say,
  ...fetchOptions
} = {}) {
  const have = installedElectron(at);
  if (have) return have;
  const { version } = electronPackage(at);
  if (web) return null;
  if (process.env.ELECTRON_SKIP_BINARY_DOWNLOAD) {
    tell(`Electron's binary is not installed and ELECTRON_SKIP_BINARY_DOWNLOAD is set: not downloading it.`);
    return null;
  }
  const tooOld = fetcherNodeProblem(at, nodeVersion);
  if (tooOld) {
    tell(tooOld);
    return null;
  }
  tell(`Electron's binary is not installed yet: downloading Electron ${version} (about 100 MB, once)…`);
  try {
    const bin = await fetchElectron({
      root: at,
      onProgress: progressPrinter(version, `${process.platform}-${process.arch}`),
      ...fetchOptions,
    });
    if (process.stderr.isTTY) process.stderr.write('\n');
    tell(`Electron ${version} installed: ${bin}`);
    return bin;
  } catch (e) {
    if (process.stderr.isTTY) process.stderr.write('\n');
    tell(downloadFailure(e, version));
    return null;
  }
}

/** better-sqlite3 for Electron; false (with the reason said) when it cannot be had. */
export function electronNative(bin) {
  const { version } = electronPackage(root);
  try {
    const abi = electronAbi(root, version);
    const r = ensureElectronNative({ root, electronVersion: version, abi });
    const err = verifyInElectron(bin, r.path);
    if (err) throw new Error(`the build does not load in Electron ${version}: ${err}`);
    if (r.built) say(`better-sqlite3 for Electron ${version} (ABI ${abi}) ready (${r.via}): ${r.path}`);
    return true;
  } catch (e) {
    say(`${e instanceof Error ? e.message : String(e)}`);
    return false;
  }
}

function webHost(reason) {
  say(
    `${reason} Starting the web host instead — the same app in your browser: npm run serve. ` +
      'To install Electron, run npm start where downloads work.',
  );
  const child = spawn(process.execPath, [join(root, 'scripts', 'serve.mjs'), ...args.filter((a) => a !== '--web')], {
    stdio: 'inherit',
    cwd: root,
    env: process.env,
  });
  process.on('SIGINT', () => child.kill('SIGINT'));
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  child.on('exit', (code) => process.exit(code ?? 0));
}

async function main() {
  const bin = await electronBinary();
  if (!bin) {
    return webHost(args.includes('--web') ? 'Web mode (--web).' : "Electron's binary is not installed here.");
  }
  if (!electronNative(bin))
    return webHost('The desktop app needs better-sqlite3 built for Electron, which could not be fetched or compiled here.');
  const built = join(root, 'out', 'main', 'index.js');
  if (!existsSync(built) || newest(join(root, 'src')) > statSync(built).mtimeMs) {
    say('Building Loupe (electron-vite build)…');
    const r = spawnSync(join(root, 'node_modules', '.bin', 'electron-vite'), ['build'], { stdio: 'inherit', cwd: root });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
  say('Starting Loupe (Electron)…');
  const child = spawn(bin, ['.', ...args], { stdio: 'inherit', cwd: root, env: process.env });
  child.on('exit', (code) => process.exit(code ?? 0));
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) await main();
