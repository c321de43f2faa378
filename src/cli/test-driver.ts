/**
 * Test helper (not shipped): runs several `loupe` command lines in ONE process and prints their
 * exit codes and output as JSON — the CLI tests start it as another user (a read-only data folder
 * when the tests run as root) or under `ulimit`, paying the TypeScript start-up once.
 *   tsx src/cli/test-driver.ts '[["walks","--json"],["columns"]]'
 */
import { PassThrough } from 'node:stream';
import { runCli } from './main';

const commands = JSON.parse(process.argv[2] ?? '[]') as string[][];
const results: Array<{ args: string[]; code: number; out: string; err: string }> = [];
for (const args of commands) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough();
  stdin.end();
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += String(d)));
  stderr.on('data', (d) => (err += String(d)));
  const code = await runCli(args, { stdout, stderr, stdin, env: process.env });
  results.push({ args, code, out, err });
}
process.stdout.write(JSON.stringify(results));
