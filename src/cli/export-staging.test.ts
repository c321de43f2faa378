/**
 * `loupe export` to standard output or a FIFO stages the whole export in the system temp folder
 * first (docs/cli.md "Pipes"). A run killed with SIGKILL (here: waiting for a FIFO's reader, the
 * export complete) cannot remove its folder; before, nothing ever did (`loupe-to-stdout-XXXXXX`,
 * up to the whole export's size). Now the folder carries the machine's tag and the process id, and
 * the next run that stages an export removes a dead process's (partial-files.ts freshTempDir).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildArchiveFile } from '../core/archive/test-fixtures';
import { HOST_TAG } from '../core/partial-files';
import { runCaptured } from './run-captured';

const BIN = resolve('bin/loupe.js');

describe.skipIf(process.platform === 'win32')('an export to a FIFO killed with SIGKILL', () => {
  let root = '';
  let home = '';
  let temp = '';
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'loupe-staging-'));
    home = join(root, 'home');
    temp = join(root, 'tmp'); // the runs' own temp folder: other tests' staged exports are not seen
    mkdirSync(home);
    mkdirSync(temp);
    buildArchiveFile(join(home, 'loupe.db'), 40);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('leaves its staged export, and the next run to standard output removes it', async () => {
    const fifo = join(root, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const child = spawn(process.execPath, [BIN, 'export', '--format', 'csv', '--out', fifo], {
      env: { PATH: process.env.PATH, LOUPE_HOME: home, LOUPE_API_KEY: '', TMPDIR: temp },
      stdio: 'ignore',
    });
    // the export is complete when its copy waits for the FIFO's reader (there is none)
    const staged = (): string[] => readdirSync(temp).filter((n) => existsSync(join(temp, n, 'export.csv')));
    for (let i = 0; i < 200 && staged().length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    const left = staged();
    expect(left).toEqual([expect.stringMatching(new RegExp(`^loupe-to-stdout-${HOST_TAG}-${child.pid}-[A-Za-z0-9]{6}$`))]);
    await new Promise((r) => {
      child.on('exit', r);
      child.kill('SIGKILL');
    });
    expect(readdirSync(temp)).toEqual(left);
    // a live process's staging stays (this one's parent: alive)
    const live = `loupe-to-stdout-${HOST_TAG}-${process.ppid}-Zz0011`;
    mkdirSync(join(temp, live));
    const was = process.env.TMPDIR;
    process.env.TMPDIR = temp;
    try {
      const r = await runCaptured(['export', '--format', 'csv', '--out', '-'], { LOUPE_HOME: home, LOUPE_API_KEY: '' });
      expect(r.code, r.err).toBe(0);
      expect(r.out.trim().split('\n')).toHaveLength(41);
    } finally {
      if (was === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = was;
    }
    expect(readdirSync(temp)).toEqual([live]);
  });
});
