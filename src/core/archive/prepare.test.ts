/**
 * prepareArchive (prepare.ts): migrations that are due run in a worker thread, reporting each
 * batch, while the caller's event loop stays free; nothing due → no worker; a worker stopped
 * mid-migration leaves the archive at its old version with every row, and the next run finishes.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStorageError } from '../storage-error';
import { openArchive } from './archive';
import { ArchiveVersionError, latestVersion, openDb, type MigrationProgress } from './db';
import { MIGRATIONS } from './migrations/index';
import { describeMigration, headerVersion, migrationPrinter, prepareArchive } from './prepare';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loupe-prepare-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** An archive written by schema 9 with `n` posts whose columns 0010 rewrites (a title only in ext). */
function buildOld(file: string, n: number): void {
  const db = openDb(file, MIGRATIONS.slice(0, 9));
  const ins = db.prepare(
    `INSERT INTO items (platform, kind, id, raw, text, first_seen_at, last_seen_at) VALUES ('forum_net', 'post', ?, ?, NULL, 1, 1)`,
  );
  db.transaction(() => {
    for (let i = 0; i < n; i++)
      ins.run(String(i), JSON.stringify({ id: String(i), ext: { post_title: `guide number ${i}` }, content: { text: null } }));
  })();
  db.close();
}

function versionAndRows(file: string): { version: number; rows: number; titled: number } {
  const db = openDb(file, MIGRATIONS.slice(0, 9)); // opens any version ≤ 9 without migrating past it
  try {
    const version = db.pragma('user_version', { simple: true }) as number;
    const rows = db.prepare('SELECT count(*) FROM items').pluck().get() as number;
    const titled = db.prepare("SELECT count(*) FROM items WHERE text LIKE 'guide number %'").pluck().get() as number;
    return { version, rows, titled };
  } finally {
    db.close();
  }
}

/** A migration stopped midway left schema 9 with all 12,000 rows; the next prepare migrates them all. */
async function expectOldThenMigrated(file: string): Promise<void> {
  expect(versionAndRows(file)).toEqual({ version: 9, rows: 12_000, titled: 0 });
  expect(await prepareArchive(file)).toEqual({ from: 9, to: latestVersion(), worker: true });
  const a = openArchive(file);
  try {
    expect(a.query({ text: 'guide' }).total).toBe(12_000);
  } finally {
    a.close();
  }
}

describe('prepareArchive', () => {
  it('nothing due: answers at once without a worker (no file, a current file)', async () => {
    const file = join(dir, 'loupe.db');
    expect(await prepareArchive(file)).toEqual({ from: 0, to: 0, worker: false });
    openArchive(file).close();
    expect(headerVersion(file)).toBe(latestVersion());
    const seen: MigrationProgress[] = [];
    expect(await prepareArchive(file, { onProgress: (p) => seen.push(p) })).toEqual({
      from: latestVersion(),
      to: latestVersion(),
      worker: false,
    });
    expect(seen).toEqual([]);
  });

  it("migrates in a worker, reporting each batch of 0010, while the caller's timers keep running", async () => {
    const file = join(dir, 'loupe.db');
    buildOld(file, 12_000);
    const seen: MigrationProgress[] = [];
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    let ticksAtReports: number[] = [];
    try {
      const r = await prepareArchive(file, {
        onProgress: (p) => {
          seen.push(p);
          ticksAtReports.push(ticks);
        },
        holdAfterReportMs: 40, // each batch takes at least 40 ms in the worker
      });
      expect(r).toEqual({ from: 9, to: latestVersion(), worker: true });
    } finally {
      clearInterval(timer);
    }
    const batches = seen.filter((p) => p.version === 10 && p.total > 0).map((p) => [p.done, p.total]);
    expect(batches).toEqual([
      [5000, 12_000],
      [10_000, 12_000],
      [12_000, 12_000],
    ]);
    expect(seen[0]).toMatchObject({ version: 10, name: 'display-columns', step: 1, steps: latestVersion() - 9, done: 0, total: 0 });
    expect(seen.find((p) => p.total > 0)?.words).toBe("re-reading each item's columns");
    expect(seen.at(-1)?.words).toBe('saving the updated archive');
    // the caller's event loop ran while the worker migrated: its timer ticked between reports
    ticksAtReports = ticksAtReports.filter((_, i) => seen[i].total > 0);
    expect(ticksAtReports[ticksAtReports.length - 1] - ticksAtReports[0]).toBeGreaterThan(3);
    expect(describeMigration(seen.find((p) => p.done === 10_000)!)).toEqual({
      headline: 'Updating your archive — 10,000 of 12,000 items',
      // 0010 is step 1 of the steps due from schema 9 (0011 follows it)
      detail: `Step 1 of ${latestVersion() - 9}: Re-reading each item's columns`,
      fraction: 10_000 / 12_000,
    });
    // the archive is current: opening it has nothing left to do
    const a = openArchive(file);
    try {
      expect(a.query({ text: 'guide' }).total).toBe(12_000);
    } finally {
      a.close();
    }
    expect(await prepareArchive(file)).toEqual({ from: latestVersion(), to: latestVersion(), worker: false });
  }, 60_000);

  it('a worker stopped mid-migration leaves the old version with every row; migrating again succeeds', async () => {
    const file = join(dir, 'loupe.db');
    buildOld(file, 12_000);
    const stop = new AbortController();
    const seen: MigrationProgress[] = [];
    const run = prepareArchive(file, {
      signal: stop.signal,
      holdAfterReportMs: 1000,
      onProgress: (p) => {
        seen.push(p);
        if (p.version === 10 && p.done === 5000) stop.abort(); // after the first batch was written
      },
    });
    await expect(run).rejects.toMatchObject({ kind: 'cancelled' });
    expect(seen.some((p) => p.done === 5000)).toBe(true);
    expect(seen.some((p) => p.done === 10_000)).toBe(false);
    // reopened: schema 9, every row, none of them rewritten; the next prepare migrates them all
    await expectOldThenMigrated(file);
  }, 60_000);

  it('a process killed mid-migration (SIGKILL, the worker in the middle of 0010) leaves the old version with every row', async () => {
    const file = join(dir, 'loupe.db');
    buildOld(file, 12_000);
    const script = join(dir, 'kill.mts'); // an ES module outside the repository's package
    writeFileSync(
      script,
      `import { prepareArchive } from ${JSON.stringify(join(import.meta.dirname, 'prepare.ts'))};\n` +
        `await prepareArchive(${JSON.stringify(file)}, { holdAfterReportMs: 5000, onProgress: (p) => {\n` +
        `  if (p.version === 10 && p.done === 5000) { process.stdout.write('killing\\n'); process.kill(process.pid, 'SIGKILL'); }\n` +
        `} });\n` +
        `process.stdout.write('finished\\n');\n`,
    );
    const r = spawnSync(process.execPath, ['--import', 'tsx', script], {
      encoding: 'utf8',
      timeout: 50_000,
      cwd: join(import.meta.dirname, '..', '..', '..'),
    });
    expect(r.signal).toBe('SIGKILL');
    expect(r.stdout).toBe('killing\n');
    await expectOldThenMigrated(file);
  }, 60_000);

  it("errors come back as the archive's own: a newer schema, a damaged file", async () => {
    const newer = join(dir, 'newer.db');
    const db = openDb(newer);
    db.pragma(`user_version = ${latestVersion() + 1}`);
    db.close();
    await expect(prepareArchive(newer)).rejects.toBeInstanceOf(ArchiveVersionError);

    // a file that claims schema 9 in its header but whose pages are garbage
    const damaged = join(dir, 'damaged.db');
    buildOld(damaged, 10);
    const bytes = Buffer.alloc(64 * 1024, 0x5a);
    const good = readFileSync(damaged);
    good.copy(bytes, 0, 0, 100);
    writeFileSync(damaged, bytes);
    const e = await prepareArchive(damaged).catch((x: unknown) => x);
    expect(isStorageError(e)).toBe(true);
    expect(e).toMatchObject({ kind: 'damaged' });
  }, 60_000);

  it('the printer: one rewritten line on a terminal, a line per step and tenth in a log', () => {
    const p = (done: number, total: number): MigrationProgress => ({
      version: 10,
      name: 'display-columns',
      step: 1,
      steps: 1,
      done,
      total,
      words: "re-reading each item's columns",
    });
    const log: string[] = [];
    const pr = migrationPrinter({ write: (s) => log.push(s) });
    for (const d of [0, 100, 5000, 5100, 10_000]) pr.onProgress(p(d, d === 0 ? 0 : 10_000));
    pr.end();
    expect(log).toEqual([
      "Updating your archive… (re-reading each item's columns)\n",
      "Updating your archive — 100 of 10,000 items (re-reading each item's columns)\n",
      "Updating your archive — 5,000 of 10,000 items (re-reading each item's columns)\n",
      "Updating your archive — 10,000 of 10,000 items (re-reading each item's columns)\n",
    ]);
    const tty: string[] = [];
    const pt = migrationPrinter({ write: (s) => tty.push(s), isTTY: true });
    pt.onProgress(p(100, 10_000));
    pt.onProgress(p(200, 10_000)); // within 100 ms: skipped
    pt.onProgress(p(10_000, 10_000));
    pt.end();
    expect(tty).toEqual([
      "\r\x1b[2KUpdating your archive — 100 of 10,000 items (re-reading each item's columns)",
      "\r\x1b[2KUpdating your archive — 10,000 of 10,000 items (re-reading each item's columns)",
      '\r\x1b[2K',
    ]);
  });
});
