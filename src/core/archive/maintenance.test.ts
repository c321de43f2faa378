/**
 * `loupe archive check` / `recover` on a deliberately damaged archive (issue #12).
 */
import { describe, it, expect, afterEach } from 'vitest';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkArchive, findSqlite3, recoverArchive, RecoverError } from './maintenance';
import { latestVersion, openArchive } from './index';
import { buildArchiveFile, damageLeafPage } from './test-fixtures';
import { testDb } from './testing';

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'loupe-maint-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const hash = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');
const SQLITE3 = findSqlite3(process.env.LOUPE_SQLITE3 || null);
const N = 300;

describe('archive check', () => {
  it('a healthy archive: counts, no problems, nothing written', () => {
    const file = join(tmp(), 'loupe.db');
    buildArchiveFile(file, N);
    const before = hash(file);
    const r = checkArchive(file);
    expect(r).toMatchObject({ healthy: true, problems: [], items: N, ledgerRows: 15, walks: 1, schema: latestVersion() });
    expect(hash(file)).toBe(before);
    expect(readdirSync(join(file, '..'))).toEqual(['loupe.db']);
  });

  it('a damaged page: lists the problems', () => {
    const file = join(tmp(), 'loupe.db');
    buildArchiveFile(file, N);
    damageLeafPage(file, 'items', 4);
    for (const quick of [false, true]) {
      const r = checkArchive(file, { quick });
      expect(r.healthy).toBe(false);
      expect(r.problems.length).toBeGreaterThan(0);
    }
  });

  it('a file that is not a database: one problem saying it cannot be opened', () => {
    const file = join(tmp(), 'loupe.db');
    writeFileSync(file, 'not an archive at all\n'.repeat(500));
    const r = checkArchive(file);
    expect(r.healthy).toBe(false);
    expect(r.problems.join(' ')).toMatch(/not a database|damaged/);
  });
});

describe('archive recover', () => {
  it('--engine sqlite3 without a working sqlite3 program: says how to install it and changes nothing', async () => {
    const file = join(tmp(), 'loupe.db');
    buildArchiveFile(file, 60);
    damageLeafPage(file, 'items', 1);
    const before = hash(file);
    const e = await recoverArchive(file, { engine: 'sqlite3', sqlite3: '/nonexistent/sqlite3' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RecoverError);
    expect((e as RecoverError).reason).toBe('no_sqlite3');
    expect((e as RecoverError).message).toMatch(/apt-get install sqlite3/);
    expect(hash(file)).toBe(before);
    expect(readdirSync(join(file, '..'))).toEqual(['loupe.db']);
  });

  it('a healthy archive is left alone', async () => {
    const file = join(tmp(), 'loupe.db');
    buildArchiveFile(file, 40);
    const e = await recoverArchive(file).catch((x: unknown) => x);
    expect((e as RecoverError).reason).toBe('healthy');
  });

  async function recoversDamagedPage(engine: 'auto' | 'copy' | 'sqlite3', sqlite3: string | null): Promise<void> {
    const dir = tmp();
    const file = join(dir, 'loupe.db');
    const { ids } = buildArchiveFile(file, N);
    damageLeafPage(file, 'items', 4);
    damageLeafPage(file, 'provenance', 2); // a WITHOUT ROWID table too
    const damaged = hash(file);
    const r = await recoverArchive(file, { engine, sqlite3, now: () => Date.UTC(2025, 0, 2, 3, 4, 5) });
    expect(r.engine).toBe(engine === 'auto' ? (sqlite3 ? 'sqlite3' : 'copy') : engine);
    expect(r.inPlace).toBe(true);
    expect(r.aside).toBe(join(dir, 'loupe.damaged-2025-01-02T03-04-05-000Z.db'));
    expect(hash(r.aside as string)).toBe(damaged);
    // one leaf page of items is lost, nothing else
    expect(r.items).toBeLessThan(N);
    expect(r.items).toBeGreaterThan(N - 40);
    expect(r.ledgerRows).toBe(15);
    expect(r.walks).toBe(1);
    expect(checkArchive(file)).toMatchObject({ healthy: true, items: r.items, schema: latestVersion() });
    expect(readdirSync(dir).sort()).toEqual(['loupe.damaged-2025-01-02T03-04-05-000Z.db', 'loupe.db']);

    const a = openArchive(file);
    try {
      const got = a.query({ limit: 500 }).rows;
      expect(got.length).toBe(r.items);
      for (const row of got) {
        expect(ids).toContain(row.id); // ids come back as the same strings
        expect(row.record.id).toBe(row.id);
      }
      // the items of the pages before and after the damaged one are there
      const have = new Set(got.map((x) => x.id));
      expect(have.has(ids[0]) && have.has(ids[N - 1])).toBe(true);
      // derived data was rebuilt: full-text search and label rows agree with the items
      expect(a.count({ text: 'number' })).toBe(r.items);
      const complaining = got.filter((x) => (x.labels?.intent as { label?: string } | undefined)?.label === 'complaining').length;
      expect(a.count({ labels: [{ family: 'intent', field: 'label', op: 'eq', value: 'complaining' }] })).toBe(complaining);
      expect(a.getWalk('walk1')).toMatchObject({ status: 'paused', pagesDone: 15, cursor: 'sdr_c' });
      expect(a.listLedger({ limit: 100 }).map((l) => l.requestId)).toContain('req_0');
      // no provenance row points at a lost item
      expect(
        (testDb(a).prepare('SELECT count(*) AS n FROM provenance WHERE item_rid NOT IN (SELECT rid FROM items)').get() as { n: number }).n,
      ).toBe(0);
      expect((testDb(a).prepare('SELECT count(*) AS n FROM provenance').get() as { n: number }).n).toBeGreaterThan(N / 2);
    } finally {
      a.close();
    }
  }

  it('the built-in copy (--engine copy): data in undamaged pages survives, the damaged file is kept aside, the new archive checks out', async () => {
    await recoversDamagedPage('copy', null);
  });

  it('auto: uses sqlite3 .recover when it works here, else the built-in copy', async () => {
    await recoversDamagedPage('auto', SQLITE3);
  });

  it.skipIf(!SQLITE3)(
    'sqlite3 .recover (skipped: no sqlite3 here whose .recover works, e.g. Debian 3.40 lacks sqlite_dbpage)',
    async () => {
      await recoversDamagedPage('sqlite3', SQLITE3);
    },
  );

  it('--out: the recovered archive goes there, the damaged one stays where it is, untouched', async () => {
    const dir = tmp();
    const file = join(dir, 'loupe.db');
    buildArchiveFile(file, 100);
    damageLeafPage(file, 'items', 2);
    const damaged = hash(file);
    const out = join(dir, 'rescued.db');
    const r = await recoverArchive(file, { out, sqlite3: SQLITE3 });
    expect(r).toMatchObject({ inPlace: false, aside: null, recovered: out, ledgerRows: 5 });
    expect(hash(file)).toBe(damaged);
    expect(readdirSync(dir).sort()).toEqual(['loupe.db', 'rescued.db']);
    expect(checkArchive(out).healthy).toBe(true);
  });

  it('a file nothing can be read from: fails, nothing changes', async () => {
    const dir = tmp();
    const file = join(dir, 'loupe.db');
    writeFileSync(file, 'garbage '.repeat(4096));
    const before = hash(file);
    const e = await recoverArchive(file, { sqlite3: SQLITE3 }).catch((x: unknown) => x);
    expect((e as RecoverError).reason).toBe('failed');
    expect(hash(file)).toBe(before);
    expect(readdirSync(dir)).toEqual(['loupe.db']);
    expect(existsSync(join(dir, 'loupe.db-wal'))).toBe(false);
  });
});
