/** The storage sentence of a full disk: the file, the cause and how every kind of work continues. */
import { describe, expect, it } from 'vitest';
import { asStorageError, storageError } from './storage-error';

describe('a full disk', () => {
  it('names the file and the way on for any command, a walk and a collection', () => {
    const driver = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    for (const e of [storageError('full', '/d/loupe.db'), asStorageError(driver, '/d/loupe.db')]) {
      expect(e?.kind).toBe('full');
      // before: only "continue with `loupe resume <walk>`", also after a collection, an import or the index
      expect(e?.message).toMatch(
        /^The archive at \/d\/loupe\.db could not be written: the disk is full .*; free some disk space, then run the command again — a walk continues with `loupe resume <walk>`, a collection with `loupe collect run <plan>`; what was stored is kept and nothing already paid for is bought again\.$/,
      );
    }
  });
});
