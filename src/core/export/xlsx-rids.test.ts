/**
 * An XLSX export of the archive whose workers read, render and deflate the rows themselves
 * (xlsx-rids.ts) holds the same workbook as the one-thread export: every part's XML byte for byte
 * (the sheets split where the one-thread export splits them), each entry's CRC-32 and size checked
 * (xlsx-test-zip.ts), over generated archives (hostile text, odd records, tags, notes, overrides)
 * and over one large enough for several batches a sheet; and a row deleted after the export's
 * snapshot is still written (from the snapshot, by the exporting thread). Beside it, the pieces'
 * CRC-32s combined as zlib combines them, and pieces deflated apart inflate as one stream.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, inflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { openArchive, type Archive } from '../archive';
import { post } from '../archive/test-fixtures';
import { testDb } from '../archive/testing';
import type { LibraryQuery } from '../../shared/query';
import type { ExportRowSource, RidWalk } from '../ports';
import { workerEntry } from './csv-pool';
import { row as genRow } from './test-rows';
import { exportXlsx } from './xlsx';
import { readZip } from './xlsx-test-zip';
import { crc32Combine, deflatePiece } from './zip';

const dir = mkdtempSync(join(tmpdir(), 'loupe-xlsx-rids-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** the workbook's parts, but the document's creation time (docProps/core.xml) */
async function workbook(source: ExportRowSource, o: { threads: number; rowsPerSheet?: number; columns?: string[] }) {
  const out = join(dir, `w${files++}.xlsx`);
  const r = await exportXlsx(source, { out, parallelAfter: 1, ...o });
  const parts = readZip(out);
  parts.delete('docProps/core.xml');
  return { r, parts };
}

function expectSame(a: Awaited<ReturnType<typeof workbook>>, b: Awaited<ReturnType<typeof workbook>>, what: string): void {
  expect([...b.parts.keys()], what).toEqual([...a.parts.keys()]);
  for (const [name, xml] of a.parts) expect(b.parts.get(name)?.equals(xml), `${what}: ${name}`).toBe(true);
  expect({ ...b.r, path: '', bytes: 0 }, what).toEqual({ ...a.r, path: '', bytes: 0 });
}

describe.runIf(workerEntry('xlsx-worker') !== null)('XLSX export read by the workers, by rid', () => {
  it('holds the one-thread workbook, over generated archives', async () => {
    let archives = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(genRow, { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 25 }),
        fc.boolean(),
        async (rows, rowsPerSheet, subset) => {
          const a = openArchive(join(dir, `g${archives++}.db`));
          try {
            a.ingestItems(
              rows.map((r, i) => ({
                platform: 'photo_net',
                kind: 'post',
                record: {
                  ...(typeof r.record === 'object' && r.record !== null && !Array.isArray(r.record) ? r.record : { x: r.record }),
                  id: `p${i}`,
                },
              })),
              { callId: 'gen', source: 'test' },
            );
            for (const [i, r] of rows.entries()) {
              const ref = { platform: 'photo_net', kind: 'post', id: `p${i}` };
              for (const t of r.tags) if (t.trim()) a.addTag(ref, t.trim().slice(0, 40));
              if (r.note) a.setNote(ref, r.note);
              if (i % 3 === 0) a.overrideLabel(ref, 'sponsored', 'p', i / 100);
            }
            const columns = subset ? ['id', 'content.text', 'published_at', 'tags', 'first_seen_at', 'extra'] : undefined;
            const one = await workbook(a.iterateExportRows({}), { threads: 0, rowsPerSheet, columns });
            const two = await workbook(a.iterateExportRows({}), { threads: 2, rowsPerSheet, columns });
            expectSame(one, two, `${rows.length} rows, ${rowsPerSheet} a sheet`);
          } finally {
            a.close();
          }
        },
      ),
      { numRuns: 8 },
    );
  }, 300_000);

  describe('an archive of several batches a sheet', () => {
    let a: Archive;
    const N = 1_300;
    it('holds the one-thread workbook, in the default order and a sorted, filtered query', async () => {
      a = openArchive(join(dir, 'big.db'));
      const items = Array.from({ length: N }, (_, i) => ({
        platform: i % 3 ? 'photo_net' : 'forum_net',
        kind: 'post',
        record: post({
          id: String(6_000_000_000_000_000_000n + BigInt(i)),
          text: `${i % 2 ? '=cmd' : 'kettle'} <b>&amp;</b> ${'é🎉'.repeat(i % 4)} line\r\nbreak ${i}${i === 7 ? 'x'.repeat(40_000) : ''}`,
          likes: i % 11 ? i * 37 : null,
          published_at: new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString(),
        }) as unknown as Record<string, unknown>,
      }));
      for (let s = 0; s < N; s += 400) a.ingestItems(items.slice(s, s + 400), { callId: `big-${s}`, source: 'test' });
      const queries: LibraryQuery[] = [{}, { platforms: ['photo_net'], text: 'kettle', sort: { field: 'likes', dir: 'asc' } }];
      for (const q of queries)
        for (const rowsPerSheet of [undefined, 700]) {
          const one = await workbook(a.iterateExportRows(q), { threads: 0, rowsPerSheet });
          const two = await workbook(a.iterateExportRows(q), { threads: 2, rowsPerSheet });
          expect(two.r.rows).toBeGreaterThan(400);
          expectSame(one, two, `${JSON.stringify(q)}, ${rowsPerSheet ?? 'default'} a sheet`);
        }
    }, 120_000);

    it('writes a row deleted after its snapshot from the snapshot', async () => {
      const before = await workbook(a.iterateExportRows({}), { threads: 0 });
      const source = a.iterateExportRows({});
      const walkOf = source.ridWalk!;
      let fromSnapshot = 0;
      const wrapped = Object.assign(source, {
        ridWalk: (): RidWalk | null => {
          const w = walkOf()!;
          const rows = w.rows.bind(w);
          const db = testDb(a);
          const gone = db.prepare('SELECT rid FROM items ORDER BY published_at DESC LIMIT 2 OFFSET 800').pluck().all() as number[];
          db.prepare(`DELETE FROM items WHERE rid IN (${gone.join(',')})`).run();
          return Object.assign(w, { rows: (rids: number[]) => ((fromSnapshot += rids.length), rows(rids)) });
        },
      });
      const after = await workbook(wrapped, { threads: 2 });
      // the archive changed before any worker's answer was here: no answer is kept, every batch is
      // rendered from the snapshot (snapshot-exports.test.ts: edits, reused rids)
      expect(fromSnapshot).toBe(N);
      expect(a.count({})).toBe(N - 2);
      expectSame(before, after, 'a row deleted');
      a.close();
    }, 120_000);
  });
});

describe('pieces deflated apart', () => {
  it('combine their CRC-32s as one CRC-32 of the whole', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ maxLength: 300 }), (x, y) => {
        const whole = crc32(Buffer.concat([x, y]));
        expect(crc32Combine(crc32(x), crc32(y), y.length)).toBe(whole);
      }),
    );
    // long pieces (2^24 bytes each, three of them) against zlib's crc32 of the same zeros, a piece at a time
    const zeros = Buffer.alloc(1 << 24);
    let crc = crc32(Buffer.from('head'));
    let combined = crc;
    for (let i = 0; i < 3; i++) {
      crc = crc32(zeros, crc);
      combined = crc32Combine(combined, crc32(zeros), zeros.length);
    }
    expect(combined).toBe(crc);
  });

  it('inflate as one stream, once ended with the final block', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 2000 }), { maxLength: 6 }), (texts) => {
        const pieces = texts.map((t) => deflatePiece(Buffer.from(t.repeat(3)), 1));
        const stream = Buffer.concat([...pieces.map((p) => p.bytes), Buffer.from([0x03, 0x00])]);
        const whole = Buffer.from(texts.map((t) => t.repeat(3)).join(''));
        expect(inflateRawSync(stream).equals(whole)).toBe(true);
        expect(pieces.reduce((c, p) => crc32Combine(c, p.crc, p.usize), 0)).toBe(crc32(whole));
      }),
    );
  });
});
