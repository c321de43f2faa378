/**
 * Parquet row groups written from the stored record's bytes (parquet-spans.ts; issue 30) against
 * the same rows added from their parsed records (the path they replace in the export workers):
 * the group's bytes and metadata are the same, over generated rows (big ids as text, unicode and
 * lone surrogates, control characters, nulls, missing fields, values of the wrong type, nested
 * arrays, odd shapes, tags, notes, overrides), over stored texts JSON.stringify would not write,
 * and over groups whose values repeat (dictionaries) or do not (PLAIN, statistics). The number and
 * time readers are checked against JSON.parse and Date.parse on their own.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ExportRow } from '../ports';
import { GroupEncoder, parquetLayout, type EncodedGroup } from './parquet-group';
import { isoBytesMs, parquetSpanAdder, spanNumber, unescape, unescapedBytes } from './parquet-spans';
import { bytesRow, type BytesTuple } from './rid-rows';
import { row, tuple } from './test-rows';

const enc = new TextEncoder();

/** stored texts another writer could have made of the same record (render-spans.test.ts has the same) */
const ODD: Array<(json: string) => string> = [
  (j) => j,
  (j) => (j.startsWith('{') ? JSON.stringify(JSON.parse(j), null, 1) : j),
  (j) => (j.startsWith('{"') ? `{"url":"first","language":1.50,${j.slice(1)}` : j),
  (j) => (j.length > 2 && j.startsWith('{') ? `{"odd":[1.50,1E5,-0,0.0000001,123456789012345678901,"\\/\\u0041"],${j.slice(1)}` : j),
  (j) => j.replaceAll(/"author":\{(?!\})/g, '"author":{"7":"\\u00e9","x":0.10,'),
  (j) => j.replaceAll(/:(\d+)([,}])/g, ':$1.0$2'),
  (j) => j.replaceAll('"text":"', '"text":"\\u0041\\/'),
  (j) => j.replaceAll(/"(views|likes|followers|p|a)":-?[\d.]+/g, '"$1":9007199254740993'),
];

/** plain records of the shape the archive holds most: typed values in place, words that repeat */
const word = fc.constantFrom('en', 'de', 'photo_net', 'short', 'buy', 'é', '👨‍👩‍👧', 'x"y', 'a\\b', '9007199254740993', '');
const time = fc.oneof(
  fc.date({ min: new Date(-62167219200000), max: new Date(253402300799999), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString().replace(/\.\d{3}Z$/, 'Z')),
  fc.constantFrom(
    '2024-02-29T00:00:00Z',
    '2023-02-29T00:00:00Z',
    '2024-13-01T00:00:00Z',
    '2024-05-01T24:00:00Z',
    '2024-05-01',
    '0099-01-01T00:00:00Z',
  ),
);
const count = fc.oneof(fc.nat(), fc.integer({ min: -1e15, max: 1e15 }), fc.constantFrom(0, 2 ** 53 + 2, 1e21, 0.5, -3, 12345678901234568));
const plainRow: fc.Arbitrary<ExportRow> = fc
  .record({
    id: fc.bigInt({ min: 0n, max: 2n ** 70n }).map(String),
    language: fc.option(word),
    published_at: fc.option(time),
    views: fc.option(count),
    p: fc.option(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.double({ min: 0, max: 1, noNaN: true }))),
    urgency: fc.option(fc.oneof(fc.integer({ min: 0, max: 4 }), fc.constant(2.5))),
    text: fc.option(fc.oneof(word, fc.string({ unit: 'grapheme', maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 8 }))),
    verified: fc.option(fc.oneof(fc.boolean(), word)),
    seen: fc.oneof(fc.integer({ min: 0, max: 4102444800000 }), fc.constantFrom(NaN, 1.5, -62167219200001, 253402300800000)),
    tags: fc.array(word, { maxLength: 2 }),
    checked: fc.option(fc.oneof(fc.integer({ min: 0, max: 4102444800000 }), fc.constantFrom(-62167219200001, 253402300800000))),
    missing: fc.option(fc.integer({ min: 0, max: 4102444800000 })),
  })
  .map((x) => ({
    platform: 'photo_net',
    kind: 'post',
    id: x.id,
    record: {
      id: x.id,
      language: x.language,
      published_at: x.published_at,
      author: { id: x.id, verified: x.verified, joined_at: x.published_at, username: x.language },
      content: { text: x.text, media_urls: x.tags },
      engagement: { views: x.views, likes: x.p },
      computed: { labels: { intent: { label: x.language, confidence: x.p, urgency: x.urgency } }, relevance: { p: x.p } },
    },
    firstSeenAt: x.seen,
    lastSeenAt: x.seen,
    checkedAt: x.checked,
    missingSince: x.missing,
    tags: x.tags,
    note: x.language,
    overrides: {},
  }));

const plain = (g: EncodedGroup): unknown =>
  JSON.parse(
    JSON.stringify({ ...g, bytes: Buffer.from(g.bytes).toString('base64') }, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)),
  );

function both(tuples: BytesTuple[], columns?: string[]): [unknown, unknown] {
  const layout = parquetLayout(columns);
  const parsed = new GroupEncoder(layout, tuples.length);
  for (const t of tuples) parsed.add(bytesRow(t));
  const spans = new GroupEncoder(layout, tuples.length);
  const add = parquetSpanAdder(layout);
  for (const t of tuples) add(spans, t);
  return [plain(parsed.finish()), plain(spans.finish())];
}

describe('Parquet rows from the stored bytes', () => {
  it('unescapes a stored string to the bytes TextEncoder gives for JSON.parse of it, or declines a \\u escape', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.string({ unit: 'grapheme', maxLength: 20 }),
      fc.constantFrom('a\\b', 'x"y', '\n\t\r\b\f/'),
    );
    fc.assert(
      fc.property(text, fc.boolean(), (str, slashes) => {
        const json = slashes ? JSON.stringify(str).replaceAll('/', '\\/') : JSON.stringify(str);
        const b = enc.encode(`xy${json}z`);
        const n = unescape(b, 3, b.length - 2);
        if (n < 0) expect(/(^|[^\\])(\\\\)*\\u/.test(json)).toBe(true);
        else expect(Buffer.from(unescapedBytes().subarray(0, n)).equals(Buffer.from(enc.encode(JSON.parse(json) as string)))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

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

  it('encode the group the parsed rows encode: generated rows, odd stored texts, every column and a subset', () => {
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 12 }), fc.nat(ODD.length - 1), fc.nat(3), (rows, odd, copies) => {
        // repeated rows make dictionaries; the rest stay PLAIN
        const all = rows.flatMap((r) => Array.from({ length: 1 + (copies % 3) }, () => r));
        const tuples = all.map((r) => tuple(r, ODD[odd](JSON.stringify(r.record ?? null))));
        for (const cols of [undefined, subset]) {
          const [parsed, spans] = both(tuples, cols);
          expect(spans).toEqual(parsed);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('encode the group the parsed rows encode: plain rows as the archive holds them, dictionaries and PLAIN', () => {
    fc.assert(
      fc.property(fc.array(plainRow, { minLength: 1, maxLength: 400 }), (rows) => {
        const tuples = rows.map((r) => tuple(r, JSON.stringify(r.record)));
        const [parsed, spans] = both(tuples);
        expect(spans).toEqual(parsed);
      }),
      { numRuns: 40 },
    );
  });

  it('read numbers as JSON.parse does and ISO times as Date.parse does', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.double({ min: -1e6, max: 1e6, noNaN: true })),
        (x) => {
          const s = String(x);
          // Span.Number: at most 15 significant digits, no exponent, not -0 (record-scan.ts)
          if (/e|^-0$/.test(s) || s.replace(/^-?0*\.?0*|\./g, '').length > 15) return;
          expect(Object.is(spanNumber(enc.encode(s), 0, s.length), JSON.parse(s))).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(
        fc.oneof(
          time,
          fc.string({ unit: fc.constantFrom(...'0123456789-:TZ.'), minLength: 19, maxLength: 25 }),
          fc
            .tuple(fc.nat(9999), fc.nat(14), fc.nat(32), fc.nat(25), fc.nat(61), fc.nat(61), fc.nat(999))
            .map(([y, mo, d, h, mi, s, ms]) => `${p(y, 4)}-${p(mo, 2)}-${p(d, 2)}T${p(h, 2)}:${p(mi, 2)}:${p(s, 2)}.${p(ms, 3)}Z`),
        ),
        (s) => {
          const ms = isoBytesMs(enc.encode(s), 0, s.length);
          if (ms === ms) expect(ms).toBe(Date.parse(s));
        },
      ),
      { numRuns: 3000 },
    );
  });
});

const p = (n: number, w: number): string => String(n).padStart(w, '0');
