/** Where `loupe call` / `resume` write their JSON lines, and the --out checks made before anything is spent. */
import { accessSync, constants, createWriteStream, existsSync, renameSync, rmSync, type WriteStream } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { asStorageError } from '../core/storage-error';
import type { Envelope, ListData } from '../shared/api-types';
import { UsageError } from './context';
import type { Io } from './io';

/**
 * An --out file must go to a folder that exists (else a usage error) and can be written (else the
 * storage sentence, exit 6): checked before anything is read or spent.
 */
export function checkOut(out: string | undefined): void {
  if (out === undefined) return;
  const dir = dirname(resolve(out));
  if (!existsSync(dir)) throw new UsageError(`The folder for --out does not exist: ${dir}.`);
  try {
    accessSync(dir, constants.W_OK);
  } catch (e) {
    throw (
      asStorageError(e, resolve(out), { what: 'the file', wayOut: 'choose a place you can write to, or fix the permissions of its folder' }) ??
      new UsageError(`Cannot write --out ${out}.`)
    );
  }
}

/** Writes JSON lines to --out (temp file renamed at the end) or stdout. */
export class LineSink {
  private file: WriteStream | null = null;
  private readonly tmp: string | null;
  lines = 0;
  constructor(
    private readonly io: Io,
    private readonly out: string | undefined,
  ) {
    this.tmp = out ? `${out}.partial-${process.pid}` : null;
    if (this.tmp) this.file = createWriteStream(this.tmp, { encoding: 'utf8' });
  }
  write(v: unknown): void {
    const s = JSON.stringify(v) + '\n';
    (this.file ?? this.io.stdout).write(s);
    this.lines++;
  }
  private finished = false;
  /** Ends the file once: later calls (a `finally` after an early finish) do nothing. */
  async finish(ok: boolean): Promise<void> {
    if (this.finished || !this.file || !this.tmp || !this.out) return;
    this.finished = true;
    const f = this.file;
    await new Promise<void>((res) => f.end(res));
    if (ok || this.lines > 0) renameSync(this.tmp, this.out);
    else rmSync(this.tmp, { force: true });
  }
}

export function itemsOf(env: Envelope): unknown[] {
  const d = env.data as Partial<ListData> & Record<string, unknown>;
  if (Array.isArray(d.items)) return d.items;
  return [env.data];
}
