/**
 * Issue 30: a CSV worker's batch read as one aggregate row (rid-batch.ts) holds the rows that
 * reading them one row each (rid-rows.ts ridBytesReader) gives: the same texts, numbers,
 * annotations and record bytes, in the batch's order, over generated archives (with and without
 * tags, notes and overrides: the walk's annotation columns differ) and generated batches; and
 * null for a batch with a rid that is not in the archive.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive, type Archive } from '../archive';
import { post } from '../archive/test-fixtures';
import { mulberry32 } from '../../shared/random';
import { ridBatchReader } from './rid-batch';
import { ridBytesReader, type BytesTuple, type RidSource } from './rid-rows';

const dir = mkdtempSync(join(tmpdir(), 'loupe-rid-batch-'));
const N = 900;
const PIECES = ['kettle', '"quoted"', 'back\\slash', 'line\nbreak', 'é🎉', '=1+1', 'tab\there', '\u2028', '', '{"a":1}', '\u0000x'];

function text(r: () => number, max: number): string {
  let s = '';
  for (let k = Math.floor(r() * max); k > 0; k--) s += PIECES[Math.floor(r() * PIECES.length)] + (r() < 0.5 ? ' ' : '');
  return s;
}

function build(file: string, seed: number, annotate: boolean): { a: Archive; source: RidSource } {
  const a = openArchive(file);
  const r = mulberry32(seed);
  const items = Array.from({ length: N }, (_, i) => ({
    platform: ['photo_net', 'forum_net', 'vid"eo'][i % 3],
    kind: 'post',
    record: <Record<string, unknown>>{
      ...post({
        id: r() < 0.1 ? `id ${text(r, 3)} ${i}` : String(7_000_000_000_000_000_000n + BigInt(i)),
        text: text(r, r() < 0.05 ? 400 : 12),
        likes: r() < 0.3 ? null : Math.floor(r() * 1e9),
        published_at: new Date(Date.UTC(2024, 0, 1) + Math.floor(r() * 3e10)).toISOString(),
      }),
      unknown_field: r() < 0.2 ? { nested: [i, text(r, 3)] } : undefined,
    },
  }));
  for (let s = 0; s < N; s += 150) a.ingestItems(items.slice(s, s + 150), { callId: `batch-${seed}-${s}`, source: 'test' });
  // re-check marks (checked_at, missing_since): found, not found, found again, never re-checked
  for (let i = 0; i < N; i++) {
    const ref = { platform: items[i].platform, kind: 'post', id: items[i].record.id as string };
    const x = r();
    if (x < 0.4) continue;
    a.datasets.markChecked(ref, 1.7e12 + i, x < 0.6);
    if (x > 0.9) a.datasets.markChecked(ref, 1.8e12 + i, x < 0.95);
  }
  if (annotate)
    for (let i = 0; i < N; i++) {
      const ref = { platform: items[i].platform, kind: 'post', id: items[i].record.id as string };
      if (r() < 0.1) a.addTag(ref, `t${text(r, 2)}${i % 4}`);
      if (r() < 0.08) a.setNote(ref, text(r, 5) || 'n');
      if (r() < 0.05) a.overrideLabel(ref, 'sponsored', 'p', Math.round(r() * 1000) / 1000);
    }
  const walk = a.iterateExportRows({}).ridWalk?.();
  if (!walk) throw new Error('no rid walk on a file archive');
  const source = { file, extra: walk.extra };
  walk.close();
  return { a, source };
}

/** a row with its record's bytes as a binary string, and its length kept (trailing undefined columns) */
const plain = (t: BytesTuple): unknown[] => [t.length, ...t.map((v) => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v))];

const archives: Array<{ a: Archive; source: RidSource; rids: number[] }> = [];

beforeAll(() => {
  for (const [k, annotate] of [false, true].entries()) {
    const { a, source } = build(join(dir, `a${k}.db`), 30 + k, annotate);
    const walk = a.iterateExportRows({}).ridWalk?.();
    const rids = walk?.next(N + 1) ?? [];
    walk?.close();
    archives.push({ a, source, rids });
  }
});
afterAll(() => {
  for (const { a } of archives) a.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('rows of a batch read as one aggregate row', () => {
  it('are the rows read one by one, in the batch order, with and without annotation columns', () => {
    expect(archives[0].source.extra).toBe('');
    expect(archives[1].source.extra).not.toBe('');
    const r = mulberry32(7);
    for (const { source, rids } of archives) {
      expect(rids.length).toBe(N);
      const batch = ridBatchReader(source);
      const single = ridBytesReader(source);
      for (let round = 0; round < 40; round++) {
        // a random batch of distinct rids in random order, 1 to 600 of them
        const pool = [...rids];
        const size = 1 + Math.floor(r() * 600);
        const picked: number[] = [];
        for (let k = 0; k < size; k++) picked.push(pool.splice(Math.floor(r() * pool.length), 1)[0]);
        const want = single(picked);
        expect(want).not.toBeNull();
        // the record bytes as text to compare (a deep compare of Buffers goes byte by byte, slowly)
        expect(batch(picked)?.map(plain)).toEqual(want?.map(plain));
      }
    }
  });

  it('is null when a rid is not in the archive', () => {
    for (const { source, rids } of archives) {
      const gone = [rids[3], Math.max(...rids) + 5, rids[1]];
      expect(ridBytesReader(source)(gone)).toBeNull();
      expect(ridBatchReader(source)(gone)).toBeNull();
      expect(ridBatchReader(source)([Math.max(...rids) + 9])).toBeNull();
    }
  });
});
