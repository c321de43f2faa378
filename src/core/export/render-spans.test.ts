/**
 * CSV records written from the stored record's bytes (csv-spans.ts, record-scan.ts; issue 30)
 * against the renderer over the parsed record they replace in the export workers
 * (csvBytesRenderer of the row as the archive hands it): byte for byte, over generated rows (big
 * ids as text, unicode, control characters, formula starts, nulls, nested arrays, odd shapes,
 * tags, notes, overrides) and over stored texts JSON.stringify would not write (white space, a
 * key twice, escapes it does not use, numbers as other writers write them), which must come out
 * as JSON.parse reads them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ExportRow } from '../ports';
import { csvBytesRenderer, resolveColumns } from './columns';
import { beginBytes, takeBytes } from './csv-bytes';
import { csvSpanRenderer } from './csv-spans';
import { scanRecord } from './record-scan';
import { bytesRow, type BytesTuple } from './rid-rows';
import { row, tuple } from './test-rows';

const enc = new TextEncoder();

/** stored texts another writer could have made of the same record */
const ODD: Array<(json: string) => string> = [
  (j) => j,
  (j) => (j.startsWith('{') ? JSON.stringify(JSON.parse(j), null, 1) : j),
  (j) => (j.startsWith('{"') ? `{"url":"first","language":1.50,${j.slice(1)}` : j),
  (j) => (j.length > 2 && j.startsWith('{') ? `{"odd":[1.50,1E5,-0,0.0000001,123456789012345678901,"\\/\\u0041"],${j.slice(1)}` : j),
  (j) => (j.length > 2 && j.startsWith('{') ? `{"9":1,"b":{"2":"x","a":[]},${j.slice(1)}` : j),
  (j) => j.replaceAll(/"author":\{(?!\})/g, '"author":{"7":"\\u00e9","x":0.10,'),
  (j) => j.replaceAll(/"ext":\{(?!\})/g, '"ext":{"1":2,').replaceAll(/"labels":\{(?!\})/g, '"labels":{"3":{"p":1e2},'),
  (j) => j.replaceAll(/:(\d+)([,}])/g, ':$1.0$2'),
  (j) => j.replaceAll('"text":"', '"text":"\\u0041\\/'),
  (j) =>
    j
      .replaceAll(/"(views|likes|followers|p|a)":-?[\d.]+/g, '"$1":9007199254740993')
      .replaceAll(/"(comments|x|confidence)":[\d.]+/g, '"$1":0.30000000000000001'),
];

function both(rows: BytesTuple[], columns?: string[]): [Buffer, Buffer] {
  const defs = resolveColumns(columns);
  const spans = csvSpanRenderer(columns);
  beginBytes();
  for (const t of rows) csvBytesRenderer(defs)(bytesRow(t));
  const old = Buffer.from(takeBytes());
  beginBytes();
  for (const t of rows) spans(t);
  return [old, Buffer.from(takeBytes())];
}

describe('CSV records from the stored bytes', () => {
  const subset = [
    'extra',
    'labels.sponsored.p',
    'id',
    'ext',
    'missing_since',
    'coauthors',
    'author.followers',
    'first_seen_at',
    'content.text',
    'tags',
    'checked_at',
  ];

  it('writes what the renderer over the parsed record writes, for every column and for a subset', () => {
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 10 }), fc.nat(ODD.length - 1), (rows, odd) => {
        const tuples = rows.map((r) => tuple(r, ODD[odd](JSON.stringify(r.record ?? null))));
        for (const cols of [undefined, subset]) {
          const [old, spans] = both(tuples, cols);
          expect(spans.toString()).toBe(old.toString());
          expect(spans.equals(old)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('reads keys in any order: the scan guesses each next key from the last record, and a wrong guess costs only time', () => {
    /** the object with its keys in an order drawn from `r`, at every depth, and keys one letter off the known ones beside them */
    const shuffled = (v: unknown, r: () => number): unknown => {
      if (Array.isArray(v)) return v.map((x) => shuffled(x, r));
      if (v === null || typeof v !== 'object') return v;
      const entries = Object.entries(v).map(([k, x]): [string, unknown] => [k, shuffled(x, r)]);
      for (const [k] of [...entries]) if (r() < 0.1) entries.push([r() < 0.5 ? `${k}x` : k.slice(0, -1) || 'q', 1]);
      for (let i = entries.length - 1; i > 0; i--) {
        const j = Math.floor(r() * (i + 1));
        [entries[i], entries[j]] = [entries[j], entries[i]];
      }
      return Object.fromEntries(entries);
    };
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 10 }), fc.nat(), fc.boolean(), (rows, seed, same) => {
        let x = seed;
        const r = (): number => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32;
        // `same`: every row's keys in one order (the guesses hit), else each row in its own
        const order = r();
        const tuples = rows.map((t) => {
          if (same) x = Math.floor(order * 2 ** 32);
          const rec = shuffled(t.record ?? null, r);
          return tuple({ ...t, record: rec as ExportRow['record'] }, JSON.stringify(rec));
        });
        for (const cols of [undefined, subset]) {
          const [old, spans] = both(tuples, cols);
          expect(spans.toString()).toBe(old.toString());
        }
      }),
      { numRuns: 200 },
    );
  });

  it('reads the stored text itself, not a parsed record, when JSON.stringify wrote it', () => {
    const rec = {
      id: '1234567890123456789012',
      url: '=HYPERLINK("x")',
      content: { text: 'a "quote", é 👨‍👩‍👧 \u0007 and a\nbreak', media_urls: ['https://a/1.jpg', 'x"y'] },
      author: { id: '9007199254740993', followers: 12, verified: true, bio: null, ext: { a: 1 } },
      engagement: { views: 1e21, likes: -3, comments: 0.5, saves: 1e-7 },
      ext: { coauthors: [{ id: '1' }], music: 'm' },
      computed: { labels: { sponsored: { p: 0.25, evidence: 'x' }, intent: null }, relevance: null },
      unknown: [[1, [null]], { '2': 'two' }],
    };
    const raw = JSON.stringify(rec);
    expect(scanRecord(enc.encode(raw))).toBe(true);
    const r: ExportRow = {
      platform: 'p',
      kind: 'post',
      id: rec.id,
      record: rec,
      firstSeenAt: 0,
      lastSeenAt: 1,
      tags: [],
      note: null,
      overrides: {},
    };
    const [old, spans] = both([tuple(r, raw)]);
    expect(spans.toString()).toBe(old.toString());
    expect(spans.toString()).toContain('"\'=HYPERLINK(""x"")"');
    expect(spans.toString()).toContain(
      '"{""author"":{""ext"":{""a"":1}},""computed"":{""labels"":{""sponsored"":{""evidence"":""x""},""intent"":null},""relevance"":null},""unknown"":[[1,[null]],{""2"":""two""}]}"',
    );
    // a text JSON.stringify would not write is left to JSON.parse
    expect(scanRecord(enc.encode(JSON.stringify(rec, null, 1)))).toBe(false);
    expect(scanRecord(enc.encode(`{"url":"a",${raw.slice(1)}`))).toBe(false);
  });
});
