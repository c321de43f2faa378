#!/usr/bin/env node
// CI's check of the README's "20, 22 and 24 are supported": the command line and a slice of the tests
// run under each supported Node major other than the one running this script (which runs all of
// `npm test`). Each Node is the official binary with its headers, taken from the npm registry's
// `node-linux-<arch>` package (the only registry these machines reach); better-sqlite3, the one
// native module built against Node's ABI, is rebuilt for it in a copy of the project whose
// node_modules are hard links (everything else is N-API or plain JavaScript); the build is kept in
// the cache under better-sqlite3's release and Node's ABI, so it is compiled once for each pair.
// Nothing is fetched from anywhere but the npm registry, and nothing is installed into the project.
//
//   node scripts/node-matrix.mjs            # every other supported major (22 and 24 on Node 20)
//   node scripts/node-matrix.mjs 22         # one major
//
// Exit 0 when every major passed; 1 with the major and the failing step otherwise.
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

const root = join(import.meta.dirname, '..');
export const SUPPORTED = [20, 22, 24];
// Broad but quick (~1 minute a Node): the built command line end to end, the archive, exports and
// bundles, worker threads, the web host, the key store's fallbacks, the simulation's invariants, and
// the two Node-specific behaviours fixed before (a command that must exit; a closed pipe).
export const SLICE = [
  'src/cli/built.test.ts',
  'src/cli/analyze-exit.test.ts',
  'src/cli/pipe.test.ts',
  'src/cli/out-file.test.ts',
  'src/core/archive/library.test.ts',
  'src/core/archive/snapshot.test.ts',
  'src/core/export/export.test.ts',
  'src/core/datasets/bundle.test.ts',
  'src/core/analysis/index-worker.test.ts',
  'src/host/host.test.ts',
  'src/core/secrets/secrets.test.ts',
  'src/core/simulation/simulation.test.ts',
];

const cache = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'loupe-node');
const arch = { x64: 'x64', arm64: 'arm64' }[process.arch];

function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...opts });
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}`, status: r.status ?? r.signal };
}

/** The newest release of a major from the npm registry, unpacked once into the cache; its folder. */
function nodeOf(major) {
  const pkg = `node-linux-${arch}@${major}`;
  const v = sh('npm', ['view', pkg, 'version', '--json']);
  if (!v.ok) throw new Error(`npm could not find ${pkg} on the registry:\n${v.out}`);
  const versions = [].concat(JSON.parse(v.out));
  const version = versions[versions.length - 1];
  const dir = join(cache, `node-${version}`);
  if (existsSync(join(dir, 'bin', 'node'))) return { dir, version };
  mkdirSync(cache, { recursive: true });
  const packed = sh('npm', ['pack', `node-linux-${arch}@${version}`, '--pack-destination', cache, '--json']);
  if (!packed.ok) throw new Error(`npm pack node-linux-${arch}@${version} failed:\n${packed.out}`);
  const tgz = join(cache, JSON.parse(packed.out)[0].filename);
  const tmp = `${dir}.part`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const untar = sh('tar', ['xzf', tgz, '-C', tmp, '--strip-components=1']);
  rmSync(tgz, { force: true });
  if (!untar.ok) throw new Error(`could not unpack ${tgz}:\n${untar.out}`);
  cpSync(tmp, dir, { recursive: true });
  rmSync(tmp, { recursive: true, force: true });
  return { dir, version };
}

/** A copy of the project (node_modules as hard links) with better-sqlite3 built for this Node. */
function projectFor(major, node, times) {
  let t = Date.now();
  const copy = join(cache, `project-${major}`);
  rmSync(copy, { recursive: true, force: true });
  mkdirSync(copy, { recursive: true });
  for (const name of readdirSync(root)) {
    if (name === 'node_modules' || name === '.git' || name === 'test-results') continue;
    cpSync(join(root, name), join(copy, name), { recursive: true, verbatimSymlinks: true });
  }
  // hard links (seconds, no space; one `cp` for the whole folder, not one a package) for every
  // package but better-sqlite3, whose links are then replaced by a real copy without its build: the
  // rebuild below then cannot touch the project's own binary, also where node_modules is a symlink
  // (a worktree sharing another's packages)
  const modules = realpathSync(join(root, 'node_modules'));
  const linked = sh('cp', ['-al', modules, join(copy, 'node_modules')]);
  if (!linked.ok) throw new Error(`could not link node_modules into ${copy}:\n${linked.out}`);
  const bs = join(copy, 'node_modules', 'better-sqlite3');
  rmSync(bs, { recursive: true, force: true });
  cpSync(join(modules, 'better-sqlite3'), bs, {
    recursive: true,
    dereference: true,
    filter: (src) => src !== join(modules, 'better-sqlite3', 'build'),
  });
  if (realpathSync(bs) !== bs) throw new Error(`${bs} is not a folder of its own: not rebuilding there`);
  times.copy = Date.now() - t;
  t = Date.now();
  // The build depends only on better-sqlite3's release and Node's ABI (NODE_MODULE_VERSION, which
  // every release of a major shares: what prebuilt binaries are named by) on this architecture: kept
  // in the cache under those, a later run (a new clone, the next CI, the major's next patch
  // release) reuses it instead of compiling SQLite again (about a minute a Node). A new
  // better-sqlite3 or a new ABI is a new key, compiled once.
  const { version } = JSON.parse(readFileSync(join(bs, 'package.json'), 'utf8'));
  const abi = sh(join(node.dir, 'bin', 'node'), ['-p', 'process.versions.modules']).out.trim();
  if (!/^\d+$/.test(abi)) throw new Error(`Node ${node.version} did not say its ABI: ${abi}`);
  const kept = join(cache, 'better-sqlite3', `${version}-node-v${abi}-${process.platform}-${arch}`, 'better_sqlite3.node');
  const release = join(bs, 'build', 'Release');
  if (existsSync(kept)) {
    mkdirSync(release, { recursive: true });
    copyFileSync(kept, join(release, 'better_sqlite3.node'));
    times.build = `${Date.now() - t} ms (kept from an earlier run: ${kept})`;
    return copy;
  }
  const gyp = join(sh('npm', ['root', '-g']).out.trim(), 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  const built = sh(join(node.dir, 'bin', 'node'), [gyp, 'rebuild', '--release', `--nodedir=${node.dir}`], {
    cwd: bs,
    env: { ...process.env, npm_config_nodedir: node.dir },
  });
  if (!built.ok) throw new Error(`better-sqlite3 did not build for Node ${node.version}:\n${built.out.slice(-4000)}`);
  // written aside, then renamed: an interrupted run leaves no half a binary under the key
  mkdirSync(dirname(kept), { recursive: true });
  copyFileSync(join(release, 'better_sqlite3.node'), `${kept}.part`);
  renameSync(`${kept}.part`, kept);
  times.build = `${Date.now() - t} ms (compiled; kept as ${kept})`;
  return copy;
}

export function runMajor(major) {
  const t0 = Date.now();
  const node = nodeOf(major);
  const bin = join(node.dir, 'bin', 'node');
  console.log(`\n── Node ${node.version}: better-sqlite3 built for it in a copy of the project`);
  const times = {};
  const copy = projectFor(major, node, times);
  console.log(`   project copied in ${times.copy} ms; better-sqlite3: ${times.build}`);
  const env = { ...process.env, PATH: `${join(node.dir, 'bin')}:${process.env.PATH}` };
  const version = sh(bin, ['bin/loupe.js', '--version'], { cwd: copy, env });
  if (!version.ok) throw new Error(`loupe --version failed under Node ${node.version}:\n${version.out}`);
  console.log(`   loupe --version: ${version.out.trim()}`);
  const check = sh(bin, ['scripts/check-node.mjs'], { cwd: copy, env });
  if (!check.ok) throw new Error(`scripts/check-node.mjs refused Node ${node.version}:\n${check.out}`);
  const tests = spawnSync(bin, ['node_modules/vitest/vitest.mjs', 'run', ...SLICE], { cwd: copy, env, stdio: 'inherit' });
  if (tests.status !== 0) throw new Error(`the tests failed under Node ${node.version} (above)`);
  rmSync(copy, { recursive: true, force: true });
  console.log(`── Node ${node.version}: ok in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (!arch) {
    console.log(`node-matrix: no Node packages for ${process.arch} on the registry; skipped.`);
    process.exit(0);
  }
  const running = Number(process.versions.node.split('.')[0]);
  const asked = process.argv.slice(2).map(Number);
  const majors = asked.length > 0 ? asked : SUPPORTED.filter((m) => m !== running);
  const failed = [];
  for (const major of majors) {
    try {
      runMajor(major);
    } catch (err) {
      console.error(`── Node ${major}: FAILED: ${err.message}`);
      failed.push(major);
    }
  }
  if (failed.length > 0) {
    console.error(`Loupe did not pass under Node ${failed.join(', ')}: the README says 20, 22 and 24 are supported.`);
    process.exit(1);
  }
  console.log(`Node ${majors.join(', ')}: the command line and the tests' slice passed (${process.versions.node} runs all of npm test).`);
}
