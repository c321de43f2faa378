/**
 * Standard output and `--out` targets when the reader goes away (issue 24 #6): `loupe call … --all
 * | head -1`. A closed pipe (EPIPE) is not a failure of Loupe: the command stops before its next
 * request, keeps everything it already paid for (ledger, archive, walk state), and exits quietly
 * with 141 — 128 + SIGPIPE, what a Unix tool killed by a closed pipe reports (docs/cli.md
 * "Pipes") — writing at most one line on stderr. Any other write failure of the output (a full
 * disk under `> file`) stops the same way and is reported as a storage error (exit 6).
 *
 * Node ignores SIGPIPE, so a closed pipe shows as an EPIPE error: on Linux a pipe on stdout is
 * written synchronously, so `stream.errored` is set as soon as the write returns (the 'error'
 * event follows on the next tick); a write that is detected later (an asynchronous stream) stops
 * the command at its next page, never in the middle of a request (that would leave a request the
 * service may charge and Loupe never sees answered).
 */
import { createReadStream, lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { asStorageError, storageError } from '../core/storage-error';
import type { Io } from './io';
import { rawOf } from './terminal';

/** 128 + SIGPIPE (13): the exit status of a Unix tool whose reader closed the pipe. */
export const EXIT_OUTPUT_CLOSED = 141;

export function isClosedPipe(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED' || code === 'ECONNRESET';
}

/**
 * A command stopped because its output went away. `line` is the one sentence for stderr (may be
 * empty: nothing is written). runCli exits 141 for it.
 */
export class OutputClosed extends Error {
  constructor(readonly line: string) {
    super(line || 'The output was closed.');
    this.name = 'OutputClosed';
  }
}

type Stream = NodeJS.WritableStream & { errored?: Error | null };

/** Watches a run's stdout and stderr: a closed or failing output never crashes the process. */
export class OutputGuard {
  /** the first failure of standard output (EPIPE: the reader left), or null */
  failure: Error | null = null;
  /** stderr failed (e.g. `2>&1 | head`): nothing more is written there */
  stderrGone = false;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly io: Io) {
    const out = io.stdout;
    out.on('error', (e: Error) => this.fail(e));
    // the same stream twice (2>&1 in a test): one listener is enough
    if (io.stderr !== out) io.stderr.on('error', () => (this.stderrGone = true));
  }

  /** true once standard output failed */
  get closed(): boolean {
    return this.failure !== null;
  }

  /** true when the failure is a closed pipe (the reader left), not a broken disk */
  get readerLeft(): boolean {
    return this.failure !== null && isClosedPipe(this.failure);
  }

  /** Called once when standard output fails (at once if it already has). */
  onClose(fn: () => void): () => void {
    if (this.failure) {
      fn();
      return () => {};
    }
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  fail(e: Error): void {
    if (this.failure) return;
    this.failure = e;
    for (const fn of [...this.listeners]) fn();
    this.listeners.clear();
  }

  /**
   * Writes to standard output (text through the run's stream, which shows control characters
   * escaped: ./terminal.ts); false when it is gone (this write failed or an earlier one did).
   * Never throws: the failure is read from the stream at once, where the platform knows it.
   */
  write(s: string | Uint8Array, o: { raw?: boolean } = {}): boolean {
    if (this.failure) return false;
    // raw: bytes that must stay as they are (a file copied to a pipe), not text for a terminal
    const out = (o.raw ? rawOf(this.io.stdout) : this.io.stdout) as Stream;
    try {
      out.write(s);
    } catch (e) {
      this.fail(e as Error);
    }
    if (!this.failure && out.errored) this.fail(out.errored);
    return this.failure === null;
  }

  /**
   * Resolves once standard output has taken what was written (a full pipe drained: its reader
   * caught up) or has failed. Never rejects.
   */
  async settled(): Promise<void> {
    const out = this.io.stdout as NodeJS.WritableStream & { writableNeedDrain?: boolean; errored?: Error | null };
    if (!this.failure && out.errored) this.fail(out.errored);
    if (this.failure || !out.writableNeedDrain) return;
    await new Promise<void>((res) => {
      const done = (): void => {
        out.off('drain', done);
        off();
        res();
      };
      out.on('drain', done);
      const off = this.onClose(done);
    });
  }

  /** One line on stderr, unless stderr is gone too. */
  say(line: string): void {
    if (this.stderrGone || !line) return;
    try {
      this.io.stderr.write(line.endsWith('\n') ? line : line + '\n');
    } catch {
      this.stderrGone = true;
    }
  }

  /** The failure to report: OutputClosed for a reader that left, else a storage error (exit 6). */
  problem(stopped: string): Error | null {
    if (!this.failure) return null;
    if (this.readerLeft) return new OutputClosed(stopped && `The output was closed by its reader: ${stopped}`);
    const wording = { what: 'the output', wayOut: 'free space or write somewhere else, then continue' };
    return (
      asStorageError(this.failure, 'standard output', wording) ??
      storageError('io', 'standard output', { ...wording, detail: this.failure.message })
    );
  }
}

const guards = new WeakMap<Io, OutputGuard>();

/** The guard of a run's streams (one per Io, made on first use). */
export function guardOf(io: Io): OutputGuard {
  let g = guards.get(io);
  if (!g) {
    g = new OutputGuard(io);
    guards.set(io, g);
  }
  return g;
}

/**
 * Where an `--out` goes. `-` is standard output. An existing FIFO, character device (/dev/null,
 * a terminal) or socket — also behind a symlink such as /dev/stdout or /dev/fd/N — is written
 * through: it cannot be replaced by a renamed file, and must never be. Anything else is a file,
 * written under a temporary name and renamed when complete; a symlink to a file keeps its link
 * (the file it points at is replaced).
 */
export type OutTarget = { kind: 'stdout' } | { kind: 'through'; path: string } | { kind: 'file'; path: string };

export function outTarget(out: string): OutTarget {
  if (out === '-') return { kind: 'stdout' };
  const abs = resolve(out);
  try {
    const st = statSync(abs);
    if (st.isFIFO() || st.isCharacterDevice() || st.isSocket()) return { kind: 'through', path: abs };
    return { kind: 'file', path: realpathSync(abs) };
  } catch {
    // nothing there yet — or a dangling symlink: the file goes where the link points
    try {
      if (lstatSync(abs).isSymbolicLink()) return { kind: 'file', path: resolve(dirname(abs), readlinkSync(abs)) };
    } catch {
      /* no such path */
    }
    return { kind: 'file', path: abs };
  }
}

/**
 * Copies a finished file to standard output or into a FIFO / device (`--out -`, `--out
 * /dev/stdout`): the exports are written to a temporary file first, so a reader gets a complete
 * export or nothing. Waits while the reader catches up. A reader that leaves ends the copy with
 * OutputClosed (exit 141, quiet); any other write failure is a storage error.
 */
export async function copyOut(file: string, target: Exclude<OutTarget, { kind: 'file' }>, io: Io): Promise<void> {
  const guard = guardOf(io);
  const h = target.kind === 'through' ? await open(target.path, 'w') : null;
  try {
    for await (const chunk of createReadStream(file, { highWaterMark: 1 << 16 }) as AsyncIterable<Buffer>) {
      if (h) {
        await h.write(chunk);
        continue;
      }
      if (guard.write(chunk, { raw: true })) await guard.settled();
      if (guard.closed) break;
    }
  } catch (e) {
    if (!h || !isClosedPipe(e))
      throw asStorageError(e, target.kind === 'through' ? target.path : 'standard output', { what: 'the output' }) ?? e;
    throw new OutputClosed('');
  } finally {
    await h?.close().catch(() => undefined);
  }
  const p = guard.problem('');
  if (p) throw p;
}
