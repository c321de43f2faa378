/** The archive proves it can take an answer before a charged request (issue 24 #9; writable.ts). */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { isStorageError } from '../storage-error';
import { openArchive } from './archive';
import { ctxOf } from './context';
import { buildArchiveFile, damageLeafPage } from './test-fixtures';
import { testDb } from './testing';
import { MIN_FREE_BYTES, proveWritable } from './writable';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function archiveFile(n = 200): string {
  const d = mkdtempSync(join(tmpdir(), 'loupe-writable-'));
  dirs.push(d);
  const file = join(d, 'loupe.db');
  buildArchiveFile(file, n);
  return file;
}
const counts = (db: ReturnType<typeof testDb>) =>
  Object.fromEntries(
    ['journal', 'calls', 'responses', 'items', 'items_fts_data', 'label_fields', 'item_labels', 'provenance', 'balance'].map((t) => [
      t,
      (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n,
    ]),
  );

describe('ensureWritable', () => {
  it('a healthy archive passes and keeps nothing of the probe: no row, no data version change', () => {
    const a = openArchive(archiveFile());
    try {
      const before = counts(testDb(a));
      const version = a.dataVersion();
      a.ensureWritable();
      expect(counts(testDb(a))).toEqual(before);
      expect(a.dataVersion()).toBe(version);
      expect(testDb(a).prepare("SELECT count(*) AS n FROM items WHERE id LIKE 'probe:%'").get()).toEqual({ n: 0 });
      expect(testDb(a).inTransaction).toBe(false);
    } finally {
      a.close();
    }
  });

  it('an archive that cannot be written: the storage sentence (read-only); after a storage failure it proves itself again', () => {
    const a = openArchive(archiveFile());
    try {
      a.ensureWritable();
      expect(ctxOf(a).writableProven).toBe(true);
      testDb(a).pragma('query_only = 1'); // as a read-only file or folder answers
      expect(() => a.setBalance(1, 1)).toThrow(/read-only/);
      expect(ctxOf(a).writableProven).toBe(false);
      const e = (() => {
        try {
          a.ensureWritable();
        } catch (x) {
          return x;
        }
      })();
      expect(isStorageError(e)).toBe(true);
      expect((e as Error).message).toMatch(/^The archive at .* could not be written: it or its folder is read-only/);
      testDb(a).pragma('query_only = 0');
      a.ensureWritable();
      expect(ctxOf(a).writableProven).toBe(true);
    } finally {
      a.close();
    }
  });

  it('a disk with less free space than the floor: the storage sentence (full) before every charged request, proved or not', () => {
    const file = archiveFile();
    const fs = statfsSync(dirname(file));
    const free = fs.bavail * fs.bsize;
    const a = openArchive(file, { minFreeBytes: 0 });
    try {
      a.ensureWritable();
      expect(ctxOf(a).writableProven).toBe(true);
      // the disk fills after the proof: the next charged request is refused all the same (before,
      // a nearly full disk passed the one-item probe and answers in flight were charged, not stored)
      (ctxOf(a) as { minFreeBytes: number | null }).minFreeBytes = free + 1024 ** 3;
      const e = (() => {
        try {
          a.ensureWritable();
        } catch (x) {
          return x;
        }
      })();
      expect(isStorageError(e) && e.kind).toBe('full');
      expect((e as Error).message).toMatch(
        /^The archive at .*loupe\.db could not be written: the disk is full .*MiB free on its disk; Loupe sends no charged request below .* MiB/,
      );
      expect(ctxOf(a).writableProven).toBe(false);
      (ctxOf(a) as { minFreeBytes: number | null }).minFreeBytes = 0;
      a.ensureWritable();
      expect(ctxOf(a).writableProven).toBe(true);
    } finally {
      a.close();
    }
    // the default floor: refused exactly when the disk has less than MIN_FREE_BYTES free
    const b = openArchive(file);
    try {
      if (free >= MIN_FREE_BYTES) expect(() => b.ensureWritable()).not.toThrow();
      else expect(() => b.ensureWritable()).toThrow(/MiB free on its disk/);
    } finally {
      b.close();
    }
  });

  it('without the full check (a large archive), the probe alone still finds damage on the path a new answer takes', () => {
    const file = archiveFile(400);
    damageLeafPage(file, 'items', 10_000); // the last leaf: where a new item goes
    const a = openArchive(file);
    try {
      expect(() => proveWritable(ctxOf(a), 0)).toThrow(/malformed/);
    } finally {
      a.close();
    }
    // a damaged page elsewhere is found only by the full check (the documented limit of step 1)
    const other = archiveFile(400);
    damageLeafPage(other, 'items', 3);
    const b = openArchive(other);
    try {
      expect(() => proveWritable(ctxOf(b), 0)).not.toThrow();
      expect(() => proveWritable(ctxOf(b))).toThrow(/damaged|malformed/);
    } finally {
      b.close();
    }
  });
});
