// Electron's binary for `npm start`: where it is, and fetching it when it is missing.
//
// The electron npm package is installed without fetching its binary (Electron 45's package has no
// postinstall; allowScripts.electron = false in package.json covers older ones), so `npm ci` works on
// machines without internet access. Where downloads work, `npm start` fetches the binary itself, the
// way the package's install.js does (same @electron/get, same pinned checksums, same dist/ layout and
// path.txt) but with visible progress, a bounded wait and a sentence instead of a stack when it fails.
// @electron/get 5 and Electron's zip extractor are ES modules for Node >= 22.12 (their engines):
// `fetcherNodeProblem` says so on an older Node before anything is tried.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The binary's path inside node_modules/electron/dist, per platform (as electron's install.js). */
export function platformPath(platform) {
  switch (platform) {
    case 'mas':
    case 'darwin':
      return 'Electron.app/Contents/MacOS/Electron';
    case 'freebsd':
    case 'openbsd':
    case 'linux':
      return 'electron';
    case 'win32':
      return 'electron.exe';
    default:
      throw new Error(`Electron builds are not available on platform: ${platform}`);
  }
}

export function electronPackage(root) {
  const dir = join(root, 'node_modules', 'electron');
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  return { dir, version: pkg.version, pkg };
}

/** The folder of an installed package as Node would find it from `fromDir` (walking up node_modules). */
function packageDir(fromDir, name) {
  for (let d = fromDir; ; d = dirname(d)) {
    if (existsSync(join(d, 'node_modules', name, 'package.json'))) return join(d, 'node_modules', name);
    if (dirname(d) === d) return null;
  }
}

/** The modules that fetch and unpack the binary for this electron package (those its install.js uses). */
function fetcherModules(pkg) {
  const zip = pkg.dependencies?.['@electron-internal/extract-zip'] ? '@electron-internal/extract-zip' : 'extract-zip';
  return { get: '@electron/get', zip };
}

/** [major, minor, patch] of the lowest Node an engines range ">= X.Y[.Z]" allows; null for any other form. */
function engineFloor(range) {
  const m = /^>=\s*v?(\d+)\.(\d+)(?:\.(\d+))?$/.exec(String(range ?? '').trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : null;
}
const below = (a, b) => (a[0] !== b[0] ? a[0] < b[0] : a[1] !== b[1] ? a[1] < b[1] : a[2] < b[2]);

/**
 * null when this Node can run what fetches the binary (the electron package's engines and those of
 * its @electron/get and zip extractor); else one sentence: the Node it needs and the way out.
 */
export function fetcherNodeProblem(root, nodeVersion = process.versions.node) {
  const { dir, version, pkg } = electronPackage(root);
  const engines = [pkg.engines?.node];
  for (const name of Object.values(fetcherModules(pkg))) {
    const at = packageDir(dir, name);
    if (at) engines.push(JSON.parse(readFileSync(join(at, 'package.json'), 'utf8')).engines?.node);
  }
  let need = null;
  for (const floor of engines.map(engineFloor)) if (floor && (!need || below(need, floor))) need = floor;
  const have = nodeVersion.replace(/^v/, '').split('.').map(Number);
  if (!need || !below(have, need)) return null;
  const want = need[2] ? need.join('.') : `${need[0]}.${need[1]}`;
  return (
    `Downloading Electron ${version} needs Node ${want} or newer and this is Node ${have.join('.')}: ` +
    'fetch it once by running npm start under a newer Node (the web host and the command line work on this Node).'
  );
}

/** The installed binary, or null (never downloaded, another version, or another platform's). */
export function installedElectron(root, platform = process.platform) {
  try {
    const { dir, version } = electronPackage(root);
    if (
      readFileSync(join(dir, 'dist', 'version'), 'utf8')
        .trim()
        .replace(/^v/, '') !== version
    )
      return null;
    if (readFileSync(join(dir, 'path.txt'), 'utf8') !== platformPath(platform)) return null;
    const bin = join(dir, 'dist', platformPath(platform));
    return existsSync(bin) ? bin : null;
  } catch {
    return null;
  }
}

const mb = (n) => (n / 1048576).toFixed(1);

/** One line of progress: "Downloading Electron 38.8.6 (linux-x64): 42% · 45.1 of 107.3 MB". */
export function progressLine(version, target, p) {
  const total = p.total ? ` of ${mb(p.total)}` : '';
  const pct = p.total ? `${Math.floor((p.percent ?? p.transferred / p.total) * 100)}% · ` : '';
  return `Downloading Electron ${version} (${target}): ${pct}${mb(p.transferred)}${total} MB`;
}

/** A sentence for a failed download (the cause, then what to do). */
export function downloadFailure(e, version) {
  const code = e && typeof e === 'object' ? (e.code ?? e.cause?.code) : undefined;
  const msg = e instanceof Error ? e.message : String(e);
  let why = msg;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') why = 'the download server could not be found (no internet access, or DNS is blocked)';
  else if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
    why = `the connection failed (${code})`;
  else if (code === 'ETIMEDOUT' || /timeout/i.test(msg)) why = 'the download timed out';
  else if (/HTTPError|404|Response code/i.test(msg)) why = `the server refused it (${msg})`;
  else if (/checksum|sha256/i.test(msg)) why = `its checksum did not match (${msg})`;
  return `Could not download Electron ${version}: ${why}.`;
}

/** Loads one of the electron package's fetcher modules (ES modules since @electron/get 5). */
async function load(dir, name) {
  return import(pathToFileURL(createRequire(join(dir, 'package.json')).resolve(name)).href);
}

/**
 * Downloads and unpacks Electron's binary into node_modules/electron/dist (as the package's own
 * install.js would), reporting progress. Options (tests use them; users set the usual variables
 * instead: ELECTRON_MIRROR, electron_config_cache, electron_use_remote_checksums): mirror,
 * cacheRoot, checksums (default: the package's checksums.json; null: the mirror's SHASUMS256.txt),
 * timeoutMs (give up when no byte has come for that long: a server that cannot be reached or stalls).
 */
export async function fetchElectron({
  root,
  platform = process.platform,
  arch = process.arch,
  mirror,
  cacheRoot,
  checksums,
  onProgress,
  timeoutMs = 30_000,
}) {
  const { dir, version, pkg } = electronPackage(root);
  const modules = fetcherModules(pkg);
  const { downloadArtifact } = await load(dir, modules.get);
  const zipModule = await load(dir, modules.zip);
  const extract = zipModule.extract ?? zipModule.default;
  const remoteSums = process.env.electron_use_remote_checksums || process.env.npm_config_electron_use_remote_checksums;
  const stalled = new AbortController();
  let timer;
  const waitForData = () => {
    clearTimeout(timer);
    timer = setTimeout(
      () => stalled.abort(Object.assign(new Error(`no data for ${timeoutMs / 1000} s: timeout`), { code: 'ETIMEDOUT' })),
      timeoutMs,
    );
  };
  process.env.ELECTRON_GET_NO_PROGRESS = '1'; // our own progress instead of a bar after 30 s
  let zip;
  try {
    waitForData();
    zip = await downloadArtifact({
      version,
      artifactName: 'electron',
      platform,
      arch,
      cacheRoot,
      checksums:
        checksums === undefined
          ? remoteSums
            ? undefined
            : JSON.parse(readFileSync(join(dir, 'checksums.json'), 'utf8'))
          : (checksums ?? undefined),
      ...(mirror ? { mirrorOptions: { mirror } } : {}),
      // @electron/get 5 downloads with fetch(): these are its options, plus its own two
      downloadOptions: {
        quiet: true,
        signal: stalled.signal,
        getProgressCallback: async (p) => {
          waitForData();
          onProgress?.({ percent: p.percent, transferred: p.transferred, total: p.total ?? undefined });
        },
      },
    });
  } catch (e) {
    throw stalled.signal.aborted ? stalled.signal.reason : e;
  } finally {
    clearTimeout(timer);
  }
  await extract(zip, { dir: join(dir, 'dist') });
  const types = join(dir, 'dist', 'electron.d.ts');
  if (existsSync(types)) renameSync(types, join(dir, 'electron.d.ts'));
  writeFileSync(join(dir, 'path.txt'), platformPath(platform));
  const bin = installedElectron(root, platform);
  if (!bin) throw new Error(`the archive did not contain ${platformPath(platform)}`);
  return bin;
}

/** sha256 of a file (tests build checksums for their own archives). */
export function sha256(buf) {
  return createHash('sha256').update(buf).digest('hex');
}
