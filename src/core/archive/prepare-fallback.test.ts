/** prepareArchive where no worker can start (a build without prepare-worker.js): the migrations run on the calling thread, reporting the same. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it, vi } from 'vitest';
import { latestVersion, openDb, type MigrationProgress } from './db';
import { MIGRATIONS } from './migrations/index';
import { headerVersion, prepareArchive } from './prepare';

vi.mock('../worker-entry', () => ({ findWorkerEntry: () => null }));

it('no worker entry: migrates here, with the same reports', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-prepare-here-'));
  try {
    const file = join(dir, 'loupe.db');
    const db = openDb(file, MIGRATIONS.slice(0, 7));
    const ins = db.prepare(
      `INSERT INTO items (platform, kind, id, raw, first_seen_at, last_seen_at) VALUES ('forum_net', 'post', ?, ?, 1, 1)`,
    );
    for (let i = 0; i < 7000; i++) ins.run(String(i), JSON.stringify({ id: String(i), ext: { post_title: `guide ${i}` } }));
    db.close();
    const seen: MigrationProgress[] = [];
    expect(await prepareArchive(file, { onProgress: (p) => seen.push(p) })).toEqual({ from: 7, to: latestVersion(), worker: false });
    expect(seen.filter((p) => p.done === 0 && p.total === 0).map((p) => [p.step, p.steps, p.version])).toEqual(
      MIGRATIONS.slice(7).map((m, i, due) => [i + 1, due.length, m.version]),
    );
    expect(seen.filter((p) => p.version === 8 && p.total > 0).map((p) => [p.done, p.total, p.words])).toEqual([
      [0, 7000, 'rebuilding the search index'],
      [7000, 7000, 'rebuilding the search index'],
    ]);
    expect(seen.filter((p) => p.version === 10 && p.total > 0).map((p) => p.done)).toEqual([5000, 7000]);
    expect(headerVersion(file)).toBe(latestVersion());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
