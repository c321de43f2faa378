/**
 * Sheet rows written from the stored record's bytes (xlsx-spans.ts, the XLSX workers) against the
 * one-thread path's row renderer over the parsed record (xlsxRowRenderer of the row as the archive
 * hands it): byte for byte, and the same count of cells cut at 32,767 characters, over generated
 * rows (hostile and unicode text, markup, U+FFFE / U+FFFF, white space at the ends, big ids,
 * numbers with exponents, nested values, odd shapes, tags, notes, overrides) and over stored texts
 * JSON.stringify would not write, which must come out as JSON.parse reads them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bytesRow, type BytesTuple } from './rid-rows';
import { row, tuple } from './test-rows';
import { CellWriter, xlsxRowRenderer } from './xlsx-cells';
import { DATE_STYLE } from './xlsx-parts';
import { beginXml, xlsxSpanRenderer, xmlSoFar } from './xlsx-spans';

/** stored texts another writer could have made of the same record */
const ODD: Array<(json: string) => string> = [
  (j) => j,
  (j) => (j.startsWith('{') ? JSON.stringify(JSON.parse(j), null, 1) : j),
  (j) => (j.length > 2 && j.startsWith('{') ? `{"odd":[1.50,1E5,-0,0.0000001,123456789012345678901,"\\/\\u0041"],${j.slice(1)}` : j),
  (j) => (j.length > 2 && j.startsWith('{') ? `{"9":1,"b":{"2":"x","a":[]},${j.slice(1)}` : j),
  (j) => j.replaceAll(/:(\d+)([,}])/g, ':$1.0$2'),
  (j) => j.replaceAll('"text":"', '"text":"\\u0041\\/'),
  (j) => j.replaceAll(/"(views|likes|followers|p|a)":-?[\d.]+/g, '"$1":9007199254740993'),
];

/** texts where the byte path has its own rules */
const XML_TEXT = [
  'a & b < c > d',
  '<b>&amp;</b>',
  'ends with a space ',
  ' starts with one',
  '\u00a0no-break space first',
  'last no-break\u00a0',
  'ideographic\u3000',
  'x\uFFFEy\uFFFFz',
  '\uFFFF',
  'line\u2028separator',
  'ok',
  'é',
  '2024-05-01T12:34:56Z',
  '2024-05-01',
  '12345678901234567',
  'x'.repeat(32_766) + '&',
  'x'.repeat(32_768),
  'é'.repeat(20_000),
];

function both(rows: BytesTuple[], columns?: string[]): { old: string; spans: string; cut: [number, number] } {
  const a = new CellWriter(DATE_STYLE);
  const render = xlsxRowRenderer(columns, a);
  const old = rows.map((t, i) => render(bytesRow(t), i + 2)).join('');
  const b = new CellWriter(DATE_STYLE);
  const spans = xlsxSpanRenderer(columns, b);
  beginXml();
  rows.forEach((t, i) => spans(t, i + 2));
  return { old, spans: xmlSoFar().toString('utf8'), cut: [a.truncated, b.truncated] };
}

describe('XLSX rows from the stored bytes', () => {
  const subset = [
    'extra',
    'labels.sponsored.p',
    'id',
    'published_at',
    'ext',
    'author.followers',
    'first_seen_at',
    'content.text',
    'tags',
    'checked_at',
    'note',
    'missing_since',
  ];
  const withText = row.chain((r) =>
    fc.record({ t: fc.constantFrom(...XML_TEXT), at: fc.constantFrom('text', 'published_at', 'url', 'language') }).map(({ t, at }) => {
      const rec = typeof r.record === 'object' && r.record !== null && !Array.isArray(r.record) ? { ...r.record } : {};
      if (at === 'text') rec.content = { ...(typeof rec.content === 'object' && rec.content !== null ? rec.content : {}), text: t };
      else rec[at] = t;
      return { ...r, record: rec };
    }),
  );

  it('writes what the renderer over the parsed record writes, for every column and for a subset', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(row, withText), { minLength: 1, maxLength: 8 }), fc.nat(ODD.length - 1), (rows, odd) => {
        const tuples = rows.map((r) => tuple(r, ODD[odd](JSON.stringify(r.record ?? null))));
        for (const cols of [undefined, subset]) {
          const { old, spans, cut } = both(tuples, cols);
          expect(spans).toBe(old);
          expect(cut[1]).toBe(cut[0]);
        }
      }),
      { numRuns: 300 },
    );
  });
});
