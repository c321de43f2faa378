/**
 * How the CLI ends on a failure, through the error model (src/shared/errors.ts): the exit code
 * comes from the one table by the error's kind (docs/cli.md), never from an instanceof chain or
 * the throw site, and the sentence on stderr is the error's own message — never a stack. Only a
 * bug (anything that is not a LoupeError) says "Internal error".
 */
import { dirname, resolve } from 'node:path';
import { asStorageError, StorageError } from '../core/storage-error';
import { ERRORS, exitCodeOf, LoupeError, type ErrorKind } from '../shared/errors';

/** A CLI stop with a kind of the error model and one sentence. */
export class ExitError extends LoupeError {
  constructor(kind: ErrorKind, message: string) {
    super(kind, message);
    this.name = 'ExitError';
  }
}

/** What the failure handler needs of the context (null before it exists). */
export interface FailureContext {
  dataDir: string;
  archiveFile: string;
}

/**
 * A local storage failure that reached the top without being named (a SQLite error from a read,
 * a file-system error writing settings or an --out file): the StorageError for it, or null.
 */
function localStorageError(e: unknown, ctx: FailureContext | null): StorageError | null {
  if (e instanceof StorageError) return e;
  if (!(e instanceof Error) || e instanceof LoupeError) return null;
  const archiveFile = ctx?.archiveFile ?? null;
  const file = (e as NodeJS.ErrnoException).path;
  if (typeof file === 'string') {
    const inData = ctx !== null && resolve(dirname(file)) === resolve(ctx.dataDir);
    return asStorageError(e, file, {
      what: archiveFile !== null && resolve(file) === resolve(archiveFile) ? 'the archive' : 'the file',
      op: (e as NodeJS.ErrnoException).syscall === 'read' ? 'read' : 'write',
      ...(inData ? {} : { wayOut: 'choose a place you can write to, or free space / fix the permissions of its folder' }),
    });
  }
  const code = String((e as { code?: unknown }).code ?? '');
  if (code.startsWith('SQLITE_') && archiveFile) return asStorageError(e, archiveFile, { op: 'read' });
  return null;
}

/** The exit code and the one sentence for stderr for anything thrown out of a command. */
export function cliFailure(e: unknown, ctx: FailureContext | null): { code: number; sentence: string } {
  const err = e instanceof LoupeError ? e : (localStorageError(e, ctx) ?? e);
  const code = exitCodeOf(err);
  if (err instanceof LoupeError && ERRORS[err.kind].expected) return { code, sentence: err.message };
  const msg = err instanceof Error ? err.message : String(err);
  return { code, sentence: `Internal error: ${msg}` };
}
