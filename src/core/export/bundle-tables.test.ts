/**
 * Issue 29: a bundle's item tables in one pass (bundle-tables.ts) are the CSV, JSONL and Parquet
 * exports' files byte for byte — rendered by workers reading groups by rid, or on this thread —
 * and each row's hashes are those of its record and line in the files written (row-hashes.ts, as
 * verify reads them), as is each file's SHA-256.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive, type Archive } from '../archive';
import { post } from '../archive/test-fixtures';
import { testDb } from '../archive/testing';
import type { RidWalk } from '../ports';
import { mulberry32 } from '../../shared/random';
import { csvRowHashes, jsonlRowHashes } from '../datasets/row-hashes';
import { workerEntry } from './csv-pool';
import { writeBundleTables } from './bundle-tables';
import { exportAny } from './index';
import { exportParquet } from './parquet';

const dir = mkdtempSync(join(tmpdir(), 'loupe-bundle-tables-'));
let a: Archive;
const N = 700;

beforeAll(() => {
  a = openArchive(join(dir, 'a.db'));
  const r = mulberry32(29);
  const items = Array.from({ length: N }, (_, i) => ({
    platform: i % 3 ? 'photo_net' : 'forum_net',
    kind: 'post',
    record: <Record<string, unknown>>{
      ...post({
        id: String(7_000_000_000_000_000_000n + BigInt(i)),
        text: `${i % 2 ? '=cmd' : 'kettle'} "quoted", ${'é🎉'.repeat(i % 4)} line\r\nbreak ${i}`,
        likes: i % 11 ? Math.floor(r() * 1e6) : null,
        views: i % 3 ? Math.floor(r() * 1e9) : null,
        published_at: new Date(Date.UTC(2024, 0, 1) + Math.floor(r() * 3e10)).toISOString(),
        labels: { sponsored: { p: Math.round(r() * 1000) / 1000, brand: i % 5 ? null : 'acme' } },
      }),
      unknown_field: i % 7 ? undefined : { nested: [i, 'x'] },
    },
  }));
  for (let s = 0; s < N; s += 100) a.ingestItems(items.slice(s, s + 100), { callId: `t-${s}`, source: 'test' });
  const ref = (i: number) => ({ platform: items[i].platform, kind: 'post', id: items[i].record.id as string });
  // tags and notes with quotes, control characters and non-ASCII (the JSONL line of a row read as bytes writes them itself)
  for (let i = 0; i < N; i += 37) a.addTag(ref(i), 'lead');
  for (let i = 0; i < N; i += 74) a.addTag(ref(i), 'tab\t"q" é🎉\u2028');
  for (let i = 5; i < N; i += 53) a.setNote(ref(i), `note, "${i}"\n\u0001 ü`);
  for (let i = 9; i < N; i += 71) a.overrideLabel(ref(i), 'sponsored', 'p', 0.5);
});
afterAll(() => {
  a.close();
  rmSync(dir, { recursive: true, force: true });
});

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

describe('a bundle’s item tables in one pass', () => {
  it('the exports’ bytes and the rows’ hashes as verify reads them, by workers and on this thread', async () => {
    expect(workerEntry('parquet-worker')).not.toBeNull();
    const query = { sort: { field: 'likes', dir: 'desc' } } as const;
    for (const f of ['csv', 'jsonl'] as const) await exportAny(a.iterateExportRows(query), { format: f, out: join(dir, `ref.${f}`) });
    await exportParquet(a.iterateExportRows(query), { out: join(dir, 'ref.parquet'), rowGroupSize: 64 });
    for (const [name, threads] of [
      ['workers', 1],
      ['here', 0],
    ] as const) {
      const out = join(dir, name);
      mkdirSync(out);
      // groups of 64 rows: several groups, one of them short
      const t = await writeBundleTables(a.iterateExportRows(query), { dir: out, threads, groupSize: 64 });
      expect(t.rows).toBe(N);
      for (const f of ['csv', 'jsonl', 'parquet'] as const) {
        const b = readFileSync(join(out, `items.${f}`));
        expect(b.equals(readFileSync(join(dir, `ref.${f}`))), `${name}: items.${f}`).toBe(true);
        expect(t.files.find((x) => x.path === `items.${f}`)).toEqual({ path: `items.${f}`, sha256: sha(b), bytes: b.length });
      }
      const csv = csvRowHashes(readFileSync(join(out, 'items.csv'))).rows;
      const jsonl = jsonlRowHashes(readFileSync(join(out, 'items.jsonl')));
      expect(csv).toHaveLength(N);
      expect(new Map(csv.map((r, k) => [r.key, [r.sha, jsonl[k].sha]]))).toEqual(t.hashes);
    }
  });

  it('a worker’s buffers given back and filled again, rows larger than a buffer among them: the same bytes', async () => {
    // each group's CSV and JSONL buffers go back to its worker once written (bundle-render.ts
    // SpareBuffers) and later groups write into them, growing past them for a row of more than
    // their 1 MiB: the files are still the exports' bytes
    const b = openArchive(join(dir, 'big.db'));
    try {
      const items = Array.from({ length: 40 }, (_, i) => ({
        platform: 'photo_net',
        kind: 'post',
        record: post({
          id: String(8_000_000 + i),
          text: `${i % 13 === 4 ? 'é"x,'.repeat(200_000) : 'short'} ${i}`,
          likes: (i * 7919) % 40,
        }),
      }));
      b.ingestItems(items, { callId: 'big', source: 'test' });
      const query = { sort: { field: 'likes', dir: 'desc' } } as const;
      for (const f of ['csv', 'jsonl'] as const) await exportAny(b.iterateExportRows(query), { format: f, out: join(dir, `big-ref.${f}`) });
      await exportParquet(b.iterateExportRows(query), { out: join(dir, 'big-ref.parquet'), rowGroupSize: 3 });
      const out = join(dir, 'big');
      mkdirSync(out);
      const t = await writeBundleTables(b.iterateExportRows(query), { dir: out, threads: 1, groupSize: 3 });
      expect(t.rows).toBe(40);
      for (const f of ['csv', 'jsonl', 'parquet'] as const)
        expect(readFileSync(join(out, `items.${f}`)).equals(readFileSync(join(dir, `big-ref.${f}`))), `items.${f}`).toBe(true);
    } finally {
      b.close();
    }
  });

  // last: it deletes rows
  it('a row deleted after the walk’s snapshot: the groups rendered here from the snapshot, the files as before', async () => {
    const query = { sort: { field: 'likes', dir: 'desc' } } as const;
    const before = join(dir, 'before');
    mkdirSync(before);
    const refFacts: unknown[] = [];
    const ref = await writeBundleTables(a.iterateExportRows(query), {
      dir: before,
      threads: 1,
      groupSize: 64,
      onPart: (rids, part) => refFacts.push(rids, part.facts),
    });
    const source = a.iterateExportRows(query);
    const walkOf = source.ridWalk!;
    let fromSnapshot = 0;
    const wrapped = Object.assign(source, {
      ridWalk: (): RidWalk | null => {
        const w = walkOf()!;
        const { snapshot } = w;
        const db = testDb(a);
        const gone = db.prepare('SELECT rid FROM items ORDER BY rid LIMIT 2 OFFSET 300').pluck().all() as number[];
        db.prepare(`DELETE FROM items WHERE rid IN (${gone.join(',')})`).run();
        return Object.assign(w, { snapshot: { rows: ((q) => (fromSnapshot++, snapshot.rows(q))) as RidWalk['snapshot']['rows'] } });
      },
    });
    const after = join(dir, 'after');
    mkdirSync(after);
    const facts: unknown[] = [];
    const t = await writeBundleTables(wrapped, {
      dir: after,
      threads: 1,
      groupSize: 64,
      onPart: (rids, part) => facts.push(rids, part.facts),
    });
    // the archive changed before any worker's answer was here: no answer is kept, every group is
    // rendered from the snapshot (snapshot-exports.test.ts: edits, reused rids), each batch of 64
    // rows read there with its facts in two statements
    expect(fromSnapshot).toBe(Math.ceil(N / 64) * 2);
    expect(facts).toEqual(refFacts); // the rows' calls and readings too: the manifest comes from the pass
    expect(t.rows).toBe(N);
    expect(t.files).toEqual(ref.files);
    expect(t.hashes).toEqual(ref.hashes);
  });
});
