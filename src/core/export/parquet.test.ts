import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetMetadata, parquetReadObjects, readOffsetIndex } from 'hyparquet';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExportRow } from '../ports';
import { CSV_COLUMNS } from './columns';
import { exportParquet, parquetType } from './parquet';

const dir = mkdtempSync(join(tmpdir(), 'loupe-pq-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function row(i: number): ExportRow {
  const id = (18_446_744_073_709_551_000n + BigInt(i)).toString();
  const record: Record<string, unknown> = {
    id,
    published_at: i % 5 === 0 ? null : `2024-05-01T12:00:${String(i % 60).padStart(2, '0')}Z`,
    content: { text: i % 2 ? '=1+1 \u0000 عربي' : `post ${i}`, media_urls: ['https://cdn/a.jpg'] },
    author: { id: '9007199254740993', username: `user${i}`, followers: i * 1000, verified: i % 2 === 0 },
    engagement: { likes: i, views: i % 3 === 0 ? null : 10 * i },
    flags: { deleted: false },
    computed: {
      labels: {
        sponsored: { p: i / 100, disclosed: i % 2 === 1, brand: i % 4 ? null : 'acme' },
        intent: { label: 'complaining', urgency: i % 4 },
        // a value the spec would not give (urgency as text): kept in `untyped`
        ...(i === 7 ? { quality: { fact_density: 'high' } } : {}),
      },
    },
  };
  return {
    platform: 'micro_net',
    kind: 'post',
    id,
    record,
    firstSeenAt: Date.UTC(2024, 4, 2) + i,
    lastSeenAt: Date.UTC(2024, 4, 3) + i,
    tags: i % 2 ? ['lead'] : [],
    note: null,
    overrides: {},
  };
}

async function read(file: string): Promise<Record<string, unknown>[]> {
  const buf = readFileSync(file);
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  return parquetReadObjects({ file: ab });
}

describe('Parquet export', () => {
  it('column types follow the columns and the spec label table', () => {
    expect(parquetType('id')).toBe('STRING');
    expect(parquetType('author.id')).toBe('STRING');
    expect(parquetType('published_at')).toBe('TIMESTAMP');
    expect(parquetType('engagement.likes')).toBe('INT64');
    expect(parquetType('labels.sponsored.p')).toBe('DOUBLE');
    expect(parquetType('labels.intent.urgency')).toBe('INT32');
    expect(parquetType('labels.sponsored.disclosed')).toBe('BOOLEAN');
    expect(parquetType('labels.intent.label')).toBe('STRING');
    expect(parquetType('flags.nsfw')).toBe('BOOLEAN');
    expect(parquetType('tags')).toBe('JSON');
  });

  it('reads back with hyparquet: typed columns, ids as exact strings, one column per label field, several row groups', async () => {
    const rows = Array.from({ length: 53 }, (_, i) => row(i));
    const out = join(dir, 'a.parquet');
    const r = await exportParquet(rows, { out, rowGroupSize: 10 });
    expect(r).toMatchObject({ rows: 53, rowGroups: 6, untypedValues: 1 });

    const meta = parquetMetadata(readFileSync(out).buffer.slice(0) as ArrayBuffer);
    expect(Number(meta.num_rows)).toBe(53);
    expect(meta.row_groups.length).toBe(6);
    const el = new Map(meta.schema.slice(1).map((s) => [s.name, s]));
    expect([...el.keys()]).toEqual([...CSV_COLUMNS, 'untyped']);
    expect(el.get('id')).toMatchObject({ type: 'BYTE_ARRAY', converted_type: 'UTF8' });
    expect(el.get('published_at')).toMatchObject({ type: 'INT64', converted_type: 'TIMESTAMP_MILLIS' });
    expect(el.get('engagement.likes')).toMatchObject({ type: 'INT64' });
    expect(el.get('labels.sponsored.p')).toMatchObject({ type: 'DOUBLE' });
    expect(el.get('labels.intent.urgency')).toMatchObject({ type: 'INT32' });
    expect(el.get('author.verified')).toMatchObject({ type: 'BOOLEAN' });
    expect(el.get('tags')).toMatchObject({ type: 'BYTE_ARRAY', converted_type: 'JSON' });

    const back = await read(out);
    expect(back.length).toBe(53);
    for (let i = 0; i < 53; i++) {
      const b = back[i];
      expect(b.id).toBe(rows[i].id);
      expect(typeof b.id).toBe('string');
      expect(b['author.id']).toBe('9007199254740993');
      expect(b.published_at).toEqual(i % 5 === 0 ? null : new Date(`2024-05-01T12:00:${String(i % 60).padStart(2, '0')}Z`));
      expect(b.first_seen_at).toEqual(new Date(Date.UTC(2024, 4, 2) + i));
      expect(b['engagement.likes']).toBe(BigInt(i));
      expect(b['engagement.views']).toBe(i % 3 === 0 ? null : BigInt(10 * i));
      expect(b['author.verified']).toBe(i % 2 === 0);
      expect(b['labels.sponsored.p']).toBe(i / 100);
      expect(b['labels.sponsored.brand']).toBe(i % 4 ? null : 'acme');
      expect(b['labels.intent.urgency']).toBe(i % 4);
      expect(b['content.text']).toBe(i % 2 ? '=1+1 \u0000 عربي' : `post ${i}`);
      expect(b['content.media_urls']).toEqual(['https://cdn/a.jpg']);
      expect(b.tags).toEqual(i % 2 ? ['lead'] : []);
      expect(b['labels.quality.fact_density']).toBeNull();
      expect(b.untyped).toEqual(i === 7 ? { 'labels.quality.fact_density': 'high' } : null);
    }
  });

  it('an empty export is a valid file; a failing source leaves no file', async () => {
    const out = join(dir, 'empty.parquet');
    expect((await exportParquet([], { out })).rows).toBe(0);
    expect(await read(out)).toEqual([]);
    function* broken(): Generator<ExportRow> {
      yield row(1);
      throw new Error('disk on fire');
    }
    await expect(exportParquet(broken(), { out: join(dir, 'broken.parquet') })).rejects.toThrow('disk on fire');
    expect(readdirSync(dir).filter((f) => f.includes('broken'))).toEqual([]);
  });

  it('row groups encoded on a worker are placed byte for byte as on one thread; offsets, page indexes and statistics hold', async () => {
    // texts long enough for several pages per column chunk (so page indexes are written), a
    // failing value here and there, and groups of 8 rows: 3 full groups and a partial one
    const rows = Array.from({ length: 27 }, (_, i) => {
      const r = row(i);
      (r.record.content as { text: string }).text = `${i} ${'lorem ipsum dolor sit amet '.repeat(9_000 + 500 * i)}`;
      return r;
    });
    const one = join(dir, 'one.parquet');
    const workers = join(dir, 'workers.parquet');
    await exportParquet(rows, { out: one, rowGroupSize: 8, threads: 0 });
    const r = await exportParquet(rows, { out: workers, rowGroupSize: 8, threads: 1 });
    expect(r).toMatchObject({ rows: 27, rowGroups: 4, untypedValues: 1 });
    const bytes = readFileSync(workers);
    expect(bytes.equals(readFileSync(one))).toBe(true);

    const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const meta = parquetMetadata(ab);
    let indexed = 0;
    let end = 4;
    for (const g of meta.row_groups)
      for (const c of g.columns) {
        const m = c.meta_data!;
        // every chunk starts where the previous one ended (no gap, no overlap after placing)
        const start = Number(m.dictionary_page_offset ?? m.data_page_offset);
        expect(start).toBe(end);
        end = start + Number(m.total_compressed_size);
        if (c.offset_index_offset !== undefined) {
          indexed++;
          const at = Number(c.offset_index_offset);
          const idx = readOffsetIndex({ view: new DataView(ab, at, c.offset_index_length), offset: 0 });
          expect(Number(idx.page_locations[0].offset)).toBe(Number(m.data_page_offset));
          for (const p of idx.page_locations) expect(Number(p.offset)).toBeLessThan(end);
        }
        const name = m.path_in_schema.join('.');
        if (name === 'engagement.likes') expect(m.statistics?.min_value).toBeDefined();
        if (name === 'content.text' || name === 'tags') expect(m.statistics?.min_value).toBeUndefined();
      }
    expect(indexed).toBeGreaterThan(0);
    const back = await read(workers);
    expect(back.map((b) => b['content.text'])).toEqual(rows.map((x) => (x.record.content as { text: string }).text));
    expect(back.map((b) => b['engagement.likes'])).toEqual(rows.map((_x, i) => BigInt(i)));
  });
});
