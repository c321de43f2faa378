/**
 * `--out` (issue 26; the code is ./output.ts, issue 24's pipes): `-` writes to standard output,
 * byte for byte (not a file named `-`); an existing FIFO or character device is written through and
 * is still a FIFO or a device afterwards; a symbolic link stays a link (a rename onto `/dev/stdout`
 * as root replaced the device link); a regular file is written under a temporary name and renamed;
 * the built command line does the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  createReadStream,
  existsSync,
  openSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { openArchive } from '../core/archive';
import { post } from '../core/archive/test-fixtures';
import { archivePath } from '../core/paths';
import { startSandbox, type SandboxHandle } from '../sandbox';
import { runCli } from './main';

let dir: string;
let home: string;
let sb: SandboxHandle;
const env = (): NodeJS.ProcessEnv => ({ LOUPE_HOME: home, HOME: dir, LOUPE_API_KEY: '' });

/** one run with its stdout as bytes (an export to `-` is binary for XLSX / Parquet) */
async function loupe(args: string[], e: NodeJS.ProcessEnv = env()): Promise<{ code: number; out: Buffer; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough();
  stdin.end();
  const chunks: Buffer[] = [];
  let err = '';
  stdout.on('data', (d: Buffer) => chunks.push(Buffer.from(d)));
  stderr.on('data', (d) => (err += String(d)));
  const code = await runCli(args, { stdout, stderr, stdin, env: e });
  return { code, out: Buffer.concat(chunks), err };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'loupe-out-'));
  home = join(dir, 'home');
  mkdirSync(home);
  const a = openArchive(archivePath(home));
  a.ingestItems(
    Array.from({ length: 30 }, (_, i) => ({
      platform: 'photo_net',
      kind: 'post',
      record: post({ id: String(7_000_000_000_000_000_000n + BigInt(i)), text: `=1+1 \x1b[2J ${i} "é"\r\n`, likes: i }),
    })),
    { callId: 'seed', source: 'test' },
  );
  a.close();
  sb = await startSandbox({ port: 0, seed: 5, balance: 10_000, freeCalls: 0 });
});
afterAll(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

const fileExport = async (format: string): Promise<Buffer> => {
  const f = join(dir, `ref-${format}`);
  const r = await loupe(['export', '--format', format, '-o', f]);
  expect(r.code, r.err).toBe(0);
  return readFileSync(f);
};

describe('--out', () => {
  it('- writes the export to standard output, byte for byte, and no file named "-"', async () => {
    for (const format of ['csv', 'jsonl', 'xlsx']) {
      const r = await loupe(['export', '--format', format, '--out', '-']);
      expect(r.code, r.err).toBe(0);
      expect(r.err).toMatch(/standard output/);
      expect(existsSync('-')).toBe(false);
      if (format === 'xlsx') expect(r.out.subarray(0, 2).toString()).toBe('PK');
      else expect(r.out.equals(await fileExport(format))).toBe(true);
    }
  });

  it('a symbolic link is written through: the link stays, its target holds the export', async () => {
    const target = join(dir, 'target.csv');
    writeFileSync(target, 'old');
    const link = join(dir, 'link.csv');
    symlinkSync(target, link);
    const r = await loupe(['export', '--format', 'csv', '-o', link]);
    expect(r.code, r.err).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(target);
    expect(readFileSync(target).equals(await fileExport('csv'))).toBe(true);
  });

  it.skipIf(process.platform === 'win32')('a FIFO is written through while a reader reads it, and stays a FIFO', async () => {
    const fifo = join(dir, 'pipe');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const chunks: Buffer[] = [];
    const reading = new Promise<void>((res, rej) => {
      const s = createReadStream(fifo);
      s.on('data', (d) => chunks.push(Buffer.from(d)));
      s.on('end', res);
      s.on('error', rej);
    });
    const r = await loupe(['export', '--format', 'jsonl', '-o', fifo]);
    expect(r.code, r.err).toBe(0);
    await reading;
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(Buffer.concat(chunks).equals(await fileExport('jsonl'))).toBe(true);
  });

  // a private character device (the null device's numbers) in the test's folder: never /dev itself
  const canMknod =
    process.platform === 'linux' &&
    process.getuid?.() === 0 &&
    spawnSync('mknod', [join(tmpdir(), `loupe-mknod-probe-${process.pid}`), 'c', '1', '3']).status === 0;
  rmSync(join(tmpdir(), `loupe-mknod-probe-${process.pid}`), { force: true });
  it.skipIf(!canMknod)('a character device is written to, never replaced (export and call)', async () => {
    const dev = join(dir, 'null');
    expect(spawnSync('mknod', [dev, 'c', '1', '3']).status).toBe(0);
    const r = await loupe(['export', '--format', 'csv', '-o', dev]);
    expect(r.code, r.err).toBe(0);
    expect(lstatSync(dev).isCharacterDevice()).toBe(true);
    const c = await loupe(['call', 'photo_net/profile/posts', '-p', 'handle=out_dev', '--yes', '-o', dev], {
      ...env(),
      LOUPE_BASE_URL: sb.url,
      LOUPE_API_KEY: sb.key,
    });
    expect(c.code, c.err).toBe(0);
    expect(lstatSync(dev).isCharacterDevice()).toBe(true);
  });

  it('loupe call: --out - is standard output, a link is written through, a regular file is renamed into place', async () => {
    const e = { ...env(), LOUPE_BASE_URL: sb.url, LOUPE_API_KEY: sb.key };
    const s = await loupe(['call', 'photo_net/profile/posts', '-p', 'handle=out_std', '--yes', '--out', '-'], e);
    expect(s.code, s.err).toBe(0);
    const lines = s.out.toString().trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(typeof (JSON.parse(l) as { post: { id: unknown } }).post.id).toBe('string');
    expect(existsSync('-')).toBe(false);

    const target = join(dir, 'call-target.jsonl');
    const link = join(dir, 'call-link.jsonl');
    symlinkSync(target, link); // a link to a file that does not exist yet
    const l = await loupe(['call', 'photo_net/profile/posts', '-p', 'handle=out_std', '--yes', '--out', link], e);
    expect(l.code, l.err).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8').trimEnd().split('\n')).toHaveLength(lines.length);

    const plain = join(dir, 'call.jsonl');
    const p = await loupe(['call', 'photo_net/profile/posts', '-p', 'handle=out_std', '--yes', '--out', plain], e);
    expect(p.code, p.err).toBe(0);
    expect(lstatSync(plain).isFile()).toBe(true);
  });

  it('the built command line writes through a link to its own standard output (as /dev/stdout is)', async () => {
    const link = join(dir, 'stdout-link');
    symlinkSync('/proc/self/fd/1', link);
    const captured = join(dir, 'captured.csv'); // the child's standard output is this file
    const fd = openSync(captured, 'w');
    const out = await new Promise<{ code: number | null; err: string }>((res, rej) => {
      const p = spawn(process.execPath, [resolve('bin/loupe.js'), 'export', '--format', 'csv', '-o', link], {
        env: { PATH: process.env.PATH, ...env() },
        stdio: ['ignore', fd, 'pipe'],
      });
      let err = '';
      p.stderr?.on('data', (d: Buffer) => (err += d.toString()));
      p.on('error', rej);
      p.on('close', (code) => res({ code, err }));
    });
    closeSync(fd);
    expect(out.code, out.err).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe('/proc/self/fd/1');
    expect(readFileSync(captured).equals(await fileExport('csv'))).toBe(true);
  });
});
