/**
 * Storage failures are local errors (issue #12): every archive writer turns SQLite / file-system
 * failures into a StorageError naming the archive, the cause and the way out.
 */
import { describe, it, expect, afterEach } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openArchive, type Archive } from './index';
import { isStorageError, StorageError } from '../storage-error';
import type { LedgerEntry } from '../ports';
import { buildArchiveFile, damageLeafPage, ledgerEntry, listResponse, post } from './test-fixtures';
import { testDb } from './testing';

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'loupe-storage-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function attempt(i: number): LedgerEntry {
  return ledgerEntry({
    callId: `c${i}`,
    startedAt: i,
    durationMs: 1,
    params: '{}',
    paramsHash: `h${i}`,
    idempotencyKey: `k${i}`,
    requestId: `req_${i}_${'x'.repeat(200)}`,
    creditsUsed: 1,
    creditsRemaining: 1000 - i,
    source: 'cli',
  });
}

/** Calls `write(i)` with growing i until it throws; returns the error. */
function untilItThrows(write: (i: number) => void): unknown {
  for (let i = 0; i < 20_000; i++) {
    try {
      write(i);
    } catch (e) {
      return e;
    }
  }
  return null;
}

function expectStorage(e: unknown, kind: StorageError['kind'], file: string): StorageError {
  expect(isStorageError(e), `not a StorageError: ${String(e)}`).toBe(true);
  const se = e as StorageError;
  expect(se.kind).toBe(kind);
  expect(se.path).toBe(file);
  expect(se.message).toContain(file);
  // one sentence: cause, then the way out
  expect(se.message.trim().split(/\.\s/).length).toBe(1);
  return se;
}

describe('a full disk', () => {
  it('every writer of the request core fails with StorageError "full" (SQLITE_FULL via max_page_count), naming the archive and the way out', () => {
    const file = join(tmp(), 'loupe.db');
    const a = openArchive(file);
    const fill = (): void => {
      testDb(a).pragma(`max_page_count = ${testDb(a).pragma('page_count', { simple: true }) as number}`);
    };
    const writers: Array<[string, (a: Archive, i: number) => void]> = [
      ['recordAttempt', (x, i) => void x.recordAttempt(attempt(i))],
      [
        'beginJournal',
        (x, i) =>
          x.beginJournal({
            callId: `j${i}`,
            opKey: `op${i}_${'o'.repeat(200)}`,
            idempotencyKey: `k${i}`,
            platform: 'p',
            endpoint: 'e',
            params: '{}',
            paramsHash: 'h',
            state: 'pending',
            createdAt: i,
            finishedAt: null,
          }),
      ],
      [
        'storeResponse',
        (x, i) =>
          void x.storeResponse(
            listResponse(`s${i}`, 'photo_net', 'profile/posts', [post({ id: `sp${i}`, text: 't'.repeat(500) })]),
            'cli',
            null,
          ),
      ],
      [
        'saveWalk',
        (x, i) =>
          x.saveWalk({
            walkId: `w${i}_${'w'.repeat(200)}`,
            platform: 'p',
            endpoint: 'e',
            params: '{}',
            cursorParam: 'cursor',
            cursor: null,
            pagesDone: 0,
            creditsSpent: 0,
            itemsSeen: 0,
            status: 'running',
            stopReason: null,
            source: 'cli',
            createdAt: i,
            updatedAt: i,
            error: null,
          }),
      ],
      [
        'ingestItems',
        (x, i) => void x.ingestItems([{ platform: 'photo_net', kind: 'post', record: post({ id: `ing${i}`, text: 'i'.repeat(500) }) }]),
      ],
    ];
    for (const [name, write] of writers) {
      fill();
      const e = untilItThrows((i) => write(a, i));
      const se = expectStorage(e, 'full', file);
      expect(se.message, name).toMatch(/disk is full/);
      expect(se.message, name).toMatch(/free some disk space/);
      expect(se.code, name).toMatch(/^SQLITE_FULL/);
      testDb(a).pragma('max_page_count = 4294967294');
    }
    // the archive is still consistent after the failed transactions
    expect(testDb(a).pragma('integrity_check', { simple: true })).toBe('ok');
    a.close();
  });

  it.skipIf(process.platform === 'win32')(
    'a write past the file-size limit (EFBIG, a child under `ulimit -f`) is StorageError "full", not an I/O error',
    () => {
      const dir = tmp();
      const file = join(dir, 'loupe.db');
      const script = join(dir, 'fill.ts');
      writeFileSync(
        script,
        `import { openArchive } from ${JSON.stringify(resolve('src/core/archive/index.ts'))};
import { listResponse, post } from ${JSON.stringify(resolve('src/core/archive/test-fixtures.ts'))};
const a = openArchive(process.argv[2]);
let out: unknown = null;
try {
  for (let i = 0; i < 100000; i++) {
    const posts = Array.from({ length: 20 }, (_, j) => post({ id: String(i * 20 + j), text: 'x'.repeat(800) }));
    a.storeResponse(listResponse('c' + i, 'photo_net', 'profile/posts', posts), 'cli', null);
  }
} catch (e) {
  const x = e as { name: string; kind?: string; code?: string; path?: string; message: string };
  out = { name: x.name, kind: x.kind, code: x.code, path: x.path, message: x.message };
}
process.stdout.write(JSON.stringify(out));
`,
      );
      const tsx = resolve('node_modules/.bin/tsx');
      // 3000 blocks of 1 KiB: the schema fits, the WAL stops growing at ~3 MB
      const r = spawnSync(
        'bash',
        ['-c', `ulimit -f 3000 && exec ${JSON.stringify(tsx)} ${JSON.stringify(script)} ${JSON.stringify(file)}`],
        {
          encoding: 'utf8',
          timeout: 60_000,
        },
      );
      expect(r.status, r.stderr).toBe(0);
      const got = JSON.parse(r.stdout) as { name: string; kind: string; code: string; path: string; message: string } | null;
      expect(got).not.toBeNull();
      expect(got).toMatchObject({ name: 'StorageError', kind: 'full', path: file });
      expect(got?.code).toMatch(/^SQLITE_(IOERR|FULL)/);
      expect(got?.message).toMatch(/disk is full or a file-size limit was reached/);
    },
  );
});

describe('a damaged or foreign file', () => {
  it('opening a file that is not a database is StorageError "damaged" with the path and `loupe archive check`, not an internal error', () => {
    const file = join(tmp(), 'loupe.db');
    writeFileSync(file, 'these are my notes, not an archive\n'.repeat(300));
    let err: unknown = null;
    try {
      openArchive(file).close();
    } catch (e) {
      err = e;
    }
    const se = expectStorage(err, 'damaged', file);
    expect(se.message).toMatch(/could not be opened/);
    expect(se.message).toMatch(/loupe archive check/);
    expect(se.message).toMatch(/loupe archive recover/);
  });

  it('reading or writing a damaged page is StorageError "damaged"; the rest of the archive still reads', () => {
    const file = join(tmp(), 'loupe.db');
    buildArchiveFile(file, 300);
    damageLeafPage(file, 'items', 3);
    const a = openArchive(file);
    // the walk and the ledger live on other pages
    expect(a.getWalk('walk1')?.pagesDone).toBe(15);
    expectStorage(
      untilItThrows(() => a.count({ text: 'number' }) + a.query({ limit: 500 }).rows.length),
      'damaged',
      file,
    );
    const w = untilItThrows((i) =>
      a.storeResponse(
        listResponse(`again${i}`, 'photo_net', 'profile/posts', [post({ id: String(9_000_000_000_000_000n + BigInt(i % 300)) })]),
        'cli',
        null,
      ),
    );
    const se = expectStorage(w, 'damaged', file);
    expect(se.message).toMatch(/loupe archive recover/);
    a.close();
  });
});
