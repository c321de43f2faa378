// better-sqlite3 built for Electron's ABI, kept apart from the Node build (see src/main/native.ts
// for how it is chosen at load time, docs/desktop.md for the design).
//
//   .electron-native/<platform>-<arch>/better_sqlite3-electron-v<abi>.node   + stamp.json
//
// Two ways to get it, in this order:
//   1. prebuilt: better-sqlite3 publishes Electron builds with each release; prebuild-install
//      (better-sqlite3's own installer) downloads the one for this Electron, platform and arch
//   2. from source: node-gyp against Electron's headers (needs a C++ toolchain; host platform only)
// Both run on a COPY of the package (a staging folder), so node_modules/better-sqlite3 — the Node
// build the CLI, the web host and the tests load — is never touched.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, sep } from 'node:path';

export const NATIVE_DIR = '.electron-native';

export function bindingName(abi) {
  return `better_sqlite3-electron-v${abi}.node`;
}

export function targetFolder(root, platform, arch) {
  return join(root, NATIVE_DIR, `${platform}-${arch}`);
}

/**
 * Electron's NODE_MODULE_VERSION for a version, from node-abi (better-sqlite3's installer's table:
 * it names the prebuilt it downloads). The electron package itself says its ABI (abi_version, since
 * Electron 45): when it is the package of that version and the two disagree, that is an error.
 */
export function electronAbi(root, version) {
  const fromInstaller = createRequire(createRequire(join(root, 'package.json')).resolve('prebuild-install/package.json'));
  const abi = String(fromInstaller('node-abi').getAbi(version, 'electron'));
  try {
    const dir = join(root, 'node_modules', 'electron');
    const own = readFileSync(join(dir, 'abi_version'), 'utf8').trim();
    if (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version === version && own !== abi)
      throw new Error(
        `Electron ${version} says its ABI is ${own} but node-abi (better-sqlite3's installer) says ${abi}: ` +
          'update node-abi (npm update node-abi) and run this again.',
      );
  } catch (e) {
    if (e?.code !== 'ENOENT') throw e;
  }
  return abi;
}

function sqlitePackage(root) {
  const dir = join(root, 'node_modules', 'better-sqlite3');
  return { dir, version: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version };
}

/** The Electron build for this target when it is there and made from the installed better-sqlite3. */
export function existingBinding(root, { abi, platform, arch }) {
  const folder = targetFolder(root, platform, arch);
  const file = join(folder, bindingName(abi));
  try {
    const stamp = JSON.parse(readFileSync(join(folder, 'stamp.json'), 'utf8'));
    if (existsSync(file) && stamp.betterSqlite3 === sqlitePackage(root).version && String(stamp.abi) === String(abi)) return file;
  } catch {}
  return null;
}

function run(cmd, args, cwd, env, log) {
  log(`  $ ${[cmd, ...args].map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ')}`);
  const r = spawnSync(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd.split(sep).pop()} exited with ${r.status ?? r.signal}`);
}

/** Strategy 1: Electron's prebuilt of better-sqlite3 (download). */
export function prebuilt(root) {
  return {
    name: 'prebuilt',
    build({ stageDir, electronVersion, platform, arch, log }) {
      const bin = createRequire(join(root, 'package.json')).resolve('prebuild-install/bin.js');
      run(
        process.execPath,
        [
          bin,
          '--runtime',
          'electron',
          '--target',
          electronVersion,
          '--platform',
          platform,
          '--arch',
          arch,
          '--tag-prefix',
          'v',
          '--verbose',
        ],
        stageDir,
        {},
        log,
      );
    },
  };
}

/** Strategy 2: compile against Electron's headers (npm's node-gyp, else the one in node_modules). */
export function fromSource(root) {
  return {
    name: 'source',
    build({ stageDir, electronVersion, platform, arch, log }) {
      if (platform !== process.platform) throw new Error(`cannot compile for ${platform} on ${process.platform}`);
      let gyp = process.env.npm_config_node_gyp;
      if (!gyp || !existsSync(gyp)) gyp = createRequire(join(root, 'package.json')).resolve('node-gyp/bin/node-gyp.js');
      run(
        process.execPath,
        [gyp, 'rebuild', '--release', `--target=${electronVersion}`, `--arch=${arch}`, '--dist-url=https://electronjs.org/headers'],
        stageDir,
        {},
        log,
      );
    },
  };
}

/**
 * Makes sure the Electron build of better-sqlite3 exists for one target; returns its path.
 * `strategies` are tried in order until one leaves build/Release/better_sqlite3.node in the stage.
 */
export function ensureElectronNative({
  root,
  electronVersion,
  abi,
  platform = process.platform,
  arch = process.arch,
  strategies,
  force = false,
  log = (m) => process.stderr.write(`${m}\n`),
}) {
  const have = !force && existingBinding(root, { abi, platform, arch });
  if (have) return { path: have, built: false, via: null };
  const pkg = sqlitePackage(root);
  const stageRoot = join(root, NATIVE_DIR, 'stage', `${platform}-${arch}`);
  const stageDir = join(stageRoot, 'node_modules', 'better-sqlite3');
  const cleanStage = () => {
    rmSync(stageRoot, { recursive: true, force: true });
    try {
      rmdirSync(join(root, NATIVE_DIR, 'stage')); // only when no other target is staging
    } catch {}
  };
  const failures = [];
  for (const s of strategies ?? [prebuilt(root), fromSource(root)]) {
    rmSync(stageRoot, { recursive: true, force: true });
    mkdirSync(stageDir, { recursive: true });
    // the package without its Node build (and without anything built before)
    cpSync(pkg.dir, stageDir, { recursive: true, filter: (src) => relative(pkg.dir, src).split(sep)[0] !== 'build' });
    log(`better-sqlite3 ${pkg.version} for Electron ${electronVersion} (ABI ${abi}, ${platform}-${arch}): ${s.name}…`);
    try {
      s.build({ stageDir, electronVersion, abi, platform, arch, log });
      const built = join(stageDir, 'build', 'Release', 'better_sqlite3.node');
      if (!existsSync(built)) throw new Error('no build/Release/better_sqlite3.node was produced');
      const folder = targetFolder(root, platform, arch);
      mkdirSync(folder, { recursive: true });
      for (const f of readdirSync(folder)) if (/^better_sqlite3-electron-v\d+\.node$/.test(f)) rmSync(join(folder, f)); // one ABI per target
      const out = join(folder, bindingName(abi));
      copyFileSync(built, out);
      writeFileSync(
        join(folder, 'stamp.json'),
        JSON.stringify({ betterSqlite3: pkg.version, electron: electronVersion, abi: String(abi), platform, arch, via: s.name }, null, 2) +
          '\n',
      );
      cleanStage();
      return { path: out, built: true, via: s.name };
    } catch (e) {
      failures.push(`${s.name}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  cleanStage();
  throw new Error(`Could not get better-sqlite3 for Electron ${electronVersion} (${platform}-${arch}): ${failures.join('; ')}`);
}

/**
 * Loads the built binding inside Electron itself (ELECTRON_RUN_AS_NODE: the unfused development
 * binary), so a wrong ABI is found before the app starts. null = it loads; else the error.
 */
export function verifyInElectron(electronBinary, bindingPath) {
  const r = spawnSync(electronBinary, ['-e', `process.dlopen({ exports: {} }, ${JSON.stringify(bindingPath)})`], {
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return r.status === 0 ? null : (r.stderr || r.error?.message || `exit ${r.status}`).trim().split('\n').slice(0, 3).join(' ');
}
