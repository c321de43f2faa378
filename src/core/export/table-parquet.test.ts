/**
 * The small tables' Parquet (table-parquet.ts: the metric history and annotations beside an
 * export, a bundle's items.history.parquet): written with the items' encoder since 2026-11-28,
 * before with hyparquet-writer's column writer. Generated tables of every column type, with nulls
 * and edge values, read back by hyparquet: every value as the rows hold it, and the same values
 * hyparquet reads from hyparquet-writer's file of the same rows (the writer before, kept here as
 * the reference). DuckDB (where installed: recipe-tools.ts) types the columns as before and reads
 * the same values from both files. One difference, a fix: the writer before was given a JSON
 * column's text and wrote the JSON of that text (a reader got a string holding JSON: `"\"other\""`
 * for the override `other`); the value's JSON is written once now.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, describe, expect, it } from 'vitest';
import { PEERS, duckdbEntry, duckdbMemory, missingNote, need, skipWithout } from './recipe-tools';
import { tableSchema, writeParquetTable } from './table-parquet';
import type { ColumnType, Table, TableColumn } from './table-types';
import { writeTable } from './tables';

const dir = mkdtempSync(join(tmpdir(), 'loupe-table-pq-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TYPES: ColumnType[] = ['text', 'int', 'time', 'json', 'bool'];

/** the file as one buffer, in groups of `group` rows */
function newFile(t: Table, group?: number): ArrayBuffer {
  const parts: Uint8Array[] = [];
  writeParquetTable(t, (b) => parts.push(b.slice()), undefined, group);
  const all = Buffer.concat(parts);
  return all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength);
}

/** the writer before (tables.ts until 2026-11-28): hyparquet-writer's columns, values as it took them */
function oldFile(t: Table): ArrayBuffer {
  const value = (type: ColumnType, v: unknown): unknown => {
    if (v === null || v === undefined) return null;
    if (type === 'int' || type === 'time') return typeof v === 'number' && Number.isFinite(v) ? BigInt(Math.trunc(v)) : null;
    if (type === 'json') return JSON.stringify(v);
    if (type === 'bool') return typeof v === 'boolean' ? v : null;
    return typeof v === 'string' ? v : String(v);
  };
  const rows = [...t.rows];
  return parquetWriteBuffer({
    schema: tableSchema(t.columns),
    codec: 'UNCOMPRESSED',
    columnData: t.columns.map((c, i) => ({ name: c.name, data: rows.map((r) => value(c.type, r[i])) as never })),
    rowGroupSize: 50_000,
  });
}

const read = async (file: ArrayBuffer) => (await parquetReadObjects({ file })) as Array<Record<string, unknown>>;

/** what a reader should get for a row's value: text as its UTF-8 (lone surrogates U+FFFD), INT64 a BigInt, a time its instant, JSON its text */
function want(type: ColumnType, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  switch (type) {
    case 'text':
      return Buffer.from(typeof v === 'string' ? v : String(v)).toString();
    case 'int':
    case 'time': {
      if (typeof v !== 'number' || !Number.isFinite(v)) return null;
      const x = BigInt(Math.trunc(v));
      return type === 'int' ? x : new Date(Number(x));
    }
    case 'json':
      return JSON.parse(JSON.stringify(v)) as unknown;
    case 'bool':
      return typeof v === 'boolean' ? v : null;
  }
}

const lone = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
const text = fc.oneof(
  fc.constantFrom('', 'photo_net', 'post', 'tag', 'Ada', 'Grace', '=lead', 'a"b,c\nd'),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: fc.oneof(fc.constantFrom('a', 'é', '😀', '\u{10FFFF}', '\u0000'), lone), maxLength: 6 }),
  fc.bigInt({ min: 2n ** 53n, max: 2n ** 64n }).map(String), // ids past 2^53, as text
  fc.integer(), // a number in a text column is written as its text
);
const int = fc.oneof(
  fc.integer(),
  fc.maxSafeInteger(),
  fc.constantFrom(0, -0, 2 ** 53, -(2 ** 53), 2 ** 62, -(2 ** 63), 2 ** 63, 2 ** 64, Number.MAX_VALUE, NaN, Infinity, -Infinity),
  fc.double({ min: -1e6, max: 1e6 }),
  fc.constant('12'), // not a number: none
);
// times before 1970 and after, whole and fractional ms, up to Date's range
const time = fc.oneof(
  fc.integer({ min: -8.64e15, max: 8.64e15 }),
  fc.integer({ min: -86_400_000 * 365 * 80, max: 86_400_000 * 365 * 80 }),
  fc.double({ min: -1e13, max: 1e13, noNaN: true }),
  fc.constantFrom(0, -1, NaN, Infinity, '2024-01-01T00:00:00Z'),
);
const json = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom('like', 'other', { a: [1, '😀'] }));
const bool = fc.oneof(fc.boolean(), fc.constant(1));
const VALUE: Record<ColumnType, fc.Arbitrary<unknown>> = { text, int, time, json, bool };

/** a table of these column types: each value null about one time in five */
const table = fc.array(fc.constantFrom(...TYPES), { minLength: 1, maxLength: 7 }).chain((types) => {
  const columns: TableColumn[] = [...TYPES, ...types].map((type, i) => ({ name: `c${i}_${type}`, type }));
  const row = fc.tuple(...columns.map((c) => fc.option(VALUE[c.type], { freq: 5, nil: null })));
  return fc.record({ columns: fc.constant(columns), rows: fc.array(row, { maxLength: 120 }), group: fc.integer({ min: 1, max: 64 }) });
});

describe('the small tables in Parquet', () => {
  it('reads back every value of generated tables as the rows hold it, and as the writer before wrote it', async () => {
    await fc.assert(
      fc.asyncProperty(table, async ({ columns, rows, group }) => {
        const t: Table = { columns, rows };
        const past = (v: unknown) =>
          typeof v === 'number' && Number.isFinite(v) && (Math.trunc(v) < -(2 ** 63) || Math.trunc(v) >= 2 ** 63);
        if (rows.some((r) => columns.some((c, i) => (c.type === 'int' || c.type === 'time') && past(r[i])))) {
          // a number past INT64 ends the file, in both writers
          expect(() => newFile(t, group)).toThrow(RangeError);
          expect(() => oldFile(t)).toThrow(RangeError);
          return;
        }
        const back = await read(newFile(t, group));
        expect(back.length).toBe(rows.length);
        for (let r = 0; r < rows.length; r++)
          for (let i = 0; i < columns.length; i++)
            expect(back[r][columns[i].name], `row ${r} ${columns[i].name}`).toEqual(want(columns[i].type, rows[r][i]));
        // the same values the file before gave (its one row group: groups do not change what is read),
        // its JSON columns once decoded more (it held the JSON of each value's JSON text)
        const old = (await read(oldFile(t))).map((o) => {
          for (const c of columns) if (c.type === 'json' && o[c.name] !== null) o[c.name] = JSON.parse(o[c.name] as string);
          return o;
        });
        expect(back).toEqual(old);
      }),
      { numRuns: 60 },
    );
  });

  it('is one Snappy row group per 50,000 rows, types and statistics as declared; a dictionary for repeated words', async () => {
    const columns: TableColumn[] = [
      { name: 'platform', type: 'text' },
      { name: 'id', type: 'text' },
      { name: 'read_at', type: 'time' },
      { name: 'likes', type: 'int' },
      { name: 'value', type: 'json' },
      { name: 'flag', type: 'bool' },
    ];
    const T0 = Date.UTC(1969, 11, 31, 23, 59, 59, 1);
    const rows = Array.from({ length: 50_003 }, (_, i) => [
      i % 3 ? 'photo_net' : 'micro_net',
      String(9_007_199_254_740_993n + BigInt(i)),
      T0 + i * 1000,
      i % 7 ? i * 3 : null,
      i % 2 ? { n: i } : null,
      i % 5 === 0,
    ]);
    const out = join(dir, 'big.parquet');
    const r = await writeTable({ columns, rows }, 'parquet', out);
    expect(r.rows).toBe(rows.length);
    const buf = readFileSync(out);
    const file = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
    const meta = parquetMetadata(file);
    expect(meta.row_groups.map((g) => Number(g.num_rows))).toEqual([50_000, 3]);
    expect(meta.schema.find((e) => e.name === 'read_at')?.logical_type).toEqual({
      type: 'TIMESTAMP',
      isAdjustedToUTC: true,
      unit: 'MILLIS',
    });
    const first = meta.row_groups[0].columns.map((c) => c.meta_data!);
    expect(new Set(first.map((m) => m.codec))).toEqual(new Set(['SNAPPY']));
    expect(first[0].encodings).toContain('RLE_DICTIONARY');
    expect(first[2].statistics?.min_value).toEqual(new Date(T0));
    expect(first[3].statistics?.null_count).toBe(BigInt(Math.ceil(50_000 / 7)));
    expect(first[4].statistics?.min_value).toBeUndefined(); // JSON: no bounds
    const back = (await parquetReadObjects({ file, rowStart: 49_998 })) as Array<Record<string, unknown>>;
    expect(back.map((x) => x.id)).toEqual([49_998, 49_999, 50_000, 50_001, 50_002].map((i) => String(9_007_199_254_740_993n + BigInt(i))));
    expect(back[4]).toEqual({
      platform: 'photo_net',
      id: String(9_007_199_254_740_993n + 50_002n),
      read_at: new Date(T0 + 50_002_000),
      likes: BigInt(50_002 * 3),
      value: null,
      flag: false,
    });
    expect(back[3].value).toEqual({ n: 50_001 });
  });

  it('an empty table is a file of no rows with its schema', async () => {
    const columns: TableColumn[] = TYPES.map((type) => ({ name: type, type }));
    const file = newFile({ columns, rows: [] });
    const meta = parquetMetadata(file);
    expect(Number(meta.num_rows)).toBe(0);
    expect(meta.schema.map((e) => e.name)).toEqual(['root', ...TYPES]);
    expect(await read(file)).toEqual([]);
  });

  const duckEntry = duckdbEntry();
  const NO_DUCK = `DuckDB is not installed in ${PEERS} (npm run bench and .ci/run install it there)`;
  it.skipIf(skipWithout(duckEntry))(
    `DuckDB types the columns as before (times WITH TIME ZONE) and reads the same values from both files${missingNote(duckEntry, NO_DUCK)}`,
    async () => {
      const columns: TableColumn[] = TYPES.map((type) => ({ name: type, type }));
      const rows: unknown[][] = [
        ['18446744073709551615', 2 ** 60, Date.UTC(1901, 0, 1, 0, 0, 0, 5), { a: '😀' }, true],
        ['', -0, -1, [], false],
        ['𝒳 ok', -(2 ** 53) - 2, 0, 'text', null],
        [null, null, null, null, null],
        ['photo_net', 12, Date.UTC(2026, 10, 28, 9, 30), 3.5, true],
      ];
      const files = [join(dir, 'new.parquet'), join(dir, 'old.parquet')];
      writeFileSync(files[0], Buffer.from(newFile({ columns, rows })));
      writeFileSync(files[1], Buffer.from(oldFile({ columns, rows })));
      const { c, close } = await duckdbMemory(need(duckEntry, NO_DUCK));
      try {
        const got: unknown[] = [];
        for (const f of files) {
          const file = f.replace(/'/g, "''");
          const types = (
            await c.runAndReadAll(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('${file}'))`)
          ).getRows();
          expect(types).toEqual([
            ['text', 'VARCHAR'],
            ['int', 'BIGINT'],
            ['time', 'TIMESTAMP WITH TIME ZONE'],
            ['json', 'JSON'],
            ['bool', 'BOOLEAN'],
          ]);
          const vals = (
            await c.runAndReadAll(
              `SELECT text, CAST(int AS VARCHAR), epoch_ms(time), CAST(json AS VARCHAR), bool FROM read_parquet('${file}')`,
            )
          ).getRows();
          got.push(vals.map((v) => v.map((x) => (typeof x === 'bigint' ? Number(x) : x))));
        }
        expect(got[0]).toEqual([
          ['18446744073709551615', String(2n ** 60n), Date.UTC(1901, 0, 1, 0, 0, 0, 5), '{"a":"😀"}', true],
          ['', '0', -1, '[]', false],
          ['𝒳 ok', String(-(2 ** 53) - 2), 0, '"text"', null],
          [null, null, null, null, null],
          ['photo_net', '12', Date.UTC(2026, 10, 28, 9, 30), '3.5', true],
        ]);
        // the same values but JSON, which the file before held as the JSON of its JSON text
        const json = (rows: unknown[]) => (rows as unknown[][]).map((r) => [...r.slice(0, 3), r[4]]);
        expect(json(got[0] as unknown[])).toEqual(json(got[1] as unknown[]));
        expect((got[1] as unknown[][]).map((r) => (r[3] === null ? null : JSON.parse(r[3] as string)))).toEqual(
          (got[0] as unknown[][]).map((r) => r[3]),
        );
      } finally {
        close();
      }
    },
  );
});
