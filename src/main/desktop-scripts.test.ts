/**
 * `npm start`'s and `npm run dist`'s helpers (scripts/lib). Downloads are exercised against a
 * server on 127.0.0.1 that plays Electron's release mirror (nothing leaves this machine); the
 * native build with stand-in strategies (the real ones download or compile, which cannot happen here).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadFailure, fetchElectron, installedElectron, platformPath, progressLine, sha256 } from '../../scripts/lib/electron.mjs';
import { bindingName, electronAbi, ensureElectronNative, existingBinding, targetFolder } from '../../scripts/lib/native.mjs';
import { targetsOf } from '../../scripts/dist.mjs';

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

/** A project folder with node_modules/electron (no binary) using the real @electron/get and extract-zip. */
function fakeProject(name: string, version = '38.8.6'): string {
  const root = join(tmp, name);
  mkdirSync(join(root, 'node_modules', 'electron'), { recursive: true });
  mkdirSync(join(root, 'node_modules', '@electron'), { recursive: true });
  writeFileSync(join(root, 'node_modules', 'electron', 'package.json'), JSON.stringify({ name: 'electron', version }));
  symlinkSync(join(repo, 'node_modules', '@electron', 'get'), join(root, 'node_modules', '@electron', 'get'));
  symlinkSync(join(repo, 'node_modules', 'extract-zip'), join(root, 'node_modules', 'extract-zip'));
  return root;
}

describe('fetching Electron for npm start', () => {
  let server: Server;
  let mirror: string;
  const archive = zip({
    [platformPath(process.platform)]: '#!/bin/sh\necho fake electron\n',
    version: 'v38.8.6',
    'electron.d.ts': '// types',
  });
  const requests: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests.push(req.url ?? '');
      if (req.url?.endsWith('.zip') && !req.url.includes('v0.0.1')) {
        res.writeHead(200, { 'content-type': 'application/zip', 'content-length': archive.length });
        res.end(archive);
      } else res.writeHead(404).end('not found');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    mirror = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('downloads from the mirror with progress, checks the checksum, unpacks the way install.js does', async () => {
    const root = fakeProject('fetch-ok');
    expect(installedElectron(root)).toBeNull();
    const file = `electron-v38.8.6-${process.platform}-${process.arch}.zip`;
    const progress: Array<{ transferred: number; total?: number }> = [];
    const bin = await fetchElectron({
      root,
      mirror,
      cacheRoot: join(tmp, 'cache-ok'),
      checksums: { [file]: sha256(archive) },
      onProgress: (p) => progress.push(p),
    });
    expect(bin).toBe(join(root, 'node_modules', 'electron', 'dist', platformPath(process.platform)));
    expect(installedElectron(root)).toBe(bin);
    expect(readFileSync(join(root, 'node_modules', 'electron', 'path.txt'), 'utf8')).toBe(platformPath(process.platform));
    expect(existsSync(join(root, 'node_modules', 'electron', 'electron.d.ts'))).toBe(true);
    expect(requests.at(-1)).toBe(`/v38.8.6/${file}`);
    expect(progress.at(-1)).toMatchObject({ transferred: archive.length, total: archive.length });
    expect(progressLine('38.8.6', 'linux-x64', { percent: 0.42, transferred: 45.1 * 1048576, total: 107.3 * 1048576 })).toBe(
      'Downloading Electron 38.8.6 (linux-x64): 42% · 45.1 of 107.3 MB',
    );
  });

  it('refuses an archive whose checksum does not match', async () => {
    const root = fakeProject('fetch-badsum');
    const file = `electron-v38.8.6-${process.platform}-${process.arch}.zip`;
    const err = await fetchElectron({ root, mirror, cacheRoot: join(tmp, 'cache-bad'), checksums: { [file]: '0'.repeat(64) } }).catch(
      (e: unknown) => e,
    );
    expect(downloadFailure(err, '38.8.6')).toMatch(/^Could not download Electron 38\.8\.6: its checksum did not match/);
    expect(installedElectron(root)).toBeNull();
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
    expect(downloadFailure(eRefused, '38.8.6')).toBe('Could not download Electron 38.8.6: the connection failed (ECONNREFUSED).');
    expect(downloadFailure(Object.assign(new Error('getaddrinfo ENOTFOUND github.com'), { code: 'ENOTFOUND' }), '38.8.6')).toMatch(
      /could not be found/,
    );
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

  it("knows Electron's ABI for the installed version (node-abi, from better-sqlite3's installer)", () => {
    const version = (JSON.parse(readFileSync(join(repo, 'node_modules', 'electron', 'package.json'), 'utf8')) as { version: string })
      .version;
    expect(Number(electronAbi(repo, version))).toBeGreaterThan(115);
    if (version.startsWith('38.')) expect(electronAbi(repo, version)).toBe('139');
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
