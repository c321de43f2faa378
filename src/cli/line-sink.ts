/** Where `loupe call` / `resume` write their JSON lines, and the --out checks made before anything is spent. */
import { accessSync, closeSync, constants, existsSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { freshPartial } from '../core/partial-files';
import { asStorageError } from '../core/storage-error';
import type { Envelope, ListData } from '../shared/api-types';
import { UsageError } from './context';
import type { Io } from './io';
import { guardOf, isClosedPipe, OutputClosed, outTarget, type OutputGuard, type OutTarget } from './output';

/**
 * An --out file must go to a folder that exists (else a usage error) and can be written (else the
 * storage sentence, exit 6): checked before anything is read or spent. `-` (standard output) needs
 * nothing; a FIFO or device (/dev/stdout, a pipe) must be writable itself.
 */
export function checkOut(out: string | undefined): OutTarget | null {
  if (out === undefined) return null;
  const t = outTarget(out);
  if (t.kind === 'stdout') return t;
  const dir = dirname(t.path);
  if (t.kind === 'file' && !existsSync(dir)) throw new UsageError(`The folder for --out does not exist: ${dir}.`);
  try {
    accessSync(t.kind === 'file' ? dir : t.path, constants.W_OK);
  } catch (e) {
    throw (
      asStorageError(e, t.path, { what: 'the file', wayOut: 'choose a place you can write to, or fix the permissions of its folder' }) ??
      new UsageError(`Cannot write --out ${out}.`)
    );
  }
  return t;
}

/**
 * Writes JSON lines to standard output, to --out through a temporary file renamed at the end, or
 * straight into a FIFO / device named by --out. Writes are synchronous where the platform allows,
 * so a closed pipe or a full disk is mostly known when `write` returns; one found later (standard
 * output written in the background) is taken up by the next `write` or `poll`. `write` never
 * throws: `failed` turns true and `onFail` runs — always from `write` / `poll`, which the caller
 * runs between two pages, so its walk stops before the next request and never aborts one in
 * flight (docs/cli.md "Pipes").
 */
export class LineSink {
  lines = 0;
  /** the write failure (EPIPE: the reader left; ENOSPC…), or null */
  failure: Error | null = null;
  private finished = false;
  private readonly guard: OutputGuard;
  private onFailFns: Array<() => void> = [];

  private constructor(
    io: Io,
    private readonly target: OutTarget,
    private fd: number | null,
    private readonly tmp: string | null,
    /** a FIFO / device opened asynchronously: kept so that it is closed here, not by the GC */
    private readonly handle: FileHandle | null = null,
  ) {
    this.guard = guardOf(io);
  }

  static async open(io: Io, out: string | undefined): Promise<LineSink> {
    const t = out === undefined ? ({ kind: 'stdout' } as const) : outTarget(out);
    if (t.kind === 'stdout') return new LineSink(io, t, null, null);
    // a FIFO's open waits for its reader: asynchronously, so nothing else stops meanwhile
    if (t.kind === 'through') {
      const h = await open(t.path, 'w');
      return new LineSink(io, t, h.fd, null, h);
    }
    // pid-tagged hidden name: what a killed run left for this name is removed here (partial-files.ts)
    const tmp = freshPartial(t.path);
    return new LineSink(io, t, openSync(tmp, 'w'), tmp);
  }

  get failed(): boolean {
    return this.failure !== null;
  }

  /** the reader of the output went away (EPIPE), as opposed to a write that failed */
  get readerLeft(): boolean {
    return this.failure !== null && isClosedPipe(this.failure);
  }

  onFail(fn: () => void): void {
    if (this.failure) fn();
    else this.onFailFns.push(fn);
  }

  private fail(e: Error): void {
    if (this.failure) return;
    this.failure = e;
    for (const fn of this.onFailFns) fn();
    this.onFailFns = [];
  }

  /**
   * Takes up a failure of standard output found after an earlier write had returned (a pipe whose
   * buffer was full, written in the background, whose reader then left). Call it between pages:
   * never from the stream's 'error' event, which may come while a request is in flight — stopping
   * it there would abort a request the service may still charge.
   */
  poll(): boolean {
    if (!this.failure && this.fd === null && this.guard.failure) this.fail(this.guard.failure);
    return this.failed;
  }

  /**
   * Resolves once standard output has taken what was written (a full pipe drained: its reader
   * caught up) or has failed, and takes up the failure (`poll`). The walk awaits it after each
   * page: no page is bought ahead of a reader that has not read the last one, and a reader that
   * left is known before the next request.
   */
  async settled(): Promise<void> {
    if (this.fd === null && !this.poll()) await this.guard.settled();
    this.poll();
  }

  write(v: unknown): void {
    if (this.poll()) return;
    const s = JSON.stringify(v) + '\n';
    if (this.fd === null) {
      if (!this.guard.write(s)) this.fail(this.guard.failure ?? new Error('Standard output refused the line.'));
    } else {
      try {
        const b = Buffer.from(s, 'utf8');
        for (let off = 0; off < b.length;) off += writeSync(this.fd, b, off);
      } catch (e) {
        this.fail(e as Error);
        return;
      }
    }
    this.lines++;
  }

  /**
   * Ends the file once: later calls (a `finally` after an early finish) do nothing. A file that
   * failed is not renamed (a full disk leaves no half file under the final name) unless lines
   * were written and the failure is only the reader leaving a FIFO.
   */
  async finish(ok: boolean): Promise<void> {
    if (this.finished || this.fd === null) return;
    this.finished = true;
    try {
      if (this.handle) await this.handle.close();
      else closeSync(this.fd);
    } catch {
      /* already failed */
    }
    this.fd = null;
    if (!this.tmp) return;
    if (!this.failure && (ok || this.lines > 0)) renameSync(this.tmp, this.target.kind === 'file' ? this.target.path : this.tmp);
    else rmSync(this.tmp, { force: true });
  }

  /**
   * What to throw once the command stopped because of the output: OutputClosed (exit 141, `line`
   * on stderr) when the reader left, else the storage error of the write (exit 6), or null.
   */
  problem(line: string): Error | null {
    const failure = this.poll() ? this.failure : null;
    if (!failure) return null;
    if (this.readerLeft) return new OutputClosed(`The output was closed by its reader: ${line}`);
    if (this.target.kind === 'stdout') return this.guard.problem(line);
    const path = this.target.path;
    return (
      asStorageError(failure, path, { what: 'the file', wayOut: `free space or choose another --out; ${line}` }) ??
      new UsageError(`Could not write --out ${path}: ${failure.message}. ${line}`)
    );
  }
}

export function itemsOf(env: Envelope): unknown[] {
  const d = env.data as Partial<ListData> & Record<string, unknown>;
  if (Array.isArray(d.items)) return d.items;
  return [env.data];
}
