/**
 * Where the Electron build of better-sqlite3 lives, chosen when the module is loaded.
 *
 * better-sqlite3 is a native module compiled for ONE ABI. `npm install` builds it for Node
 * (NODE_MODULE_VERSION 115 on Node 20), which the CLI, the web host and the tests use; Electron 45
 * needs its own (150). Rebuilding in place would break the Node side, so the Electron build is kept
 * apart, one file per ABI, and handed to better-sqlite3 through its `nativeBinding` option:
 *
 *   development  <repo>/.electron-native/<platform>-<arch>/better_sqlite3-electron-v<abi>.node
 *                (scripts/electron-native.mjs writes it; `npm start` runs that script)
 *   packaged     <resources>/native/better_sqlite3-electron-v<abi>.node
 *                (electron-builder's extraResources: outside the asar archive)
 *
 * Plain Node (tests, CLI, web host) never asks: `sqliteBinding` returns null there and
 * better-sqlite3 loads its own build. Nothing here imports electron, so the export worker thread
 * can use it too. See docs/desktop.md.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

export const NATIVE_DIR = '.electron-native';

/** The file name of the Electron build of better-sqlite3 for one ABI (NODE_MODULE_VERSION). */
export function sqliteBindingName(abi: string | number): string {
  return `better_sqlite3-electron-v${abi}.node`;
}

/** The folder (relative to the repository) of the Electron builds for one platform and arch. */
export function nativeFolder(platform: string, arch: string): string {
  return `${platform}-${arch}`;
}

export interface BindingContext {
  /** the folder of the running bundle (out/main, or app.asar[.unpacked]/out/main when packaged) */
  bundleDir: string;
  versions: Partial<NodeJS.ProcessVersions> & { electron?: string };
  platform: string;
  arch: string;
  exists?: (p: string) => boolean;
}

/** The resources folder of a packaged app when the bundle runs from inside it, else null. */
export function packagedResources(bundleDir: string): string | null {
  let dir = resolve(bundleDir);
  for (;;) {
    const name = basename(dir);
    if (name === 'app.asar' || name === 'app.asar.unpacked') return dirname(dir);
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

/** Where this process should load better-sqlite3's binary from: null = the package's own build. */
export function sqliteBinding(ctx: BindingContext): { path: string | null; tried: string[] } {
  if (!ctx.versions.electron) return { path: null, tried: [] };
  const exists = ctx.exists ?? existsSync;
  const file = sqliteBindingName(ctx.versions.modules ?? 'unknown');
  const resources = packagedResources(ctx.bundleDir);
  const tried = resources
    ? [join(resources, 'native', file)]
    : [join(resolve(ctx.bundleDir, '..', '..'), NATIVE_DIR, nativeFolder(ctx.platform, ctx.arch), file)];
  return { path: tried.find((p) => exists(p)) ?? null, tried };
}

/** The same, for the running process. */
export function currentSqliteBinding(bundleDir: string): { path: string | null; tried: string[] } {
  return sqliteBinding({ bundleDir, versions: process.versions, platform: process.platform, arch: process.arch });
}
