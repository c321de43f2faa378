/**
 * Issue 26's Parquet: times annotated as UTC instants (TIMESTAMP(MILLIS, isAdjustedToUTC)) and
 * every page Snappy-compressed, read back by hyparquet and — where DuckDB is installed in the
 * benchmarks' peers folder (bench/peers.ts: `LOUPE_BENCH_PEERS` or ~/.cache/loupe-bench/peers;
 * `npm run bench` and `.ci/run` install it there; recipe-tools.ts: skipped without it, or failed where
 * `.ci/run` requires the tools) — by DuckDB, which then types the times TIMESTAMP WITH TIME
 * ZONE and reads every value as written.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExportRow } from '../ports';
import { exportParquet } from './parquet';
import { PEERS, duckdbEntry, duckdbMemory, missingNote, need, skipWithout } from './recipe-tools';

const dir = mkdtempSync(join(tmpdir(), 'loupe-pq-readers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const duckEntry = duckdbEntry();
const NO_DUCK = `DuckDB is not installed in ${PEERS} (npm run bench and .ci/run install it there)`;

const T0 = Date.UTC(2024, 4, 1, 12, 0, 0);
function row(i: number): ExportRow {
  const id = String(7_000_000_000_000_000_000n + BigInt(i));
  return {
    platform: 'micro_net',
    kind: 'post',
    id,
    firstSeenAt: T0 + 1000 * i + 7,
    lastSeenAt: T0 + 2000 * i,
    tags: [],
    note: null,
    overrides: {},
    record: {
      id,
      published_at: i % 4 === 3 ? null : new Date(T0 + 3_600_000 * i).toISOString(),
      content: { text: `post ${i} ${'about kettles '.repeat(i % 7)}` },
      engagement: { likes: i * 3 },
    },
  };
}
const rows = Array.from({ length: 300 }, (_, i) => row(i));

describe('Parquet files for every reader', () => {
  it('annotates times as UTC and compresses every column with Snappy; hyparquet reads the instants back', async () => {
    const out = join(dir, 'utc.parquet');
    await exportParquet(rows, { out, rowGroupSize: 128 });
    const buf = readFileSync(out);
    const meta = parquetMetadata(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer);
    for (const name of ['published_at', 'first_seen_at', 'last_seen_at', 'author.joined_at'])
      expect(meta.schema.find((s) => s.name === name)?.logical_type, name).toEqual({
        type: 'TIMESTAMP',
        isAdjustedToUTC: true,
        unit: 'MILLIS',
      });
    const codecs = new Set(meta.row_groups.flatMap((g) => g.columns.map((c) => c.meta_data!.codec)));
    expect([...codecs]).toEqual(['SNAPPY']);
    const text = meta.row_groups[0].columns.find((c) => c.meta_data!.path_in_schema[0] === 'content.text')!.meta_data!;
    expect(Number(text.total_compressed_size)).toBeLessThan(Number(text.total_uncompressed_size));
    const back = await parquetReadObjects({ file: buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer });
    expect(back.map((b) => (b.published_at as Date | null)?.getTime() ?? null)).toEqual(
      rows.map((_, i) => (i % 4 === 3 ? null : T0 + 3_600_000 * i)),
    );
    expect(back.map((b) => (b.first_seen_at as Date).getTime())).toEqual(rows.map((r) => r.firstSeenAt));
    expect(back.map((b) => b['content.text'])).toEqual(rows.map((r) => (r.record.content as { text: string }).text));
  });

  it.skipIf(skipWithout(duckEntry))(
    `DuckDB reads the times as TIMESTAMP WITH TIME ZONE, every value as written${missingNote(duckEntry, NO_DUCK)}`,
    async () => {
      const out = join(dir, 'duck.parquet');
      await exportParquet(rows, { out, rowGroupSize: 128 });
      const { c, close } = await duckdbMemory(need(duckEntry, NO_DUCK));
      try {
        const file = out.replace(/'/g, "''");
        const types = (
          await c.runAndReadAll(
            `SELECT column_name, column_type FROM (DESCRIBE SELECT published_at, first_seen_at, "engagement.likes", id FROM read_parquet('${file}'))`,
          )
        ).getRows();
        expect(types).toEqual([
          ['published_at', 'TIMESTAMP WITH TIME ZONE'],
          ['first_seen_at', 'TIMESTAMP WITH TIME ZONE'],
          ['engagement.likes', 'BIGINT'],
          ['id', 'VARCHAR'],
        ]);
        const got = (
          await c.runAndReadAll(
            `SELECT id, epoch_ms(published_at), epoch_ms(first_seen_at), "content.text", "engagement.likes" FROM read_parquet('${file}')`,
          )
        ).getRows();
        expect(got.map((r) => [r[0], r[1] === null ? null : Number(r[1]), Number(r[2]), r[3], Number(r[4])])).toEqual(
          rows.map((r, i) => [
            r.id,
            i % 4 === 3 ? null : T0 + 3_600_000 * i,
            r.firstSeenAt,
            (r.record.content as { text: string }).text,
            i * 3,
          ]),
        );
      } finally {
        close();
      }
    },
  );
});
