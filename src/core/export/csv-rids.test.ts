/**
 * Issue 30: a CSV export of the archive whose workers read the rows themselves by rid
 * (csv-rids.ts) writes the same bytes as the one-thread export, for the default order and a
 * filtered, sorted query, with tags, notes and overrides on some rows; and a row deleted after the
 * export's snapshot is still written (from the snapshot, by the exporting thread). The same for a
 * Parquet export whose workers read and encode whole row groups by rid (parquet-rids.ts).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openArchive, type Archive } from '../archive';
import { post } from '../archive/test-fixtures';
import { testDb } from '../archive/testing';
import type { LibraryQuery } from '../../shared/query';
import { mulberry32 } from '../../shared/random';
import type { ExportRowSource, RidWalk } from '../ports';
import { CsvPool, workerEntry } from './csv-pool';
import { exportRows } from './index';
import { exportParquet } from './parquet';

const dir = mkdtempSync(join(tmpdir(), 'loupe-csv-rids-'));
let a: Archive;
const N = 2_400;

beforeAll(() => {
  a = openArchive(join(dir, 'a.db'));
  const r = mulberry32(26);
  const items = Array.from({ length: N }, (_, i) => ({
    platform: i % 3 ? 'photo_net' : 'forum_net',
    kind: 'post',
    record: <Record<string, unknown>>{
      ...post({
        id: String(6_000_000_000_000_000_000n + BigInt(i)),
        text: `${i % 2 ? '=cmd' : 'kettle'} "quoted" ${'é🎉'.repeat(i % 4)} line\nbreak ${i}`,
        likes: i % 11 ? Math.floor(r() * 1e6) : null,
        views: i % 3 ? Math.floor(r() * 1e9) : null,
        published_at: new Date(Date.UTC(2024, 0, 1) + Math.floor(r() * 3e10)).toISOString(),
        labels: { sponsored: { p: Math.round(r() * 1000) / 1000, brand: i % 5 ? null : 'acme' } },
      }),
      unknown_field: i % 7 ? undefined : { nested: [i, 'x'] },
    },
  }));
  for (let s = 0; s < N; s += 400) a.ingestItems(items.slice(s, s + 400), { callId: `rids-${s}`, source: 'test' });
  const ref = (i: number) => ({ platform: items[i].platform, kind: 'post', id: items[i].record.id as string });
  for (let i = 0; i < N; i += 97) a.addTag(ref(i), i % 2 ? 'lead' : 'Zeta');
  for (let i = 5; i < N; i += 131) a.setNote(ref(i), `note ${i}`);
  for (let i = 9; i < N; i += 173) a.overrideLabel(ref(i), 'sponsored', 'p', 0.5);
});
afterAll(() => {
  a.close();
  rmSync(dir, { recursive: true, force: true });
});

async function csv(source: Iterable<never> | ExportRowSource, name: string, threads: number, total?: number): Promise<Buffer> {
  const out = join(dir, name);
  await exportRows(source as ExportRowSource, { format: 'csv', out, threads, parallelAfter: 300, total });
  return readFileSync(out);
}

/** the source, its walk telling whether the CSV workers were started before the walk's first rids */
function watchedWalk(source: ExportRowSource): { source: ExportRowSource; startedBeforeWalk: () => boolean | null } {
  const walkOf = source.ridWalk!;
  const start = vi.spyOn(CsvPool, 'start');
  let before: boolean | null = null;
  const wrapped = Object.assign(source, {
    ridWalk: (): RidWalk | null => {
      const w = walkOf()!;
      const next = w.next.bind(w);
      return Object.assign(w, {
        next: (max: number) => {
          before ??= start.mock.calls.length > 0;
          return next(max);
        },
      });
    },
  });
  return { source: wrapped, startedBeforeWalk: () => before };
}

describe.runIf(workerEntry('csv-worker') !== null)('CSV export read by the workers, by rid', () => {
  const queries: LibraryQuery[] = [
    {},
    { platforms: ['photo_net'], text: 'kettle', sort: { field: 'likes', dir: 'asc' } },
    { sort: { field: 'label:sponsored.p', dir: 'desc' } },
  ];
  it('writes the bytes of the one-thread export', async () => {
    for (const [k, q] of queries.entries()) {
      const source = a.iterateExportRows(q);
      expect(typeof source.ridWalk).toBe('function');
      const one = await csv(a.iterateExportRows(q), `one-${k}.csv`, 0);
      const rids = await csv(source, `rids-${k}.csv`, 2);
      expect(rids.length).toBeGreaterThan(1000);
      expect(rids.equals(one), JSON.stringify(q)).toBe(true);
    }
  }, 120_000);

  it('starts the workers before the walk when the count says the export is large, with the same bytes', async () => {
    // the count as it is; and one the rows fall short of (rows deleted since the count, here a
    // query of ~12 rows): the workers started early are closed and the rows written on this thread
    const cases: [LibraryQuery, (count: number) => number | undefined][] = [
      [queries[1], (count) => count],
      [{ tags: ['lead'] }, () => 3000],
      [{ tags: ['lead'] }, () => undefined],
    ];
    for (const [k, [q, totalOf]] of cases.entries()) {
      const one = await csv(a.iterateExportRows(q), `one-early-${k}.csv`, 0);
      const total = totalOf(a.count(q));
      vi.restoreAllMocks();
      const w = watchedWalk(a.iterateExportRows(q));
      const out = await csv(w.source, `early-${k}.csv`, 2, total);
      expect(out.equals(one), `${JSON.stringify(q)} total ${total}`).toBe(true);
      expect(w.startedBeforeWalk()).toBe(total !== undefined && total >= 300);
      if (k > 0) expect(a.count(q)).toBeLessThan(300);
    }
    vi.restoreAllMocks();
  }, 120_000);

  it("gives every rid once, in order, whatever its first read's size (the head by LIMIT, the rest by OFFSET)", () => {
    // likes: its index gives the order of the known values, the unknown ones (every 11th row) are
    // sorted whole; the label sort walks item_labels; the default sorts ties by rid
    const sorted: LibraryQuery[] = [
      {},
      { sort: { field: 'likes', dir: 'desc' } },
      queries[1],
      queries[2],
      { sort: { field: 'views', dir: 'asc' } },
    ];
    const all = (w: RidWalk, first: number): number[] => {
      const out = w.next(first);
      for (let b = w.next(97); b.length > 0; b = w.next(97)) out.push(...b);
      w.close();
      return out;
    };
    // where the likes sort's first phase (known likes) ends
    const known = testDb(a).prepare('SELECT count(*) FROM items WHERE likes IS NOT NULL').pluck().get() as number;
    expect(known).toBeLessThan(N);
    for (const q of sorted) {
      const whole = all(a.iterateExportRows(q).ridWalk!()!, 1e9);
      expect(new Set(whole).size).toBe(whole.length);
      expect(whole.length).toBe(a.count(q));
      for (const first of [1, 2, 299, known - 1, known, known + 1, N - 1, N + 5])
        expect(all(a.iterateExportRows(q).ridWalk!()!, Math.max(1, first)), `${JSON.stringify(q)} first ${first}`).toEqual(whole);
    }
  });

  it('writes a row deleted after its snapshot from the snapshot', async () => {
    const before = await csv(a.iterateExportRows({}), 'before.csv', 0);
    const source = a.iterateExportRows({});
    const walkOf = source.ridWalk!;
    let deleted = 0;
    // the walk's snapshot is taken; then the archive loses two of its rows before the workers read them
    const wrapped = Object.assign(source, {
      ridWalk: (): RidWalk | null => {
        const w = walkOf()!;
        const db = testDb(a);
        const gone = db.prepare('SELECT rid FROM items ORDER BY published_at DESC LIMIT 2 OFFSET 1500').pluck().all() as number[];
        deleted = db.prepare(`DELETE FROM items WHERE rid IN (${gone.join(',')})`).run().changes;
        return w;
      },
    });
    const after = await csv(wrapped, 'after.csv', 2);
    expect(deleted).toBe(2);
    expect(a.count({})).toBe(N - 2);
    expect(after.equals(before)).toBe(true);
  }, 120_000);
});

describe.runIf(workerEntry('parquet-worker') !== null)('Parquet export read by the workers, by rid', () => {
  /** the export; `iterated`: whether the exporting thread read rows from the source itself */
  async function parquet(
    source: ExportRowSource,
    name: string,
    threads: number,
    total?: number,
  ): Promise<{ bytes: Buffer; iterated: boolean }> {
    const out = join(dir, name);
    let iterated = false;
    const next = source.next.bind(source);
    const watched = Object.assign(source, { next: () => ((iterated = true), next()) });
    await exportParquet(watched, { out, threads, rowGroupSize: 500, total });
    return { bytes: readFileSync(out), iterated };
  }

  it('writes the bytes of the one-thread export, reading no row on the exporting thread', async () => {
    for (const [k, q] of [{}, { platforms: ['photo_net'], sort: { field: 'likes', dir: 'asc' } } satisfies LibraryQuery].entries()) {
      const one = await parquet(a.iterateExportRows(q), `one-${k}.parquet`, 0);
      const rids = await parquet(a.iterateExportRows(q), `rids-${k}.parquet`, 2);
      // the count given: the workers start before the walk reads its rids
      const counted = await parquet(a.iterateExportRows(q), `counted-${k}.parquet`, 2, a.count(q));
      expect(one.iterated).toBe(true);
      expect(rids.iterated).toBe(false);
      expect(counted.iterated).toBe(false);
      expect(rids.bytes.equals(one.bytes), JSON.stringify(q)).toBe(true);
      expect(counted.bytes.equals(one.bytes), JSON.stringify(q)).toBe(true);
    }
  }, 120_000);

  it('writes an export of one group here when a count said more (workers started early, then closed)', async () => {
    const q: LibraryQuery = { platforms: ['photo_net'], sort: { field: 'likes', dir: 'asc' } };
    const rows = a.count(q);
    const small = await exportParquet(a.iterateExportRows(q), {
      out: join(dir, 'one-group.parquet'),
      threads: 2,
      rowGroupSize: rows,
      total: rows * 3,
    });
    const here = await exportParquet(a.iterateExportRows(q), { out: join(dir, 'one-group-here.parquet'), threads: 0, rowGroupSize: rows });
    expect(small.rowGroups).toBe(1);
    expect(readFileSync(small.path).equals(readFileSync(here.path))).toBe(true);
  }, 120_000);

  it('writes a row deleted after its snapshot from the snapshot', async () => {
    const before = await parquet(a.iterateExportRows({}), 'before.parquet', 0);
    const source = a.iterateExportRows({});
    const walkOf = source.ridWalk!;
    let fromSnapshot = 0;
    const wrapped = Object.assign(source, {
      ridWalk: (): RidWalk | null => {
        const w = walkOf()!;
        const rows = w.rows.bind(w);
        const db = testDb(a);
        const gone = db.prepare('SELECT rid FROM items ORDER BY published_at DESC LIMIT 2 OFFSET 1200').pluck().all() as number[];
        db.prepare(`DELETE FROM items WHERE rid IN (${gone.join(',')})`).run();
        return Object.assign(w, { rows: (rids: number[]) => ((fromSnapshot += rids.length), rows(rids)) });
      },
    });
    const after = await parquet(wrapped, 'after.parquet', 2);
    // the archive changed before any worker's answer was here: no answer is kept, every group is
    // encoded from the snapshot (snapshot-exports.test.ts: edits, reused rids)
    expect(fromSnapshot).toBe(a.count({}) + 2);
    expect(after.iterated).toBe(false);
    expect(after.bytes.equals(before.bytes)).toBe(true);
  }, 120_000);
});
