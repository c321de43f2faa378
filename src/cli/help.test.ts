/**
 * `loupe <command> --help` and the command list say what every command does: a command without a
 * description shows as a bare name in `loupe --help` (issue 26, the front door). Walks the whole
 * command tree as `buildProgram` builds it, so a command added later is checked too.
 */
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { expect, it } from 'vitest';
import type { Io } from './io';
import { buildProgram } from './main';

function commands(c: Command, path: string[] = []): Array<{ path: string; description: string }> {
  return c.commands.flatMap((s) => {
    const p = [...path, s.name()];
    return [{ path: p.join(' '), description: s.description() }, ...commands(s, p)];
  });
}

it('every command and subcommand has a description', () => {
  const io = { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), env: {} } as unknown as Io;
  const all = commands(buildProgram(io).program);
  expect(all.length).toBeGreaterThan(30);
  expect(all.filter((c) => c.description.trim() === '').map((c) => c.path)).toEqual([]);
});
