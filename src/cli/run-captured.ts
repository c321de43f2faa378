/**
 * Runs one `loupe` command line in this process with captured output (used by the CLI tests and
 * their out-of-process driver): the exit code, stdout and stderr as text.
 */
import { PassThrough } from 'node:stream';
import { runCli } from './main';

export interface Captured {
  code: number;
  out: string;
  err: string;
}

export async function runCaptured(args: string[], env: NodeJS.ProcessEnv, stdinText?: string): Promise<Captured> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough();
  stdin.end(stdinText);
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += String(d)));
  stderr.on('data', (d) => (err += String(d)));
  const code = await runCli(args, { stdout, stderr, stdin, env });
  return { code, out, err };
}
