/**
 * Issue 29: a bundle's manifest items (each item's calls, its rows' hashes), its items by
 * availability (`attrition`) and its metric history come from the export workers' pass over the rows (bundle-facts.ts, archive/bundle-rows.ts
 * bundleRowsOf) instead of two scans of the items table — and are exactly what the scans give:
 * the items and their calls as `datasets.bundleItems` lists them, the attrition counts as
 * `datasets.attritionMarks` gives them with the latest mark (re-check marks before and after the
 * exporting clock; publication times none, odd or out of range), the hashes of the rows as verify
 * reads them from the files, the history files byte for byte the separate CSV and Parquet exports'
 * (generated archives: items from several calls, readings from re-reads, annotations; the export
 * order the rid order or a sort).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { mulberry32 } from '../../shared/random';
import type { LibraryQuery } from '../../shared/query';
import { openArchive } from '../archive';
import { listResponse, post } from '../archive/test-fixtures';
import { testDb } from '../archive/testing';
import { companionsOf, exportAny } from '../export';
import { exportBundle, manifestAttrition, writtenAt } from './bundle';
import { BundleFacts } from './bundle-facts';
import { verifyBundle } from './bundle-check';
import { csvRowHashes, jsonlRowHashes } from './row-hashes';

const T0 = Date.UTC(2026, 0, 1);
const dir = mkdtempSync(join(tmpdir(), 'loupe-bundle-fold-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the manifest items and history from the workers’ pass', () => {
  it('equal the scans’ (generated archives, rid order and a sort)', async () => {
    for (const seed of [1, 2, 3]) {
      const r = mulberry32(seed * 29);
      const a = openArchive(join(dir, `a${seed}.db`), { author: () => 'ana' });
      const n = 40 + Math.floor(r() * 60);
      // pages of overlapping ids: items in one or more calls; later pages read them again with grown counts
      for (let page = 0; page < 8; page++) {
        const from = Math.floor(r() * n);
        const ids = Array.from({ length: 5 + Math.floor(r() * 20) }, (_, k) => ((from + k) % n) + 1);
        const rows = ids.map((id) =>
          post({ id: `${id}`, likes: id * 10 + page * Math.floor(r() * 3), published_at: new Date(T0 + id * 3_600_000).toISOString() }),
        );
        a.storeResponse(
          listResponse(`call-${seed}-${page}`, r() < 0.5 ? 'photo_net' : 'micro_net', 'profile/posts', rows, {
            fetchedAt: T0 + page * 60_000,
          }),
          'test',
          null,
        );
      }
      const keys = [...a.datasets.bundleItems({})];
      // re-check marks (found, not found, never re-checked) and publication times the attrition's month reads oddly
      const odd = [null, -1, Date.UTC(2026, 1, 1) - 1, -62167219200001, 253402300800000, 1.7e12 + 0.5];
      const setPublished = testDb(a).prepare('UPDATE items SET published_at = ? WHERE platform = ? AND kind = ? AND id = ?');
      for (const key of keys) {
        const x = r();
        // before and after the exporting clock (now: T0): the bundle is dated no earlier than its latest mark
        if (x > 0.4) a.datasets.markChecked(key, T0 + Math.floor((r() - 0.5) * 2e9), x > 0.8);
        if (r() < 0.2) setPublished.run(odd[Math.floor(r() * odd.length)], key.platform, key.kind, key.id);
      }
      for (let k = 0; k < keys.length; k += 7) a.addTag(keys[k], `t${k % 3}`);
      for (let k = 3; k < keys.length; k += 11) a.setNote(keys[k], `note ${k}`);
      expect(keys.some((i) => i.calls.length > 1)).toBe(true);
      expect([...a.datasets.historyRows({})].length).toBeGreaterThan(keys.length); // some items have past readings

      const queries: LibraryQuery[] = [{}, { sort: { field: 'likes', dir: 'desc' } }];
      for (const [q, query] of queries.entries())
        // threads 1: the worker writes the history files once its groups are done (export/bundle-history.ts);
        // threads 0: this thread, from the pass's facts
        for (const threads of [1, 0]) {
          const out = join(dir, `b${seed}-${q}-${threads}`);
          const scanItems = vi.spyOn(a.datasets, 'bundleItems');
          const scanHistory = vi.spyOn(a.datasets, 'historyRows');
          const scanAttrition = vi.spyOn(a.datasets, 'attritionMarks');
          const factsHistory = vi.spyOn(BundleFacts.prototype, 'history');
          const m = await exportBundle(a, { out, query, version: 't', variants: [], now: T0, threads, groupSize: 16 });
          // folded: neither scan ran
          expect(scanItems).not.toHaveBeenCalled();
          expect(scanHistory).not.toHaveBeenCalled();
          expect(scanAttrition).not.toHaveBeenCalled();
          expect(factsHistory).toHaveBeenCalledTimes(threads === 0 ? 1 : 0);
          scanItems.mockRestore();
          scanHistory.mockRestore();
          scanAttrition.mockRestore();
          factsHistory.mockRestore();

          const csv = new Map(csvRowHashes(readFileSync(join(out, 'items.csv'))).rows.map((h) => [h.key, h.sha]));
          const jsonl = new Map(jsonlRowHashes(readFileSync(join(out, 'items.jsonl'))).map((h) => [h.key, h.sha]));
          const want = [...a.datasets.bundleItems(query)].map((i) => {
            const key = `${i.platform}/${i.kind}/${i.id}`;
            return { platform: i.platform, kind: i.kind, id: i.id, calls: i.calls, csv_sha256: csv.get(key), jsonl_sha256: jsonl.get(key) };
          });
          expect(m.items).toEqual(want);
          // the items by availability: counted in the pass, as the attrition report counts the query's items
          const marks = a.datasets.attritionMarks(query);
          expect(m.attrition).toEqual(manifestAttrition(marks.rows));
          expect(marks.latestMark).toBeGreaterThan(T0);
          expect(m.created_at).toBe(new Date(writtenAt(T0, m.calls, marks.latestMark)).toISOString());

          // the history and annotations files: the separate exports' bytes
          const ref = join(dir, `ref${seed}-${q}-${threads}`);
          mkdirSync(ref);
          for (const format of ['csv', 'parquet'] as const) {
            await exportAny(a.iterateExportRows(query), {
              format,
              out: join(ref, `items.${format}`),
              companions: companionsOf(a.datasets, { query }),
            });
            for (const table of ['history', 'annotations']) {
              const name = `items.${table}.${format}`;
              expect(readFileSync(join(out, name)).equals(readFileSync(join(ref, name))), `${seed} ${q} ${name}`).toBe(true);
            }
          }
          expect((await verifyBundle(out, { archive: a })).problems).toEqual([]);
        }
      a.close();
    }
  }, 120_000);
});
