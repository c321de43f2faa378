/**
 * `loupe <command> --help` and the command list say what every command does: a command without a
 * description shows as a bare name in `loupe --help` (issue 26, the front door). Walks the whole
 * command tree as `buildProgram` builds it, so a command added later is checked too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { expect, it } from 'vitest';
import type { Io } from './io';
import { buildProgram } from './main';
import { runCaptured } from './run-captured';

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

it('a usage error is one line on stderr naming the command’s help, exit 2, nothing on stdout (every command)', async () => {
  const io = { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), env: {} } as unknown as Io;
  const paths = ['', ...commands(buildProgram(io).program).map((c) => c.path)];
  const home = mkdtempSync(join(tmpdir(), 'loupe-usage-'));
  try {
    for (const path of paths) {
      const r = await runCaptured([...(path ? path.split(' ') : []), '--no-such-option-zq'], { LOUPE_HOME: home });
      expect({ path, code: r.code, out: r.out }).toEqual({ path, code: 2, out: '' });
      expect(r.err).toMatch(new RegExp(`^loupe: [^\\n]+; see: loupe ${path ? `${path} ` : ''}--help\\n$`));
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  // a value outside its choices names them, on the same line
  const bad = await runCaptured(['export', '--format', 'xml', '--out', 'x'], {});
  expect(bad.err).toBe(
    "loupe: option '--format <f>' argument 'xml' is invalid. Allowed choices are csv, json, jsonl, xlsx, parquet, gexf, graphml; see: loupe export --help\n",
  );
});
