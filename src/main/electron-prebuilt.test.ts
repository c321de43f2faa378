/**
 * The ABI rebuild path for the installed Electron, through the real installer: `npm start` / `npm run
 * electron:native`'s first strategy (scripts/lib/native.mjs `prebuilt`) runs better-sqlite3's own
 * prebuild-install for `--runtime electron --target <version>`; it must ask for the prebuilt of
 * Electron's ABI (150 for Electron 45) and the result must land under the name the app loads
 * (src/main/native.ts). The release host is a server on 127.0.0.1 in another process (the build runs
 * synchronously), reached through prebuild-install's own mirror variable; nothing leaves this machine.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { electronPackage } from '../../scripts/lib/electron.mjs';
import { electronAbi, ensureElectronNative, prebuilt } from '../../scripts/lib/native.mjs';
import { sqliteBinding } from './native';

const repo = join(import.meta.dirname, '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'loupe-prebuilt-'));
const SERVER = `
const http = require('node:http'), fs = require('node:fs'), path = require('node:path');
const dir = process.argv[1];
const s = http.createServer((req, res) => {
  fs.appendFileSync(path.join(dir, 'requests.log'), req.url + '\\n');
  const f = path.join(dir, 'files', path.basename(req.url));
  if (fs.existsSync(f)) res.end(fs.readFileSync(f));
  else res.writeHead(404).end('not found');
});
s.listen(0, '127.0.0.1', () => console.log(s.address().port));
`;
let server: ChildProcess;
let host: string;
beforeAll(async () => {
  mkdirSync(join(tmp, 'files'));
  server = spawn(process.execPath, ['-e', SERVER, tmp], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) => server.stdout!.once('data', (d: Buffer) => resolve(String(d).trim())));
  host = `http://127.0.0.1:${port}`;
});
afterAll(() => {
  server.kill();
  rmSync(tmp, { recursive: true, force: true });
});

describe("better-sqlite3's prebuilt for the installed Electron", () => {
  it("asks prebuild-install for Electron's ABI and stores it under the name the app loads", () => {
    const { version } = electronPackage(repo);
    const abi = electronAbi(repo, version);
    if (version.startsWith('45.')) expect(abi).toBe('150');
    // a project with a stand-in better-sqlite3 (same name and version) and the real prebuild-install
    const root = join(tmp, 'project');
    const sqlite = JSON.parse(readFileSync(join(repo, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8')) as { version: string };
    mkdirSync(join(root, 'node_modules', 'better-sqlite3', 'build', 'Release'), { recursive: true });
    writeFileSync(join(root, 'package.json'), '{}');
    writeFileSync(
      join(root, 'node_modules', 'better-sqlite3', 'package.json'),
      JSON.stringify({ name: 'better-sqlite3', version: sqlite.version }),
    );
    writeFileSync(join(root, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'), 'NODE BUILD');
    symlinkSync(join(repo, 'node_modules', 'prebuild-install'), join(root, 'node_modules', 'prebuild-install'));
    // the release asset prebuild-install names for this runtime, ABI, platform and arch
    const asset = `better-sqlite3-v${sqlite.version}-electron-v${abi}-linux-x64.tar.gz`;
    const src = join(tmp, 'asset');
    mkdirSync(join(src, 'build', 'Release'), { recursive: true });
    writeFileSync(join(src, 'build', 'Release', 'better_sqlite3.node'), `ELECTRON ABI ${abi}`);
    expect(spawnSync('tar', ['-czf', join(tmp, 'files', asset), '-C', src, 'build']).status).toBe(0);

    const saved = { host: process.env.npm_config_better_sqlite3_binary_host, cache: process.env.npm_config_cache };
    process.env.npm_config_better_sqlite3_binary_host = host;
    process.env.npm_config_cache = join(tmp, 'npm-cache');
    try {
      const log: string[] = [];
      const r = ensureElectronNative({
        root,
        electronVersion: version,
        abi,
        platform: 'linux',
        arch: 'x64',
        strategies: [prebuilt(root)],
        log: (m) => log.push(m),
      });
      expect(readFileSync(join(tmp, 'requests.log'), 'utf8').trim().split('\n')).toEqual([`/v${sqlite.version}/${asset}`]);
      expect(readFileSync(r.path, 'utf8')).toBe(`ELECTRON ABI ${abi}`);
      // the same file the app looks for under this Electron (process.versions.modules = abi)
      const chosen = sqliteBinding({
        bundleDir: join(root, 'out', 'main'),
        versions: { electron: version, modules: abi },
        platform: 'linux',
        arch: 'x64',
      });
      expect(chosen.path).toBe(r.path);
      expect(readFileSync(join(root, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'), 'utf8')).toBe(
        'NODE BUILD',
      );
    } finally {
      for (const [k, v] of [
        ['npm_config_better_sqlite3_binary_host', saved.host],
        ['npm_config_cache', saved.cache],
      ] as const)
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
  });
});
