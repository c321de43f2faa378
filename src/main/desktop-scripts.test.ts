/**
 * `npm start`'s and `npm run dist`'s helpers (scripts/lib). Downloads are exercised against a
 * server on 127.0.0.1 that plays Electron's release mirror (nothing leaves this machine); the
 * native build with stand-in strategies (the real ones download or compile, which cannot happen here).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  downloadFailure,
  fetchElectron,
  fetcherNodeProblem,
  installedElectron,
  platformPath,
  progressLine,
  sha256,
} from '../../scripts/lib/electron.mjs';
import { electronBinary } from '../../scripts/start.mjs';
import { bindingName, electronAbi, ensureElectronNative, existingBinding, targetFolder } from '../../scripts/lib/native.mjs';
import { targetsOf } from '../../scripts/dist.mjs';
import { sqliteBindingName } from './native';

const repo = join(import.meta.dirname, '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'loupe-scripts-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A stored (uncompressed) zip of some files. */
function zip(files: Record<string, string>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(files)) {
    const data = Buffer.from(text);
    const n = Buffer.from(name);
    const crc = crc32(data) >>> 0;
    const l = Buffer.alloc(30);
    l.writeUInt32LE(0x04034b50, 0);
    l.writeUInt16LE(20, 4);
    l.writeUInt32LE(crc, 14);
    l.writeUInt32LE(data.length, 18);
    l.writeUInt32LE(data.length, 22);
    l.writeUInt16LE(n.length, 26);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(0x0314, 4); // made by unix
    c.writeUInt16LE(20, 6);
    c.writeUInt32LE(crc, 16);
    c.writeUInt32LE(data.length, 20);
    c.writeUInt32LE(data.length, 24);
    c.writeUInt16LE(n.length, 28);
    c.writeUInt32LE((0o100755 << 16) >>> 0, 38);
    c.writeUInt32LE(offset, 42);
    locals.push(l, n, data);
    centrals.push(c, n);
    offset += l.length + n.length + data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** The installed electron package (its engines and dependencies: what decides how the binary is fetched). */
const electronPkg = JSON.parse(readFileSync(join(repo, 'node_modules', 'electron', 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
};
const V = electronPkg.version;
const zipName = (version = V) => `electron-v${version}-${process.platform}-${process.arch}.zip`;

/** A project folder with node_modules/electron (no binary) using the real @electron/get and zip extractor. */
function fakeProject(name: string, version = V): string {
  const root = join(tmp, name);
  const modules = join(root, 'node_modules');
  mkdirSync(join(modules, 'electron'), { recursive: true });
  writeFileSync(join(modules, 'electron', 'package.json'), JSON.stringify({ ...electronPkg, version }));
  writeFileSync(join(modules, 'electron', 'checksums.json'), '{}');
  for (const dep of ['@electron/get', '@electron-internal/extract-zip', 'extract-zip'])
    if (existsSync(join(repo, 'node_modules', dep))) {
      mkdirSync(dirname(join(modules, dep)), { recursive: true });
      symlinkSync(join(repo, 'node_modules', dep), join(modules, dep));
    }
  return root;
}

describe('fetching Electron for npm start', () => {
  let server: Server;
  let mirror: string;
  const archive = zip({
    [platformPath(process.platform)]: '#!/bin/sh\necho fake electron\n',
    version: `v${V}`,
    'electron.d.ts': '// types',
  });
  const requests: string[] = [];
  /** SHASUMS256.txt per release folder: right for V, wrong for 45.0.1 (same archive); 45.0.2 stalls */
  const shasums = (version: string) => `${version === V ? sha256(archive) : 'f'.repeat(64)} *${zipName(version)}\n`;
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests.push(req.url ?? '');
      const version = /^\/v([^/]+)\//.exec(req.url ?? '')?.[1] ?? '';
      if (version === '45.0.2' && req.url?.endsWith('.zip')) {
        res.writeHead(200, { 'content-type': 'application/zip', 'content-length': 1_000_000 });
        res.write(archive.subarray(0, 100)); // then nothing
      } else if (req.url?.endsWith('/SHASUMS256.txt') && version !== '0.0.1') res.end(shasums(version));
      else if (req.url?.endsWith('.zip') && version !== '0.0.1') {
        res.writeHead(200, { 'content-type': 'application/zip', 'content-length': archive.length });
        res.end(archive);
      } else res.writeHead(404).end('not found');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    mirror = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  /** runs f with some environment variables set (undefined: unset), then puts them back */
  async function withEnv<T>(vars: Record<string, string | undefined>, f: () => Promise<T>): Promise<T> {
    const before = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
    const put = (v: Record<string, string | undefined>) => {
      for (const [k, x] of Object.entries(v))
        if (x === undefined) delete process.env[k];
        else process.env[k] = x;
    };
    put(vars);
    try {
      return await f();
    } finally {
      put(before);
    }
  }

  it('downloads from the mirror with progress, checks the checksum, unpacks the way install.js does', async () => {
    const root = fakeProject('fetch-ok');
    expect(installedElectron(root)).toBeNull();
    const progress: Array<{ transferred: number; total?: number }> = [];
    const bin = await fetchElectron({
      root,
      mirror,
      cacheRoot: join(tmp, 'cache-ok'),
      checksums: { [zipName()]: sha256(archive) },
      onProgress: (p) => progress.push(p),
    });
    expect(bin).toBe(join(root, 'node_modules', 'electron', 'dist', platformPath(process.platform)));
    expect(installedElectron(root)).toBe(bin);
    expect(readFileSync(join(root, 'node_modules', 'electron', 'path.txt'), 'utf8')).toBe(platformPath(process.platform));
    expect(existsSync(join(root, 'node_modules', 'electron', 'electron.d.ts'))).toBe(true);
    expect(requests.at(-1)).toBe(`/v${V}/${zipName()}`);
    expect(progress.at(-1)).toMatchObject({ transferred: archive.length, total: archive.length });
    expect(progressLine('38.8.6', 'linux-x64', { percent: 0.42, transferred: 45.1 * 1048576, total: 107.3 * 1048576 })).toBe(
      'Downloading Electron 38.8.6 (linux-x64): 42% · 45.1 of 107.3 MB',
    );
  });

  it('refuses an archive whose checksum does not match', async () => {
    const root = fakeProject('fetch-badsum');
    const err = await fetchElectron({ root, mirror, cacheRoot: join(tmp, 'cache-bad'), checksums: { [zipName()]: '0'.repeat(64) } }).catch(
      (e: unknown) => e,
    );
    expect(downloadFailure(err, V)).toMatch(
      new RegExp(`^Could not download Electron ${V.replaceAll('.', '\\.')}: its checksum did not match`),
    );
    expect(installedElectron(root)).toBeNull();
  });

  it("follows ELECTRON_MIRROR and checks the mirror's SHASUMS256.txt when asked to (electron_use_remote_checksums)", async () => {
    const env = { ELECTRON_MIRROR: mirror, electron_use_remote_checksums: '1' };
    const good = fakeProject('fetch-remote-sums');
    const bin = await withEnv(env, () => fetchElectron({ root: good, cacheRoot: join(tmp, 'cache-remote') }));
    expect(installedElectron(good)).toBe(bin);
    expect(requests.slice(-2)).toEqual([`/v${V}/${zipName()}`, `/v${V}/SHASUMS256.txt`]);
    // the same archive under a SHASUMS256.txt that names another sum: refused, nothing installed
    const bad = fakeProject('fetch-remote-badsum', '45.0.1');
    const err = await withEnv(env, () => fetchElectron({ root: bad, cacheRoot: join(tmp, 'cache-remote-bad') })).catch((e: unknown) => e);
    expect(requests.at(-1)).toBe('/v45.0.1/SHASUMS256.txt');
    expect(downloadFailure(err, '45.0.1')).toMatch(/^Could not download Electron 45\.0\.1: its checksum did not match/);
    expect(installedElectron(bad)).toBeNull();
    // without the variable, the package's pinned checksums.json is used (empty here: refused)
    const pinned = await fetchElectron({ root: fakeProject('fetch-pinned'), mirror, cacheRoot: join(tmp, 'cache-pinned') }).catch(
      (e: unknown) => e,
    );
    expect(String(pinned)).toMatch(/checksums/);
  });

  it('gives up on a server that stops sending', async () => {
    const root = fakeProject('fetch-stall', '45.0.2'); // the mirror's stalling release
    const err = await fetchElectron({
      root,
      mirror,
      cacheRoot: join(tmp, 'cache-stall'),
      checksums: { [zipName('45.0.2')]: sha256(archive) },
      timeoutMs: 300,
    })
      .then(() => null)
      .catch((e: unknown) => e);
    expect(err).not.toBeNull();
    expect(downloadFailure(err, '45.0.2')).toBe('Could not download Electron 45.0.2: the download timed out.');
  });

  it('says why in one sentence when the server refuses or cannot be reached', async () => {
    const missing = fakeProject('fetch-404', '0.0.1');
    const e404 = await fetchElectron({ root: missing, mirror, cacheRoot: join(tmp, 'cache-404'), checksums: {} }).catch((e: unknown) => e);
    expect(downloadFailure(e404, '0.0.1')).toMatch(/^Could not download Electron 0\.0\.1: the server refused it/);
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const root = fakeProject('fetch-refused');
    const eRefused = await fetchElectron({
      root,
      mirror: `http://127.0.0.1:${port}/`,
      cacheRoot: join(tmp, 'cache-refused'),
      checksums: {},
    }).catch((e: unknown) => e);
    expect(downloadFailure(eRefused, V)).toBe(`Could not download Electron ${V}: the connection failed (ECONNREFUSED).`);
    expect(downloadFailure(Object.assign(new Error('getaddrinfo ENOTFOUND github.com'), { code: 'ENOTFOUND' }), V)).toMatch(
      /could not be found/,
    );
  });

  it("npm start on a Node older than the fetcher's engines: one sentence, nothing fetched; on a new enough Node: fetched", async () => {
    const floor = fetcherNodeProblem(fakeProject('engines'), '0.1.0');
    expect(floor).toMatch(/^Downloading Electron \S+ needs Node \d+\.\d+(\.\d+)? or newer and this is Node 0\.1\.0: /);
    const need = /needs Node (\d+)\.(\d+)/
      .exec(floor ?? '')!
      .slice(1)
      .map(Number);
    if (Number(V.split('.')[0]) >= 45) expect(need).toEqual([22, 12]); // electron 45, @electron/get 5: >= 22.12.0
    expect(fetcherNodeProblem(fakeProject('engines-2'), `${need[0]}.${need[1]}.0`)).toBeNull();
    expect(fetcherNodeProblem(fakeProject('engines-3'), `v${need[0] + 2}.0.0`)).toBeNull();
    const older = need[1] > 0 ? `${need[0]}.${need[1] - 1}.9` : `${need[0] - 1}.99.9`; // just below the floor
    expect(fetcherNodeProblem(fakeProject('engines-4'), older)).toContain(`this is Node ${older}`);

    await withEnv({ ELECTRON_SKIP_BINARY_DOWNLOAD: undefined, ELECTRON_MIRROR: undefined }, async () => {
      const old = fakeProject('start-old-node');
      const said: string[] = [];
      const before = requests.length;
      const opts = {
        mirror,
        cacheRoot: join(tmp, 'cache-start'),
        checksums: { [zipName()]: sha256(archive) },
        say: (m: string) => said.push(m),
        onProgress: () => {},
      };
      expect(await electronBinary({ root: old, web: false, nodeVersion: older, ...opts })).toBeNull();
      expect(said).toEqual([
        `Downloading Electron ${V} needs Node ${need.join('.')} or newer and this is Node ${older}: ` +
          'fetch it once by running npm start under a newer Node (the web host and the command line work on this Node).',
      ]);
      expect(requests.length).toBe(before);
      const fresh = fakeProject('start-new-node');
      said.length = 0;
      const bin = await electronBinary({ root: fresh, web: false, nodeVersion: `${need[0]}.${need[1]}.0`, ...opts });
      expect(bin).toBe(installedElectron(fresh));
      expect(said.at(-1)).toBe(`Electron ${V} installed: ${bin}`);
    });
  });
});

describe('better-sqlite3 for Electron, beside the Node build', () => {
  function project(name: string): string {
    const root = join(tmp, name);
    const pkg = join(root, 'node_modules', 'better-sqlite3');
    mkdirSync(join(pkg, 'build', 'Release'), { recursive: true });
    mkdirSync(join(pkg, 'src'), { recursive: true });
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'better-sqlite3', version: '12.11.1' }));
    writeFileSync(join(pkg, 'src', 'better_sqlite3.cpp'), '// sources');
    writeFileSync(join(pkg, 'build', 'Release', 'better_sqlite3.node'), 'NODE-ABI-115');
    return root;
  }
  const pretend = (name: string, content: string | null) => ({
    name,
    build({ stageDir }: { stageDir: string }) {
      expect(existsSync(join(stageDir, 'src', 'better_sqlite3.cpp'))).toBe(true);
      expect(existsSync(join(stageDir, 'build'))).toBe(false); // the Node build is never copied into the stage
      if (content === null) throw new Error(`${name} unavailable`);
      mkdirSync(join(stageDir, 'build', 'Release'), { recursive: true });
      writeFileSync(join(stageDir, 'build', 'Release', 'better_sqlite3.node'), content);
    },
  });

  it("builds into .electron-native/<platform>-<arch>, never touching node_modules' build; falls back in order; reuses it", () => {
    const root = project('native');
    const log: string[] = [];
    const r = ensureElectronNative({
      root,
      electronVersion: '38.8.6',
      abi: '139',
      platform: 'linux',
      arch: 'x64',
      strategies: [pretend('prebuilt', null), pretend('source', 'ELECTRON-ABI-139')],
      log: (m) => log.push(m),
    });
    expect(r).toEqual({ path: join(targetFolder(root, 'linux', 'x64'), bindingName(139)), built: true, via: 'source' });
    expect(readFileSync(r.path, 'utf8')).toBe('ELECTRON-ABI-139');
    expect(readFileSync(join(root, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'), 'utf8')).toBe(
      'NODE-ABI-115',
    );
    expect(JSON.parse(readFileSync(join(targetFolder(root, 'linux', 'x64'), 'stamp.json'), 'utf8'))).toMatchObject({
      betterSqlite3: '12.11.1',
      abi: '139',
      via: 'source',
    });
    expect(existsSync(join(root, '.electron-native', 'stage'))).toBe(false);
    expect(existingBinding(root, { abi: '139', platform: 'linux', arch: 'x64' })).toBe(r.path);
    const again = ensureElectronNative({
      root,
      electronVersion: '38.8.6',
      abi: '139',
      platform: 'linux',
      arch: 'x64',
      strategies: [pretend('x', null)],
      log: () => {},
    });
    expect(again).toEqual({ path: r.path, built: false, via: null });
    // a new Electron (new ABI) replaces the old file
    const next = ensureElectronNative({
      root,
      electronVersion: '39.0.0',
      abi: '140',
      platform: 'linux',
      arch: 'x64',
      strategies: [pretend('prebuilt', 'ELECTRON-ABI-140')],
      log: () => {},
    });
    expect(existsSync(r.path)).toBe(false);
    expect(readFileSync(next.path, 'utf8')).toBe('ELECTRON-ABI-140');
  });

  it('fails with every reason when no strategy works', () => {
    const root = project('native-fail');
    expect(() =>
      ensureElectronNative({
        root,
        electronVersion: '38.8.6',
        abi: '139',
        platform: 'linux',
        arch: 'x64',
        strategies: [pretend('prebuilt', null), pretend('source', null)],
        log: () => {},
      }),
    ).toThrow('Could not get better-sqlite3 for Electron 38.8.6 (linux-x64): prebuilt: prebuilt unavailable; source: source unavailable');
  });

  it("knows Electron's ABI for the installed version (node-abi, from better-sqlite3's installer), as the package says it", () => {
    const abi = electronAbi(repo, V);
    expect(Number(abi)).toBeGreaterThan(115);
    const own = join(repo, 'node_modules', 'electron', 'abi_version'); // shipped since Electron 45
    if (existsSync(own)) expect(abi).toBe(readFileSync(own, 'utf8').trim());
    expect(electronAbi(repo, '38.8.6')).toBe('139');
    expect(electronAbi(repo, '45.5.0')).toBe('150');
    // one name for the file on both sides: what the script writes, what the app loads (src/main/native.ts)
    expect(bindingName(electronAbi(repo, '45.5.0'))).toBe('better_sqlite3-electron-v150.node');
    expect(sqliteBindingName(150)).toBe(bindingName('150'));
    expect(() => electronAbi(repo, '999.0.0')).toThrow(/999\.0\.0/);
  });

  it('refuses an ABI that node-abi and the electron package disagree on (an outdated node-abi)', () => {
    const root = join(tmp, 'abi-disagree');
    mkdirSync(join(root, 'node_modules', 'electron'), { recursive: true });
    writeFileSync(join(root, 'package.json'), '{}');
    symlinkSync(join(repo, 'node_modules', 'prebuild-install'), join(root, 'node_modules', 'prebuild-install'));
    writeFileSync(join(root, 'node_modules', 'electron', 'package.json'), JSON.stringify({ name: 'electron', version: '45.5.0' }));
    writeFileSync(join(root, 'node_modules', 'electron', 'abi_version'), '150\n');
    expect(electronAbi(root, '45.5.0')).toBe('150');
    writeFileSync(join(root, 'node_modules', 'electron', 'abi_version'), '151\n');
    expect(() => electronAbi(root, '45.5.0')).toThrow(
      "Electron 45.5.0 says its ABI is 151 but node-abi (better-sqlite3's installer) says 150",
    );
    expect(electronAbi(root, '38.8.6')).toBe('139'); // another version than the package's: node-abi alone
  });
});

describe('npm run dist targets', () => {
  it('maps electron-builder flags to platform/arch pairs (default: this machine)', () => {
    expect(targetsOf([], { platform: 'linux', arch: 'x64' })).toEqual([{ platform: 'linux', arch: 'x64' }]);
    expect(targetsOf(['--mac', '--win', '--arm64', '--x64'], { platform: 'linux', arch: 'x64' })).toEqual([
      { platform: 'darwin', arch: 'arm64' },
      { platform: 'darwin', arch: 'x64' },
      { platform: 'win32', arch: 'arm64' },
      { platform: 'win32', arch: 'x64' },
    ]);
    expect(() => targetsOf(['--mac', '--universal'])).toThrow(/universal/);
  });
});
