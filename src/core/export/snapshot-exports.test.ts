/**
 * An export whose workers read the rows by rid (CSV csv-rids.ts, Parquet parquet-rids.ts, XLSX
 * xlsx-rids.ts, a bundle's item tables bundle-tables.ts) writes the rows of the walk's snapshot
 * and nothing else while the archive changes under it: over generated schedules of edits
 * (re-collected records, tags, notes, overrides), deletions, a deletion of the highest rid followed
 * by a new item (SQLite gives it the same rid) and new items, applied on the main connection
 * between the walk's calls (its first rids, each batch handed out, each answer placed), the file
 * equals the one-thread export taken before the changes (the walk's snapshot): no row of an item
 * the walk did not select, every selected item once, each in its snapshot's state (a bundle's rows
 * with their calls and readings too).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { openArchive, type Archive } from '../archive';
import { post } from '../archive/test-fixtures';
import { testDb } from '../archive/testing';
import type { LibraryQuery } from '../../shared/query';
import type { ExportRowSource, RidWalk } from '../ports';
import { BundleFacts } from '../datasets/bundle-facts';
import { writeBundleTables } from './bundle-tables';
import { HISTORY_COLUMNS } from './companions';
import { writeTable } from './tables';
import { workerEntry } from './csv-pool';
import { exportRows } from './index';
import { exportParquet } from './parquet';
import { exportXlsx } from './xlsx';
import { readZip } from './xlsx-test-zip';

const dir = mkdtempSync(join(tmpdir(), 'loupe-snapshot-exports-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const name = (ext: string): string => join(dir, `f${files++}${ext}`);

/** rows per archive: three CSV / XLSX batches of 500 and the last one short */
const N = 1_100;
let made = 0;

function item(n: number, likes: number, text: string) {
  return {
    platform: n % 3 ? 'photo_net' : 'forum_net',
    kind: 'post',
    record: post({
      id: String(8_000_000_000_000_000_000n + BigInt(n)),
      text,
      likes,
      views: n * 7,
      published_at: new Date(Date.UTC(2024, 0, 1) + ((n * 7919) % 1000) * 3_600_000).toISOString(),
    }),
  };
}

function archive(): { a: Archive; next: () => number } {
  const a = openArchive(join(dir, `a${made++}.db`));
  let n = 0;
  const batch = Array.from({ length: N }, () => item(n++, (n * 31) % 1000, `kettle ${n}`));
  for (let s = 0; s < N; s += 250) a.ingestItems(batch.slice(s, s + 250), { callId: `c-${s}`, source: 'test' });
  // some annotations from the start: the walk's annotation columns are then read
  const db = testDb(a);
  const refs = db.prepare('SELECT platform, kind, id FROM items WHERE rid % 41 = 0').all() as Array<{
    platform: string;
    kind: string;
    id: string;
  }>;
  for (const r of refs) a.addTag(r, 'lead');
  return { a, next: () => n++ };
}

type Change =
  | { t: 'edit'; k: number; likes: number }
  | { t: 'tag'; k: number; tag: string }
  | { t: 'untag'; k: number }
  | { t: 'note'; k: number; text: string | null }
  | { t: 'override'; k: number; p: number }
  | { t: 'delete'; k: number }
  | { t: 'reuse'; likes: number }
  | { t: 'new'; likes: number };

const change: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ t: fc.constant('edit' as const), k: fc.nat(), likes: fc.nat({ max: 2000 }) }),
  fc.record({ t: fc.constant('tag' as const), k: fc.nat(), tag: fc.constantFrom('lead', 'Zeta', 'é🎉') }),
  fc.record({ t: fc.constant('untag' as const), k: fc.nat() }),
  fc.record({ t: fc.constant('note' as const), k: fc.nat(), text: fc.option(fc.string({ maxLength: 12 })) }),
  fc.record({ t: fc.constant('override' as const), k: fc.nat(), p: fc.integer({ min: 0, max: 1000 }) }),
  fc.record({ t: fc.constant('delete' as const), k: fc.nat() }),
  fc.record({ t: fc.constant('reuse' as const), likes: fc.nat({ max: 2000 }) }),
  fc.record({ t: fc.constant('new' as const), likes: fc.nat({ max: 2000 }) }),
);

/** changes, each applied before the walk's call number `at` (next, current) */
const schedule = fc.array(fc.record({ at: fc.nat({ max: 12 }), c: change }), { minLength: 1, maxLength: 10 });

/** Apply one change on the archive's own connection; returns whether a rid was given again. */
function apply(a: Archive, next: () => number, c: Change): boolean {
  const db = testDb(a);
  const rows = db.prepare('SELECT rid, platform, kind, id FROM items ORDER BY rid').all() as Array<{
    rid: number;
    platform: string;
    kind: string;
    id: string;
  }>;
  const at = (k: number) => rows[k % rows.length];
  const ref = (k: number) => {
    const { platform, kind, id } = at(k);
    return { platform, kind, id };
  };
  switch (c.t) {
    case 'edit': {
      const r = at(c.k);
      const n = Number(BigInt(r.id) - 8_000_000_000_000_000_000n);
      a.ingestItems([{ ...item(n, c.likes, `edited ${c.likes}`), platform: r.platform }], { callId: `e-${next()}`, source: 'test' });
      return false;
    }
    case 'tag':
      a.addTag(ref(c.k), c.tag);
      return false;
    case 'untag':
      a.removeTag(ref(c.k), 'lead');
      return false;
    case 'note':
      a.setNote(ref(c.k), c.text);
      return false;
    case 'override':
      a.overrideLabel(ref(c.k), 'sponsored', 'p', c.p / 1000);
      return false;
    case 'delete':
      db.prepare('DELETE FROM items WHERE rid = ?').run(at(c.k).rid);
      return false;
    case 'reuse': {
      const top = rows[rows.length - 1].rid;
      db.prepare('DELETE FROM items WHERE rid = ?').run(top);
      a.ingestItems([item(next(), c.likes, `new ${c.likes}`)], { callId: `r-${next()}`, source: 'test' });
      return db.prepare('SELECT max(rid) FROM items').pluck().get() === top;
    }
    case 'new':
      a.ingestItems([item(next(), c.likes, `new ${c.likes}`)], { callId: `n-${next()}`, source: 'test' });
      return false;
  }
}

/** The source, its walk applying the changes between its calls; `reused`: rids given again. */
function changing(a: Archive, next: () => number, q: LibraryQuery, plan: Array<{ at: number; c: Change }>) {
  const source = a.iterateExportRows(q);
  const walkOf = source.ridWalk!;
  const seen = { calls: 0, reused: 0, applied: 0 };
  const before = (): void => {
    for (const { at, c } of plan)
      if (at === seen.calls) {
        seen.applied++;
        if (apply(a, next, c)) seen.reused++;
      }
    seen.calls++;
  };
  const wrapped: ExportRowSource = Object.assign(source, {
    ridWalk: (): RidWalk | null => {
      const w = walkOf()!;
      const nextRids = w.next.bind(w);
      const current = (w as Partial<RidWalk>).current?.bind(w);
      return Object.assign(w, {
        next: (max: number) => (before(), nextRids(max)),
        current: () => (before(), current ? current() : true),
      });
    },
  });
  return { source: wrapped, seen };
}

const queries: LibraryQuery[] = [{}, { sort: { field: 'likes', dir: 'desc' } }, { text: 'kettle', sort: { field: 'likes', dir: 'asc' } }];

/** Run the property over one archive per format: the changes accumulate from run to run. */
async function property(run: (a: Archive, q: LibraryQuery, source: (q: LibraryQuery) => ExportRowSource) => Promise<void>) {
  const { a, next } = archive();
  let reused = 0;
  let applied = 0;
  try {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...queries), schedule, async (q, plan) => {
        let w: ReturnType<typeof changing> | null = null;
        await run(a, q, (query) => (w = changing(a, next, query, plan)).source);
        reused += w!.seen.reused;
        applied += w!.seen.applied;
      }),
      // a failure is reported as found: shrinking re-runs exports (seconds each)
      { numRuns: 8, endOnFailure: true },
    );
  } finally {
    a.close();
  }
  // the schedules did change the archive during the exports, and gave rids again
  expect(applied).toBeGreaterThan(0);
  expect(reused).toBeGreaterThan(0);
}

describe.runIf(workerEntry('csv-worker') !== null && workerEntry('parquet-worker') !== null && workerEntry('xlsx-worker') !== null)(
  'exports read by workers while the archive changes: the walk’s snapshot',
  () => {
    it('CSV', async () => {
      await property(async (a, q, source) => {
        const csv = async (s: ExportRowSource, threads: number): Promise<Buffer> => {
          const out = name('.csv');
          await exportRows(s, { format: 'csv', out, threads, parallelAfter: 1 });
          return readFileSync(out);
        };
        const snapshot = await csv(a.iterateExportRows(q), 0);
        const out = await csv(source(q), 2);
        expect(out.equals(snapshot)).toBe(true);
      });
    }, 300_000);

    it('Parquet', async () => {
      await property(async (a, q, source) => {
        const parquet = async (s: ExportRowSource, threads: number): Promise<Buffer> => {
          const out = name('.parquet');
          await exportParquet(s, { out, threads, rowGroupSize: 200 });
          return readFileSync(out);
        };
        const snapshot = await parquet(a.iterateExportRows(q), 0);
        const out = await parquet(source(q), 2);
        expect(out.equals(snapshot)).toBe(true);
      });
    }, 300_000);

    it('XLSX', async () => {
      await property(async (a, q, source) => {
        const xlsx = async (s: ExportRowSource, threads: number) => {
          const out = name('.xlsx');
          const r = await exportXlsx(s, { out, threads, parallelAfter: 1 });
          const parts = readZip(out);
          parts.delete('docProps/core.xml'); // the export's time
          return { rows: r.rows, parts };
        };
        const snapshot = await xlsx(a.iterateExportRows(q), 0);
        const out = await xlsx(source(q), 2);
        expect(out.rows).toBe(snapshot.rows);
        expect([...out.parts.keys()]).toEqual([...snapshot.parts.keys()]);
        for (const [part, xml] of snapshot.parts) expect(out.parts.get(part)?.equals(xml), part).toBe(true);
      });
    }, 300_000);

    it('a bundle’s item tables', async () => {
      await property(async (a, q, source) => {
        const tables = async (s: ExportRowSource, threads: number) => {
          const out = name('');
          mkdirSync(out);
          // each group's rids and facts (calls, readings): what the manifest and the history are made of
          const parts: unknown[] = [];
          const facts = new BundleFacts();
          const t = await writeBundleTables(s, {
            dir: out,
            threads,
            groupSize: 200,
            history: true,
            onPart: (rids, part) => {
              parts.push(rids, part.facts);
              facts.add(rids, part);
            },
          });
          // the history files: the worker's, kept only when nothing was committed since the
          // snapshot (bundle-history.ts); else written from the pass's facts, as the bundle does
          const written = await t.history;
          const history: Buffer[] = [];
          for (const format of ['csv', 'parquet'] as const) {
            const path = join(out, `items.history.${format}`);
            if (!written) await writeTable({ columns: HISTORY_COLUMNS, rows: facts.history() }, format, path);
            history.push(readFileSync(path));
          }
          return { rows: t.rows, files: t.files, hashes: t.hashes, parts, history };
        };
        const snapshot = await tables(a.iterateExportRows(q), 0);
        const out = await tables(source(q), 2);
        expect(out).toEqual(snapshot);
      });
    }, 300_000);
  },
);
