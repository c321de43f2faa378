/**
 * An archive on a disk with no room left at all: SQLite cannot make the 32 KiB -shm file a
 * cleanly closed WAL archive needs to be opened (on a full tmpfs SQLITE_IOERR_SHMSIZE; here, a
 * child under `ulimit -f 0`, SQLITE_IOERR_SHMOPEN). Reading commands read it alone, the WAL
 * index in memory (src/core/archive/open.ts openOnFullDisk) and say so once; they answer as with
 * room, and the file is left byte for byte; `archive check` says healthy (before: "damaged, run
 * recover"); a writing command stops with the storage sentence and the way out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childOutput, type ChildOutput } from './child-output';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildArchiveFile } from '../core/archive/test-fixtures';
import { runCaptured } from './run-captured';

const BIN = resolve('bin/loupe.js');

/** `loupe args…` in a child that may write no file past 0 bytes (a disk with no room), its output through pipes. */
function noRoom(args: string[], home: string): Promise<ChildOutput> {
  return childOutput(
    'bash',
    ['-c', `ulimit -f 0 && exec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"`, 'loupe', ...args],
    {
      env: { PATH: process.env.PATH, LOUPE_HOME: home, LOUPE_API_KEY: '' },
    },
  );
}

const sha = (f: string): string => createHash('sha256').update(readFileSync(f)).digest('hex');
const NOTE =
  /^The disk of the archive at .*loupe\.db is full: it is read as it is and nothing is written to it; free some disk space before a command that writes\.$/m;

describe.skipIf(process.platform === 'win32')('an archive on a disk with no room left', () => {
  let home = '';
  let room = '';
  let before = '';
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'loupe-full-'));
    room = mkdtempSync(join(tmpdir(), 'loupe-room-'));
    buildArchiveFile(join(home, 'loupe.db'), 60); // closed cleanly: no -shm, no -wal
    copyFileSync(join(home, 'loupe.db'), join(room, 'loupe.db'));
    before = sha(join(home, 'loupe.db'));
  });
  afterAll(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(room, { recursive: true, force: true });
  });

  it('analyze answers as with room, after one note; the file is left byte for byte', async () => {
    // (library, walks, export and the other reading commands open the archive the same way: checked by hand on a full tmpfs)
    const args = ['analyze', 'top', '--field', 'words', '--limit', '15'];
    const full = await noRoom(args, home);
    const want = await runCaptured(args, { LOUPE_HOME: room, LOUPE_API_KEY: '' });
    expect(want.code).toBe(0);
    expect(full.code, full.err).toBe(0);
    expect(full.out).toBe(want.out);
    expect(full.err.match(new RegExp(NOTE.source, 'gm'))).toHaveLength(1);
    expect(full.err.replace(NOTE, '').trim()).toBe(want.err.trim());
    expect(sha(join(home, 'loupe.db'))).toBe(before);
  });

  it('archive check: healthy, not "damaged"; a writing command: the storage sentence and the way out', async () => {
    const check = await noRoom(['archive', 'check'], home);
    expect(check.code, check.err).toBe(0);
    expect(check.out).toMatch(/is healthy \(60 items/);
    const write = await noRoom(['tags', 'rename', 'a', 'b'], home);
    expect(write.code).toBe(6);
    expect(write.err.trim()).toMatch(
      /^loupe: The archive at .*loupe\.db could not be opened: the disk is full or a file-size limit was reached \(SQLITE_IOERR_SHM\w+: disk I\/O error\); free some disk space, then run the command again/,
    );
    expect(sha(join(home, 'loupe.db'))).toBe(before);
  });
});
