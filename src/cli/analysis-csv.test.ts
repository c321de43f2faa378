/**
 * The analysis tables as files (issue 26): CSV with the exports' cell rules (byte-order mark unless
 * asked not to, every non-empty cell quoted, formula neutralising, exact decimals) read back by an
 * independent CSV reader to the values written; JSON with the exports' naming (snake_case, ISO
 * times). Random tables with hostile text.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import type { FrequencyRow, FrequencyTable, Overperformance } from '../shared/analysis';
import { analysisJson, frequencyCsv, overperformanceCsv } from '../shared/analysis-csv';
import { formatNumber, unneutraliseCell } from '../shared/csv-cell';

const text = fc.oneof(
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom('=HYPERLINK("x")', '+1', '-2', '@cmd', '\tx', '\rx', "'q", 'a,b', 'a"b', 'line\r\nbreak', '\x1b[2J'),
);
const count = fc.nat({ max: 2 ** 40 });
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null });
const time = maybe(fc.integer({ min: 0, max: 4_102_444_800_000 }));
const row: fc.Arbitrary<FrequencyRow> = fc.record({
  term: text,
  count,
  occurrences: count,
  share: fc.double({ min: 0, max: 1, noNaN: true }),
  firstSeen: time,
  lastSeen: time,
  sums: fc.record({
    views: maybe(count),
    likes: maybe(count),
    comments: maybe(count),
    shares: maybe(count),
    saves: maybe(count),
    engagement: maybe(count),
  }),
  query: fc.constant({ terms: [{ field: 'words' as const, value: 'x' }] }),
  platform: fc.constant('photo_net'),
  authorId: maybe(fc.bigInt({ min: 0n, max: 2n ** 64n }).map(String)),
});
const table = fc.record({
  field: fc.constantFrom('words' as const, 'authors' as const),
  items: count,
  distinct: maybe(count),
  rows: fc.array(row, { maxLength: 8 }),
  basis: fc.constant('items' as const),
});

const iso = (t: number | null): string => (t === null ? '' : new Date(t).toISOString());
const num = (n: number | null): string => (n === null ? '' : formatNumber(n));

describe('analysis CSV', () => {
  it('has the exports cell rules and reads back to the values written', () => {
    fc.assert(
      fc.property(table, fc.boolean(), (t: FrequencyTable, bom) => {
        const csv = frequencyCsv(t, { bom });
        expect(csv.startsWith('\uFEFF')).toBe(bom);
        const records = parse(csv, { bom: true, relax_quotes: false }) as string[][];
        const header = records[0];
        expect(header.slice(0, 6)).toEqual(['term', 'items', 'occurrences', 'share', 'first_seen', 'last_seen']);
        expect(records).toHaveLength(t.rows.length + 1);
        t.rows.forEach((r, i) => {
          const got = records[i + 1].map(unneutraliseCell);
          expect(got.slice(0, 6)).toEqual([r.term, num(r.count), num(r.occurrences), num(r.share), iso(r.firstSeen), iso(r.lastSeen)]);
          if (t.field === 'authors') expect(got.slice(-2)).toEqual([r.platform, r.authorId ?? '']);
        });
        // every non-empty cell quoted, CRLF record ends; nothing a spreadsheet would evaluate
        for (const line of csv
          .replace(/^\uFEFF/, '')
          .split('\r\n')
          .slice(0, 1))
          expect(line).toMatch(/^"term"(,"[a-z_]+")+$/);
        for (const rec of records.slice(1)) for (const c of rec) expect(c).not.toMatch(/^[=+\-@\t\r]/);
      }),
      { numRuns: 300 },
    );
  });

  it('on a terminal: no control character inside a cell', () => {
    fc.assert(
      fc.property(table, (t) => {
        const csv = frequencyCsv(t, { terminal: true, bom: false });
        // eslint-disable-next-line no-control-regex
        expect(csv.replace(/\r\n/g, '')).not.toMatch(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202a-\u202e]/);
      }),
    );
  });

  it('overperformance: ids stay text, times ISO', () => {
    const r: Overperformance = {
      scored: 1,
      unscored: 0,
      rows: [
        {
          platform: 'photo_net',
          kind: 'post',
          id: '18446744073709551615',
          publishedAt: 0,
          author: '=evil',
          text: 'a\nb',
          url: null,
          views: null,
          engagement: 10,
          authorKey: 'k',
          baselineMedian: 2,
          baselinePosts: 5,
          score: 5,
        },
      ],
    };
    const rec = parse(overperformanceCsv(r), { bom: true }) as string[][];
    expect(rec[1]).toEqual([
      '5',
      '10',
      '2',
      '5',
      'photo_net',
      'post',
      '18446744073709551615',
      "'=evil",
      '1970-01-01T00:00:00.000Z',
      '',
      'a\nb',
    ]);
  });
});

describe('analysis JSON', () => {
  it('snake_case keys and ISO times, the query as it is', () => {
    fc.assert(
      fc.property(table, (t) => {
        const j = JSON.parse(JSON.stringify(analysisJson(t))) as { rows: Array<Record<string, unknown>> };
        const keys = (v: unknown, path: string[] = []): string[] =>
          v === null || typeof v !== 'object'
            ? []
            : Object.entries(v).flatMap(([k, x]) => (k === 'query' ? [k] : [k, ...keys(x, [...path, k])]));
        for (const k of keys(j)) expect(k).toMatch(/^[a-z0-9_]+$/);
        j.rows.forEach((r, i) => {
          expect(r.first_seen).toBe(t.rows[i].firstSeen === null ? null : iso(t.rows[i].firstSeen));
          expect(r.last_seen).toBe(t.rows[i].lastSeen === null ? null : iso(t.rows[i].lastSeen));
          expect(r.author_id).toBe(t.rows[i].authorId);
          expect(r.query).toEqual(t.rows[i].query);
          expect(r.term).toBe(t.rows[i].term);
        });
      }),
      { numRuns: 200 },
    );
  });
});
