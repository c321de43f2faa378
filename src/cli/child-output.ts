/**
 * Test helper (not shipped): a child process's exit code and its whole standard output and error,
 * once it has closed them. The CLI tests that run the built command line as a whole process
 * (built.test.ts, full-disk.test.ts, analyze-exit.test.ts) spawn it their own way (a module hook,
 * `ulimit`, an environment) and read it back through this.
 */
import { spawn, type SpawnOptions } from 'node:child_process';

export interface ChildOutput {
  code: number | null;
  out: string;
  err: string;
}

/** Runs `cmd args` with piped standard output and error (standard input closed). */
export function childOutput(cmd: string, args: readonly string[], opts: Omit<SpawnOptions, 'stdio'> = {}): Promise<ChildOutput> {
  return new Promise((res, rej) => {
    const p = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    p.on('error', rej);
    p.on('close', (code) => res({ code, out, err }));
  });
}
