import { afterEach, describe, expect, it, vi } from 'vitest';
import { ERRORS } from '../shared/errors';
import { ApiError } from './api/errors';
import { ArchiveError } from './archive/archive-error';
import { QueryError } from './archive/sql-query';
import { dispatch, toBridgeError, type AppHandle } from './bridge';
import { storageError } from './storage-error';
import type { LoupeImpl } from '../shared/contract';

afterEach(() => vi.restoreAllMocks());

describe('the error model at the bridge', () => {
  it('serialises each error with its kind; storage causes cross as storage with their type', () => {
    expect(toBridgeError(new QueryError('invalid cursor'))).toEqual({ kind: 'validation', message: 'invalid cursor' });
    expect(toBridgeError(new ArchiveError('no such result set: r1', 'not_found'))).toEqual({
      kind: 'not_found',
      message: 'no such result set: r1',
    });
    expect(toBridgeError(storageError('full', '/d/loupe.db'))).toMatchObject({ kind: 'storage', type: 'FULL' });
    expect(toBridgeError(new ApiError({ kind: 'rate_wait', message: 'Wait', type: 'RATE_LIMITED', retryAt: 1_700_000_000_000 }))).toEqual({
      kind: 'rate_wait',
      type: 'RATE_LIMITED',
      message: 'Wait',
      details: { retryAt: 1_700_000_000_000 },
    });
    expect(toBridgeError(new TypeError('x is undefined'))).toEqual({ kind: 'internal', message: 'x is undefined' });
    expect(toBridgeError(Object.assign(new Error('odd'), { kind: 'from_elsewhere' }))).toEqual({ kind: 'internal', message: 'odd' });
  });

  it('only internal is a bug; every kind has a status and an exit code', () => {
    for (const [kind, info] of Object.entries(ERRORS)) {
      expect(info.expected, kind).toBe(kind !== 'internal');
      expect(info.httpStatus).toBeGreaterThanOrEqual(400);
      expect(info.cliExit).toBeGreaterThanOrEqual(1);
    }
  });

  it('dispatch logs a stack only for a bug', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const impl = {
      'walks.get': async ({ walkId }: { walkId: string }) => {
        if (walkId === 'mistake') throw new ArchiveError('empty tag');
        throw new RangeError('bug');
      },
    } as unknown as LoupeImpl;
    const app: Pick<AppHandle, 'impl' | 'secrets'> = { impl, secrets: () => [] };
    expect(await dispatch(app, 'walks.get', { walkId: 'mistake' })).toEqual({
      ok: false,
      error: { kind: 'validation', message: 'empty tag' },
    });
    expect(log).not.toHaveBeenCalled();
    expect(await dispatch(app, 'walks.get', { walkId: 'w' })).toEqual({ ok: false, error: { kind: 'internal', message: 'bug' } });
    expect(log).toHaveBeenCalledTimes(1);
    expect(String(log.mock.calls[0][0])).toMatch(/RangeError: bug\n\s+at /);
  });
});
