/**
 * Issue 24 #10 in the app: `archive.snapshot` makes the copy in the background (progress events,
 * then done with what it holds) into the exports folder under a name of its own, while the app
 * keeps writing; the web door gets a download URL.
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoupeEvent, SnapshotJob } from '../shared/contract';
import { startTestApp, type TestApp } from './test-app';
import { countArchive } from './archive/snapshot';

let t: TestApp;
const events: LoupeEvent[] = [];
beforeAll(async () => {
  t = await startTestApp({ seed: 5, balance: 10_000, freeCalls: 0 }, 'loupe-snapapp-', {
    downloadUrl: (id) => `/api/exports/${id}?token=t`,
  });
  t.app.events.on((e) => events.push(e));
});
afterAll(async () => {
  await t?.close();
});

async function until<T>(f: () => Promise<T | null | undefined | false>): Promise<T> {
  for (let i = 0; i < 1_000; i++) {
    const v = await f();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('never');
}

describe('archive.snapshot (issue 24 #10)', () => {
  it("copies the archive with the analyst's work while the app writes, with progress; names never collide", async () => {
    await t.call('api.call', { target: { platform: 'photo_net', endpoint: 'profile', params: { handle: 'nasa' } }, source: 'explorer' });
    const row = t.app.archive.query({ limit: 1 }).rows[0];
    await t.call('library.tag', { items: [{ platform: row.platform, kind: row.kind, id: row.id }], tag: 'keep' });
    await t.call('library.note', { item: { platform: row.platform, kind: row.kind, id: row.id }, note: 'checked' });
    const first = await t.call<SnapshotJob>('archive.snapshot', {});
    expect(first.status).toBe('running');
    // the app keeps writing while the copy runs
    await t.call('library.tag', { items: [{ platform: row.platform, kind: row.kind, id: row.id }], tag: 'later' });
    const done = await until(async () => {
      const j = await t.call<SnapshotJob | null>('archive.snapshotGet', { snapshotId: first.snapshotId });
      return j && j.status !== 'running' && j;
    });
    expect(done.status).toBe('done');
    expect(done.path).toMatch(/exports\/loupe-archive-.*\.db$/);
    expect(done.counts).toMatchObject({ items: 1, notes: 1, ledgerRows: 1 });
    expect(done.counts!.tags).toBeGreaterThanOrEqual(1);
    expect(done.downloadUrl).toBe(`/api/exports/${first.snapshotId}?token=t`);
    expect(done.summary).toContain(done.path!);
    const copy = new Database(done.path!, { readonly: true });
    expect(countArchive(copy)).toEqual(done.counts);
    copy.close();
    const progress = events.flatMap((e) => (e.type === 'snapshot-progress' && e.job.snapshotId === first.snapshotId ? [e.job] : []));
    expect(progress.at(-1)?.status).toBe('done');
    for (let i = 1; i < progress.length; i++) expect(progress[i].pagesDone).toBeGreaterThanOrEqual(progress[i - 1].pagesDone);

    // the same name asked again: a name of its own, the first copy untouched
    const again = await t.call<SnapshotJob>('archive.snapshot', { fileName: basename(done.path!) });
    const second = await until(async () => {
      const j = await t.call<SnapshotJob | null>('archive.snapshotGet', { snapshotId: again.snapshotId });
      return j && j.status !== 'running' && j;
    });
    expect(second.status).toBe('done');
    expect(second.path).not.toBe(done.path);
    expect(existsSync(done.path!)).toBe(true);
    expect(readdirSync(join(t.dir, 'exports')).filter((f) => f.includes('partial'))).toEqual([]);
    // a path is not a file name
    await expect(t.call('archive.snapshot', { fileName: '../elsewhere.db' })).rejects.toThrow(/validation/);
  });
});
