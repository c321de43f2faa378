/** What the command files share (common.ts): reading a named list, a bounded whole-number flag. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../context';
import type { Io } from '../io';
import { intBetween, readListFile, readStdin } from './common';

const ioWith = (input: string): Io => {
  const stdin = new PassThrough();
  stdin.end(input);
  return { stdin, stdout: new PassThrough(), stderr: new PassThrough(), env: {} };
};

describe('a list the person names', () => {
  let dir = '';
  afterAll(() => rm(dir, { recursive: true, force: true }));
  it('a file as it is, standard input for "-" (not trimmed: a CSV keeps its lines)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'loupe-common-'));
    await writeFile(join(dir, 'list.txt'), 'a\nb\n');
    expect(await readListFile(ioWith(''), join(dir, 'list.txt'))).toBe('a\nb\n');
    expect(await readListFile(ioWith(' x\n'), '-')).toBe(' x\n');
    expect(await readStdin(ioWith(' x\n'))).toBe('x');
  });
  it('a missing file or a folder: a usage error that says which', async () => {
    const missing = readListFile(ioWith(''), join(tmpdir(), 'loupe-no-such-list.txt'));
    await expect(missing).rejects.toThrow(UsageError);
    await expect(missing).rejects.toThrow(/no such file/);
    await expect(readListFile(ioWith(''), tmpdir())).rejects.toThrow(/it is a folder/);
  });
});

describe('a bounded whole-number flag', () => {
  const pages = intBetween('--pages', 1, 100);
  it('takes whole numbers in range, names the flag otherwise', () => {
    expect(pages('1')).toBe(1);
    expect(pages('100')).toBe(100);
    for (const bad of ['0', '101', '1.5', 'x', ''])
      expect(() => pages(bad)).toThrow('--pages takes a whole number from 1 to 100, not "' + bad + '".');
  });
});
