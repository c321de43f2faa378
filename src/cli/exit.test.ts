import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../core/api/errors';
import { openArchive } from '../core/archive';
import { SecretError } from '../core/secrets';
import { storageError } from '../core/storage-error';
import { cliFailure, ExitError } from './exit';
import { UsageError } from './context';

// The CLI door of the error model: exit codes come from the one table by kind; expected errors are
// their own sentence and log nothing; only a bug is "Internal error" (exit 1).
const ctx = { dataDir: '/nowhere', archiveFile: '/nowhere/archive.sqlite' };

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('did not throw');
}

afterEach(() => vi.restoreAllMocks());

describe('CLI exit codes through the error table', () => {
  it('a bad library cursor is the user’s mistake: exit 2, its own sentence, no stack, nothing logged', () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const a = openArchive(':memory:');
    try {
      const f = cliFailure(
        thrown(() => a.query({ limit: 2, after: 'garbage!' })),
        ctx,
      );
      expect(f).toEqual({ code: 2, sentence: 'invalid cursor' });
      expect(f.sentence).not.toMatch(/\n|\bat /);
    } finally {
      a.close();
    }
    expect(log).not.toHaveBeenCalled();
  });

  it('an unexpected error is internal: exit 1, "Internal error", one line', () => {
    expect(cliFailure(new TypeError('x is undefined'), ctx)).toEqual({ code: 1, sentence: 'Internal error: x is undefined' });
  });

  it('every other kind keeps its code', () => {
    const code = (e: unknown) => cliFailure(e, ctx).code;
    expect(code(new UsageError('--limit takes 1 to 1000'))).toBe(2);
    expect(code(new ApiError({ kind: 'api', message: 'refused', status: 400 }))).toBe(3);
    expect(code(new ApiError({ kind: 'api', message: 'refused', status: 503 }))).toBe(4);
    expect(code(new ApiError({ kind: 'rate_wait', message: 'wait' }))).toBe(4);
    expect(code(new ApiError({ kind: 'local_budget', message: 'budget' }))).toBe(5);
    expect(code(new ExitError('not_approved', 'Not approved'))).toBe(5);
    expect(code(new ExitError('ledger_mismatch', 'differ'))).toBe(7);
    expect(code(storageError('full', '/nowhere/archive.sqlite'))).toBe(6);
    expect(code(new SecretError('secrets_unavailable', 'no keyring'))).toBe(1);
    expect(code(new SecretError('not_found', 'no such key'))).toBe(2);
    expect(code(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' }))).toBe(6);
  });
});
