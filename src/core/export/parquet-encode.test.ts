import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetMetadata, parquetReadObjects, readOffsetIndex } from 'hyparquet';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExportRow } from '../ports';
import { exportParquet } from './parquet';
import { compareUtf8 } from './parquet-encode';

// the encoder of parquet-encode.ts / parquet-columns.ts, read back with hyparquet: every type,
// nulls, dictionaries and their fallback, pages, statistics
const dir = mkdtempSync(join(tmpdir(), 'loupe-pqe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function ab(file: string): ArrayBuffer {
  const b = readFileSync(file);
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
}

function post(i: number, record: Record<string, unknown>, extra: Partial<ExportRow> = {}): ExportRow {
  const id = String(record.id ?? i);
  return {
    platform: 'photo_net',
    kind: 'post',
    id,
    record: { id, ...record },
    firstSeenAt: Date.UTC(2024, 0, 1) + i,
    lastSeenAt: Date.UTC(2024, 0, 2),
    tags: [],
    note: null,
    overrides: {},
    ...extra,
  };
}

type Stats = { min_value?: unknown; max_value?: unknown; null_count?: bigint };
function stats(file: string): Map<string, Stats[]> {
  const out = new Map<string, Stats[]>();
  for (const g of parquetMetadata(ab(file)).row_groups)
    for (const c of g.columns) {
      const name = c.meta_data!.path_in_schema.join('.');
      out.set(name, [...(out.get(name) ?? []), (c.meta_data!.statistics ?? {}) as Stats]);
    }
  return out;
}

describe('Parquet encoder', () => {
  it('nulls, empty strings, unicode, big ids, dates, numbers, booleans, labels, JSON; several row groups', async () => {
    const texts = ['', 'plain', 'עברית 👍🏽 \u{1F600}', '\uD800 lone', 'tab\tand\r\nlines', '\uFFFD after', null];
    const rows = Array.from({ length: 45 }, (_, i) =>
      post(i, {
        id: (2n ** 63n + BigInt(i)).toString(),
        published_at: [null, '2024-05-01T12:00:00Z', '2024-05-01', '2024-05-01T12:00:00.123+02:00', 'not a date', 1714564800000.4][i % 6],
        language: i % 3 === 0 ? null : ['en', 'de'][i % 2],
        content: {
          text: texts[i % texts.length],
          duration_seconds: i % 4 === 0 ? null : i / 4,
          media_urls: i % 2 ? [] : [`https://cdn/${i}.jpg`],
        },
        author: {
          id: String(9007199254740993n + BigInt(i)),
          verified: [true, false, null][i % 3],
          followers: i % 5 === 0 ? null : i * 2 ** 40,
        },
        engagement: { likes: i === 3 ? -5 : i, views: i === 4 ? 2 ** 52 + 1 : i },
        flags: { nsfw: i % 2 === 0, deleted: null },
        computed: {
          labels: {
            intent: { label: i % 2 ? 'buy' : 'sell', urgency: i % 4, confidence: i % 7 === 0 ? 'high' : 0.5 },
            sponsored: { p: i === 0 ? -0 : i / 50 },
          },
        },
      }),
    );
    const out = join(dir, 'types.parquet');
    const r = await exportParquet(rows, { out, rowGroupSize: 16, threads: 0 });
    expect(r).toMatchObject({ rows: 45, rowGroups: 3 });
    const back = await parquetReadObjects({ file: ab(out) });
    expect(back.length).toBe(45);
    const expectedTime = [
      null,
      Date.parse('2024-05-01T12:00:00Z'),
      Date.parse('2024-05-01T00:00:00Z'),
      Date.parse('2024-05-01T12:00:00.123+02:00'),
      null,
      1714564800000,
    ];
    for (let i = 0; i < 45; i++) {
      const b = back[i];
      expect(b.id).toBe((2n ** 63n + BigInt(i)).toString());
      expect(b['author.id']).toBe(String(9007199254740993n + BigInt(i)));
      const t = expectedTime[i % 6];
      expect(b.published_at).toEqual(t === null ? null : new Date(t));
      expect(b.language).toBe(i % 3 === 0 ? null : ['en', 'de'][i % 2]);
      const text = texts[i % texts.length];
      // a lone surrogate is written as U+FFFD (as TextEncoder writes it)
      expect(b['content.text']).toBe(text === null ? null : text.replace('\uD800', '\uFFFD'));
      expect(b['content.duration_seconds']).toBe(i % 4 === 0 ? null : i / 4);
      expect(b['content.media_urls']).toEqual(i % 2 ? [] : [`https://cdn/${i}.jpg`]);
      expect(b['author.verified']).toBe([true, false, null][i % 3]);
      expect(b['author.followers']).toBe(i % 5 === 0 ? null : BigInt(i) * 2n ** 40n);
      expect(b['engagement.likes']).toBe(i === 3 ? -5n : BigInt(i));
      expect(b['engagement.views']).toBe(i === 4 ? 2n ** 52n + 1n : BigInt(i));
      expect(b['flags.nsfw']).toBe(i % 2 === 0);
      expect(b['flags.deleted']).toBeNull();
      expect(b['labels.intent.label']).toBe(i % 2 ? 'buy' : 'sell');
      expect(b['labels.intent.urgency']).toBe(i % 4);
      expect(b['labels.intent.confidence']).toBe(i % 7 === 0 ? null : 0.5);
      expect(b['labels.sponsored.p']).toBe(i === 0 ? -0 : i / 50);
      expect(b.first_seen_at).toEqual(new Date(Date.UTC(2024, 0, 1) + i));
      const untyped: Record<string, unknown> = {};
      if (i % 6 === 4) untyped.published_at = 'not a date';
      if (i % 7 === 0) untyped['labels.intent.confidence'] = 'high';
      expect(b.untyped).toEqual(Object.keys(untyped).length ? untyped : null);
    }
    const st = stats(out);
    expect(st.get('engagement.likes')!.map((s) => [s.min_value, s.max_value])).toEqual([
      [-5n, 15n],
      [16n, 31n],
      [32n, 44n],
    ]);
    expect(st.get('engagement.views')![0].max_value).toBe(2n ** 52n + 1n);
    expect(st.get('flags.deleted')![0]).toMatchObject({ null_count: 16n });
    expect(st.get('flags.nsfw')![0]).toMatchObject({ min_value: false, max_value: true, null_count: 0n });
    expect(st.get('labels.intent.label')![0]).toMatchObject({ min_value: 'buy', max_value: 'sell' });
    expect(st.get('language')![0]).toMatchObject({ min_value: 'de', max_value: 'en', null_count: 6n });
    expect(st.get('labels.sponsored.p')![0]).toMatchObject({ min_value: -0, max_value: 0.3 });
    // ids are longer than the 16 bytes a bound keeps (hyparquet-writer truncates them): bounds, not values
    const ids = st.get('id')![2] as { min_value: string; max_value: string };
    expect(ids.min_value <= (2n ** 63n + 32n).toString() && ids.max_value >= (2n ** 63n + 44n).toString()).toBe(true);
  });

  it('strings in UTF-8 byte order for statistics (a supplementary character sorts after U+FFFD)', async () => {
    expect(compareUtf8('\uFFFD', '\u{1F600}')).toBeLessThan(0);
    expect('\uFFFD' < '\u{1F600}').toBe(false); // what UTF-16 order says
    expect(compareUtf8('a', 'ab')).toBeLessThan(0);
    expect(compareUtf8('b', 'ab')).toBeGreaterThan(0);
    expect(compareUtf8('é', 'é')).toBe(0);
    const rows = ['\u{1F600}x', '\uFFFDy', 'zz', 'ab'].map((u, i) => post(i, { author: { username: u } }));
    const out = join(dir, 'order.parquet');
    await exportParquet(rows, { out, threads: 0, columns: ['id', 'author.username'] });
    expect(stats(out).get('author.username')![0]).toMatchObject({ min_value: 'ab', max_value: '\u{1F600}x' });
  });

  it('dictionaries while few values repeat, PLAIN past them (also after a dictionary was started), pages of ~1 MiB with an offset index', async () => {
    // language: 3 words (dictionary); author.username: 300 distinct in 1,000 rows (dictionary, then too
    // many: plain from the 257th distinct value on); content.text: 1,000 texts of 3 KB (several pages)
    const n = 1000;
    const rows = Array.from({ length: n }, (_, i) =>
      post(i, {
        language: i % 10 === 0 ? null : ['en', 'fr', 'pt'][i % 3],
        author: { username: i < 300 ? `user${i % 4}` : `user${i}` },
        content: { text: `${i} ${'x'.repeat(3000)}` },
      }),
    );
    const out = join(dir, 'dict.parquet');
    await exportParquet(rows, { out, threads: 0, rowGroupSize: n, columns: ['id', 'language', 'author.username', 'content.text'] });
    const file = ab(out);
    const meta = parquetMetadata(file);
    const col = (name: string) => meta.row_groups[0].columns.find((c) => c.meta_data!.path_in_schema[0] === name)!;
    expect(col('language').meta_data!.dictionary_page_offset).toBeDefined();
    expect(col('language').meta_data!.encodings).toContain('RLE_DICTIONARY');
    expect(col('author.username').meta_data!.dictionary_page_offset).toBeUndefined();
    expect(col('id').meta_data!.dictionary_page_offset).toBeUndefined();
    const text = col('content.text');
    expect(text.offset_index_offset).toBeDefined();
    const idx = readOffsetIndex({ view: new DataView(file, Number(text.offset_index_offset), text.offset_index_length), offset: 0 });
    expect(idx.page_locations.length).toBeGreaterThan(2);
    expect(Number(idx.page_locations[0].offset)).toBe(Number(text.meta_data!.data_page_offset));
    const back = await parquetReadObjects({ file });
    expect(back.map((b) => b.language)).toEqual(rows.map((_r, i) => (i % 10 === 0 ? null : ['en', 'fr', 'pt'][i % 3])));
    expect(back.map((b) => b['author.username'])).toEqual(rows.map((_r, i) => (i < 300 ? `user${i % 4}` : `user${i}`)));
    expect(back.map((b) => b['content.text'])).toEqual(rows.map((_r, i) => `${i} ${'x'.repeat(3000)}`));
    expect(stats(out).get('author.username')![0]).toMatchObject({ min_value: 'user0', max_value: 'user999' });
  });

  it('a column of nulls only, a one-row group, workers byte for byte', async () => {
    const rows = Array.from({ length: 41 }, (_, i) =>
      post(i, { content: { text: i % 2 ? 'a' : 'b' } }, { tags: i === 40 ? ['last'] : [] }),
    );
    const one = join(dir, 'one.parquet');
    const two = join(dir, 'two.parquet');
    await exportParquet(rows, { out: one, threads: 0, rowGroupSize: 20 });
    await exportParquet(rows, { out: two, threads: 1, rowGroupSize: 20 });
    expect(readFileSync(one).equals(readFileSync(two))).toBe(true);
    const back = await parquetReadObjects({ file: ab(one) });
    expect(back.map((b) => b['labels.spam.p'])).toEqual(rows.map(() => null));
    expect(back[40].tags).toEqual(['last']);
    expect(back.map((b) => b['content.text'])).toEqual(rows.map((_r, i) => (i % 2 ? 'a' : 'b')));
  });

  it('a time in milliseconds past INT64 is kept in `untyped`, not an error that ends the export', async () => {
    const times = [-1e21, 1e19, 2 ** 63, -(2 ** 63), 2 ** 62, 1714564800000];
    const out = join(dir, 'far-times.parquet');
    const res = await exportParquet(
      times.map((t, i) => post(i, { published_at: t, author: { joined_at: -t } })),
      { out, threads: 0 },
    );
    expect(res.untypedValues).toBe(8);
    const back = await parquetReadObjects({ file: ab(out), columns: ['published_at', 'untyped'], utf8: true });
    expect(back.map((r) => r.untyped)).toEqual([
      { published_at: -1e21, 'author.joined_at': 1e21 },
      { published_at: 1e19, 'author.joined_at': -1e19 },
      { published_at: 2 ** 63, 'author.joined_at': -(2 ** 63) },
      { published_at: -(2 ** 63), 'author.joined_at': 2 ** 63 },
      null,
      null,
    ]);
    expect(back[5].published_at).toEqual(new Date(1714564800000));
  });
});
