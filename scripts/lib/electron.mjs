// Electron's binary for `npm start`: where it is, and fetching it when it is missing.
//
// The electron npm package is installed with its postinstall denied (allowScripts.electron = false
// in package.json) so `npm ci` works on machines without internet access. Where downloads work,
// `npm start` fetches the binary itself, the way the package's install.js does (same @electron/get,
// same pinned checksums, same dist/ layout and path.txt) but with visible progress, bounded waits
// and a sentence instead of a stack when it fails.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

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
  return { dir, version: pkg.version };
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

/**
 * Downloads and unpacks Electron's binary into node_modules/electron/dist (as the package's own
 * install.js would), reporting progress. Options (tests use them; users set the usual variables
 * instead: ELECTRON_MIRROR, electron_config_cache): mirror, cacheRoot, checksums, timeouts (ms).
 */
export async function fetchElectron({
  root,
  platform = process.platform,
  arch = process.arch,
  mirror,
  cacheRoot,
  checksums,
  onProgress,
  timeoutMs = 20_000,
}) {
  const { dir, version } = electronPackage(root);
  const require = createRequire(join(dir, 'package.json'));
  const { downloadArtifact } = require('@electron/get');
  const extract = require('extract-zip');
  process.env.ELECTRON_GET_NO_PROGRESS = '1'; // our own progress instead of a bar after 30 s
  const zip = await downloadArtifact({
    version,
    artifactName: 'electron',
    platform,
    arch,
    cacheRoot,
    checksums: checksums ?? require('./checksums.json'),
    ...(mirror ? { mirrorOptions: { mirror } } : {}),
    downloadOptions: {
      quiet: true,
      // got: give up when the server cannot be reached or stops sending
      timeout: { lookup: timeoutMs, connect: timeoutMs, secureConnect: timeoutMs, socket: timeoutMs * 3, send: timeoutMs },
      retry: { limit: 1 },
      getProgressCallback: async (p) => onProgress?.({ percent: p.percent, transferred: p.transferred, total: p.total }),
    },
  });
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
