/**
 * Issue 29: a bundle worker's batch read as one aggregate row (bundle-batch.ts) holds the rows and
 * facts that reading it a row each (archive/bundle-row-facts.ts bundleRowsOf) gives: the same
 * texts, numbers, annotations and record bytes, each row's calls and its readings (past ones and
 * the current counts, nulls as NaN) and publication months, in the batch's order — over generated archives (items from
 * several calls, counts re-read and changed, counts missing, with and without tags, notes and
 * overrides: the walk's annotation columns differ) and generated batches; and null, as before,
 * for a batch holding a row deleted after the walk (its group is then rendered from the snapshot,
 * never dropped: bundle-tables.test.ts).
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../shared/random';
import { openArchive, type Archive } from '../archive';
import { bundleRowsOf, type RowFacts } from '../archive/bundle-row-facts';
import { EXPORT_BYTES_COLS } from '../archive/export-row';
import { raw, Statements } from '../archive/sql';
import { listResponse, post } from '../archive/test-fixtures';
import { testDb } from '../archive/testing';
import { bundleBatchColumns, bundleBatchOf } from './bundle-batch';
import type { BytesTuple, RidSource } from './rid-rows';

const T0 = Date.UTC(2026, 0, 1);
const dir = mkdtempSync(join(tmpdir(), 'loupe-bundle-batch-'));
const PIECES = ['kettle', '"quoted"', 'back\\slash', 'line\nbreak', 'é🎉', '=1+1', 'tab\there', '\u2028', '', '{"a":1}'];

function text(r: () => number, max: number): string {
  let s = '';
  for (let k = Math.floor(r() * max); k > 0; k--) s += PIECES[Math.floor(r() * PIECES.length)] + (r() < 0.5 ? ' ' : '');
  return s;
}

/** call ids whose order differs between UTF-16 (JavaScript's sort, the manifest's order) and UTF-8 bytes (SQLite's) */
const CALL_HEADS = ['', 'a', '\uFF01', '🎉', 'é'];
const count = (r: () => number): number | null => (r() < 0.2 ? null : Math.floor(r() * 1e9));

/** items from pages of overlapping ids (in one or more calls; read again later with changed or unchanged counts) */
function build(file: string, seed: number, annotate: boolean): { a: Archive; source: RidSource; rids: number[] } {
  const a = openArchive(file, { author: () => 'ana' });
  const r = mulberry32(seed);
  const n = 300;
  for (let page = 0; page < 14; page++) {
    const from = Math.floor(r() * n);
    // the last two pages read every item again (calls whose JavaScript and SQLite orders differ)
    const whole = page >= 12;
    const ids = Array.from({ length: whole ? n : 20 + Math.floor(r() * 120) }, (_, k) => ((from + k) % n) + 1);
    // a page of read-again items whose counts did not change (no new reading), or changed
    const same = r() < 0.3;
    const rows = ids.map((id) =>
      post({
        id: r() < 0.05 ? `id ${text(r, 2)} ${id}` : `${7_000_000_000_000_000_000n + BigInt(id)}`,
        text: text(r, r() < 0.05 ? 300 : 10),
        views: same ? id * 1000 : count(r),
        likes: same || r() < 0.5 ? id * 10 : count(r),
        comments: same ? null : count(r),
        shares: same ? id : count(r),
        saves: same ? 0 : count(r),
        published_at: new Date(T0 + id * 3_600_000).toISOString(),
      }),
    );
    a.storeResponse(
      listResponse(
        `${whole ? CALL_HEADS[page - 10] : CALL_HEADS[Math.floor(r() * CALL_HEADS.length)]}call-${seed}-${page}`,
        ['photo_net', 'micro_net', 'vid"eo'][page % 3],
        'profile/posts',
        rows,
        {
          fetchedAt: T0 + page * 60_000,
        },
      ),
      'test',
      null,
    );
  }
  // re-check marks (checked_at, missing_since): found, not found, found again, never re-checked
  for (const ref of testDb(a).prepare('SELECT platform, kind, id FROM items').all() as Array<{
    platform: string;
    kind: string;
    id: string;
  }>) {
    const x = r();
    if (x < 0.4) continue;
    a.datasets.markChecked(ref, T0 + 1e9 + Math.floor(r() * 1e6), x < 0.6);
    if (x > 0.9) a.datasets.markChecked(ref, T0 + 2e9, x < 0.95);
  }
  // publication times the attrition's month reads oddly (none, before 1970, a month's edges, outside the years 0000–9999, not whole)
  const odd = [null, -1, -86_400_000 * 400, Date.UTC(2026, 1, 1), Date.UTC(2026, 1, 1) - 1, -62167219200001, 253402300800000, 1.7e12 + 0.5];
  const setPublished = testDb(a).prepare('UPDATE items SET published_at = ? WHERE rid = ?');
  for (const { rid } of testDb(a).prepare('SELECT rid FROM items').all() as Array<{ rid: number }>)
    if (r() < 0.1) setPublished.run(odd[Math.floor(r() * odd.length)], rid);
  const walk = a.iterateExportRows({}).ridWalk?.();
  if (!walk) throw new Error('no rid walk on a file archive');
  const rids = walk.next(1e6);
  walk.close();
  if (annotate) {
    const db = testDb(a);
    const keys = db.prepare('SELECT platform, kind, id FROM items').all() as Array<{ platform: string; kind: string; id: string }>;
    for (const ref of keys) {
      if (r() < 0.15) a.addTag(ref, `t${text(r, 2)}${Math.floor(r() * 4)}`);
      if (r() < 0.1) a.setNote(ref, text(r, 5) || 'n');
      if (r() < 0.05) a.overrideLabel(ref, 'sponsored', 'p', Math.round(r() * 1000) / 1000);
    }
  }
  const w = a.iterateExportRows({}).ridWalk?.();
  const source = { file, extra: w?.extra ?? '' };
  w?.close();
  return { a, source, rids };
}

/** a row with its record's bytes as a binary string, and its length kept (trailing undefined columns) */
const plain = (t: BytesTuple): unknown[] => [t.length, ...t.map((v) => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v))];
/** the facts with NaN written out (toEqual treats NaN as equal to NaN, but say it) */
const factsOf = (f: RowFacts): unknown => ({
  calls: f.calls,
  readings: f.readings.map((v) => (Number.isNaN(v) ? 'NaN' : v)),
  ends: f.ends,
  months: f.months,
});

const archives: Array<{ a: Archive; source: RidSource; rids: number[]; st: Statements; db: Database.Database }> = [];

beforeAll(() => {
  for (const [k, annotate] of [false, true].entries()) {
    const { a, source, rids } = build(join(dir, `a${k}.db`), 41 + k, annotate);
    const db = new Database(source.file, { readonly: true, fileMustExist: true });
    archives.push({ a, source, rids, db, st: new Statements(db) });
  }
});
afterAll(() => {
  for (const { a, db } of archives) {
    db.close();
    a.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

function both(x: (typeof archives)[number], rids: number[]): [unknown, unknown] {
  const old = bundleRowsOf<BytesTuple>(x.st, raw(`${EXPORT_BYTES_COLS}${x.source.extra}`), rids);
  const now = bundleBatchOf(x.st, bundleBatchColumns(x.source.extra), rids);
  return [
    old && { rows: old.tuples.map(plain), facts: factsOf(old.facts) },
    now && { rows: now.rows.map(plain), facts: factsOf(now.facts) },
  ];
}

describe('a bundle batch read as one aggregate row', () => {
  it('holds the rows and facts read row by row, in the batch order, with and without annotation columns', () => {
    expect(archives[0].source.extra).toBe('');
    expect(archives[1].source.extra).not.toBe('');
    const r = mulberry32(9);
    for (const x of archives) {
      const whole = bundleRowsOf<BytesTuple>(x.st, raw(`${EXPORT_BYTES_COLS}${x.source.extra}`), x.rids);
      if (!whole) throw new Error('the walk’s rows are all there');
      // the generator made what the comparison needs: several calls, past readings, null counts
      const { calls, ends, readings } = whole.facts;
      expect(calls.some((c) => c.length > 1)).toBe(true);
      expect(ends.some((e, k) => e - (k === 0 ? 0 : ends[k - 1]) > 6)).toBe(true);
      expect(readings.some(Number.isNaN)).toBe(true);
      expect(whole.facts.months).toContain(null);
      expect(new Set(whole.facts.months).size).toBeGreaterThan(3);
      for (let round = 0; round < 30; round++) {
        // a random batch of distinct rids in random order, 1 to 600 of them
        const pool = [...x.rids];
        const size = 1 + Math.floor(r() * Math.min(600, pool.length));
        const picked: number[] = [];
        for (let k = 0; k < size; k++) picked.push(pool.splice(Math.floor(r() * pool.length), 1)[0]);
        const [old, now] = both(x, picked);
        expect(old).not.toBeNull();
        expect(now).toEqual(old);
      }
    }
  });

  // last: it deletes rows
  it('is null, as before, for a batch holding a row deleted after the walk; the other rows as before', () => {
    for (const x of archives) {
      const [gone, ...kept] = x.rids.slice(40, 60);
      testDb(x.a).prepare('DELETE FROM items WHERE rid = ?').run(gone);
      const batch = [...kept.slice(0, 7), gone, ...kept.slice(7)];
      expect(both(x, batch)).toEqual([null, null]);
      expect(bundleBatchOf(x.st, bundleBatchColumns(x.source.extra), [Math.max(...x.rids) + 9])).toBeNull();
      const [old, now] = both(x, kept);
      expect(old).not.toBeNull();
      expect(now).toEqual(old);
    }
  });
});
