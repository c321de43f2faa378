/** The metric history and annotations beside every table export (docs/export.md "History and annotations"). */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive, type Archive } from '../archive';
import { listResponse, post } from '../archive/test-fixtures';
import { companionsOf } from './companions';
import { exportAny } from './formats';
import { unneutraliseCell } from './cells';
import { readXlsx } from './xlsx-test-zip';

const dir = mkdtempSync(join(tmpdir(), 'loupe-companions-'));
let a: Archive;
let who = 'Ada';
const q = { platforms: ['photo_net'] };

beforeAll(() => {
  a = openArchive(':memory:', { clock: () => 5_000, author: () => who });
  // three answers over time: counts change for 1 and 2, not for 3; a micro_net item stays out of the query
  const rows = (likes: number[]) => likes.map((l, i) => post({ id: String(i + 1), likes: l, comments: i, views: null }));
  a.storeResponse(listResponse('c1', 'photo_net', 'profile/posts', rows([1, 5, 9]), { fetchedAt: Date.UTC(2026, 0, 1) }), 't', null);
  a.storeResponse(listResponse('c2', 'photo_net', 'profile/posts', rows([2, 5, 9]), { fetchedAt: Date.UTC(2026, 0, 2) }), 't', null);
  a.storeResponse(listResponse('c3', 'photo_net', 'profile/posts', rows([4, 8, 9]), { fetchedAt: Date.UTC(2026, 0, 3) }), 't', null);
  a.storeResponse(
    listResponse('c4', 'micro_net', 'user/tweets', [post({ id: 'm1', likes: 1 })], { fetchedAt: Date.UTC(2026, 0, 3) }),
    't',
    null,
  );
  a.addTag({ platform: 'photo_net', kind: 'post', id: '1' }, '=lead');
  who = 'Grace';
  a.setNote({ platform: 'photo_net', kind: 'post', id: '2' }, 'says "hi", twice');
  a.overrideLabel({ platform: 'photo_net', kind: 'post', id: '1' }, 'intent', 'label', 'other');
});
afterAll(() => {
  a.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The expected history rows: every item's readings as the archive keeps them, as strings. */
function want(): string[][] {
  const out: string[][] = [];
  for (const id of ['1', '2', '3'])
    for (const r of a.datasets.history({ platform: 'photo_net', kind: 'post', id }))
      out.push([
        'photo_net',
        'post',
        id,
        new Date(r.readAt).toISOString(),
        ...[r.views, r.likes, r.comments, r.shares, r.saves].map((v) => (v === null ? '' : String(v))),
      ]);
  return out;
}
const ANN = [
  ['photo_net', 'post', '1', 'tag', '=lead', '', 'Ada'],
  ['photo_net', 'post', '1', 'override', 'intent.label', 'other', 'Grace'],
  ['photo_net', 'post', '2', 'note', 'note', 'says "hi", twice', 'Grace'],
];
const str = (v: unknown): string =>
  v === null || v === undefined ? '' : v instanceof Date ? v.toISOString() : typeof v === 'bigint' ? v.toString() : String(v);
const norm = (rows: string[][]) => rows.map((r) => r.join('\u0001')).sort();

describe('companion tables', () => {
  it('the history has 6 readings for these items (1: three, 2: two, 3: one)', () => {
    expect(want()).toHaveLength(6);
  });

  for (const format of ['csv', 'json', 'jsonl', 'parquet', 'xlsx'] as const) {
    it(`${format}: the history (long format) and the annotations with authors beside the rows`, async () => {
      const out = join(dir, `items-${format}.${format}`);
      const r = await exportAny(a.iterateExportRows(q), { format, out, companions: companionsOf(a.datasets, { query: q }) });
      expect(r.rows).toBe(3);
      let history: string[][];
      let ann: string[][];
      if (format === 'xlsx') {
        const wb = readXlsx(out);
        expect(wb.map((w) => w.name)).toEqual(['Loupe export', 'Metric history', 'Annotations']);
        const sheet = (name: string, width: number) =>
          wb
            .find((w) => w.name === name)!
            .rows.slice(1)
            .map((row) => Array.from({ length: width }, (_, i) => row[i]).map((v) => (v instanceof Date ? v.toISOString() : str(v))));
        history = sheet('Metric history', 9);
        ann = sheet('Annotations', 7);
        expect(r.files).toBeUndefined();
      } else {
        expect(r.files?.map((f) => f.table)).toEqual(['history', 'annotations']);
        expect(readdirSync(dir).some((f) => f.endsWith('.partial'))).toBe(false);
        const [h, n] = r.files!.map((f) => f.path);
        expect(h).toBe(join(dir, `items-${format}.history.${format}`));
        if (format === 'csv') {
          const read = (f: string) =>
            (parse(readFileSync(f, 'utf8').replace(/^\uFEFF/, ''), { relax_column_count: false }) as string[][])
              .slice(1)
              .map((x) => x.map(unneutraliseCell));
          history = read(h);
          ann = read(n).map((x) => x.slice(0, 7));
        } else if (format === 'parquet') {
          const read = async (f: string) => {
            const b = readFileSync(f);
            return (await parquetReadObjects({ file: b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) })) as Array<
              Record<string, unknown>
            >;
          };
          // times are UTC instants, as the items' are (before: the legacy type alone, a naive time in DuckDB and pandas)
          for (const [f, col] of [
            [h, 'read_at'],
            [n, 'at'],
          ]) {
            const b = readFileSync(f);
            const meta = parquetMetadata(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer);
            expect(meta.schema.find((e) => e.name === col)?.logical_type, col).toEqual({
              type: 'TIMESTAMP',
              isAdjustedToUTC: true,
              unit: 'MILLIS',
            });
          }
          history = (await read(h)).map((o) =>
            ['platform', 'kind', 'id', 'read_at', 'views', 'likes', 'comments', 'shares', 'saves'].map((k) => str(o[k])),
          );
          // `value` is JSON: hyparquet gives the value (before 2026-11-28 the file held the JSON of its JSON text)
          ann = (await read(n)).map((o) => ['platform', 'kind', 'id', 'type', 'name', 'value', 'author'].map((k) => str(o[k])));
        } else {
          const objs = (f: string) =>
            format === 'json'
              ? (JSON.parse(readFileSync(f, 'utf8')) as Array<Record<string, unknown>>)
              : readFileSync(f, 'utf8')
                  .trim()
                  .split('\n')
                  .map((l) => JSON.parse(l) as Record<string, unknown>);
          history = objs(h).map((o) =>
            ['platform', 'kind', 'id', 'read_at', 'views', 'likes', 'comments', 'shares', 'saves'].map((k) => str(o[k])),
          );
          ann = objs(n).map((o) => ['platform', 'kind', 'id', 'type', 'name', 'value', 'author'].map((k) => str(o[k])));
        }
      }
      expect(norm(history)).toEqual(norm(want()));
      expect(norm(ann)).toEqual(norm(ANN));
    });
  }

  // a disk that fills while the history (or the annotations) is written, after the rows: the files
  // there before stay as they were and nothing else is left — before, the new rows had replaced the
  // old file beside the old history, under an error saying nothing was left under that name
  for (const format of ['csv', 'json', 'jsonl', 'parquet'] as const)
    for (const failIn of ['history', 'annotations'] as const)
      it(`${format}: a disk that fills while the ${failIn} is written leaves the old files as they were`, async () => {
        const sub = mkdtempSync(join(dir, 'full-'));
        const out = join(sub, `items.${format}`);
        const before = { [`items.${format}`]: 'old rows', [`items.history.${format}`]: 'old history' };
        for (const [f, text] of Object.entries(before)) writeFileSync(join(sub, f), text);
        const real = companionsOf(a.datasets, { query: q });
        function* thenFull(rows: Iterable<unknown[]>): Generator<unknown[]> {
          yield* [...rows].slice(0, 1);
          throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        }
        const companions = {
          history: () => (failIn === 'history' ? thenFull(real.history()) : real.history()),
          annotations: () => (failIn === 'annotations' ? thenFull(real.annotations()) : real.annotations()),
        };
        await expect(exportAny(a.iterateExportRows(q), { format, out, companions })).rejects.toMatchObject({ code: 'ENOSPC' });
        expect(readdirSync(sub).sort()).toEqual(Object.keys(before).sort());
        for (const [f, text] of Object.entries(before)) expect(readFileSync(join(sub, f), 'utf8')).toBe(text);
        // and with room: the new files under their names, nothing else, the summary naming the file
        const r = await exportAny(a.iterateExportRows(q), { format, out, companions: real });
        expect(r.path).toBe(out);
        expect(r.summary).toContain(`to ${out}.`);
        expect(readdirSync(sub).sort()).toEqual([`items.annotations.${format}`, ...Object.keys(before)].sort());
        expect(readFileSync(out, 'utf8')).not.toBe('old rows');
      });

  it('explicit items: only theirs', async () => {
    const items = [{ platform: 'photo_net', kind: 'post', id: '2' }];
    const out = join(dir, 'two.jsonl');
    const r = await exportAny(a.exportRowsFor(items), { format: 'jsonl', out, companions: companionsOf(a.datasets, { items }) });
    const h = readFileSync(r.files![0].path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; likes: number });
    expect(h.map((x) => [x.id, x.likes])).toEqual([
      ['2', 5],
      ['2', 8],
    ]);
    expect(readFileSync(r.files![1].path, 'utf8')).toContain('says');
  });
});
