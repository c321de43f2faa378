/**
 * The XLSX export read back by readers that share nothing with the writer: openpyxl (every cell,
 * compared with the rows it came from, on generated hostile text) and pandas (the analyst's read),
 * where Debian's python3 has them; the Zip64 path and sheet names (docs/export.md "XLSX").
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExportRow } from '../ports';
import { formatNumber } from './cells';
import { CSV_COLUMNS, resolveColumns, valuesRenderer } from './columns';
import { exportXlsx, XLSX_DATE_COLUMNS, XLSX_DATE_FORMAT, XLSX_MAX_CELL_CHARS } from './xlsx';
import { SHEET_NAME_MAX, SheetNames } from './xlsx-parts';
import { readXlsx, readZip } from './xlsx-test-zip';

const dir = mkdtempSync(join(tmpdir(), 'loupe-xlsx-readers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const works = (py: string, mods: string): boolean => spawnSync(py, ['-c', `import ${mods}`], { stdio: 'ignore' }).status === 0;
/** a python3 with openpyxl (the PATH's, else Debian's) */
const PY = ['python3', '/usr/bin/python3'].find((py) => works(py, 'openpyxl')) ?? null;
const PANDAS = PY !== null && works(PY, 'pandas');
const SKIP = PY ? '' : ' (skipped: no python3 with openpyxl; .ci/run installs python3-openpyxl)';

/** Every sheet, every cell as openpyxl reads it: dates as milliseconds since 1970 (UTC) with their format, formulas marked. */
const DUMP = `
import datetime, json, sys, zipfile, openpyxl
assert zipfile.ZipFile(sys.argv[1]).testzip() is None
wb = openpyxl.load_workbook(sys.argv[1])
def cell(c):
    if c.data_type == 'f': return {'formula': str(c.value)}
    if isinstance(c.value, datetime.datetime): return {'ms': round((c.value - datetime.datetime(1970, 1, 1)).total_seconds() * 1000), 'fmt': c.number_format}
    return c.value
json.dump([{'name': ws.title, 'rows': [[cell(c) for c in r] for r in ws.iter_rows()]} for ws in wb.worksheets], sys.stdout)
`;
type PyCell = string | number | boolean | null | { ms: number; fmt: string } | { formula: string };
function openpyxl(file: string): Array<{ name: string; rows: PyCell[][] }> {
  const r = spawnSync(PY!, ['-c', DUMP, file], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`openpyxl could not read ${file}: ${r.stderr}`);
  return JSON.parse(r.stdout) as Array<{ name: string; rows: PyCell[][] }>;
}

/**
 * What a cell must read as, from the rules in docs/export.md "XLSX" (written here again, not taken
 * from the writer): text cut at 32,767 UTF-16 units (a pair never split), then every character XML
 * 1.0 cannot hold → U+FFFD; numbers with more than 15 significant digits as their exact decimal
 * digits (the CSV's rule, cells.ts formatNumber); JSON for
 * objects; times as dates; empty text and null as an empty cell.
 */
function expected(column: string, v: unknown): PyCell {
  if (v === null || v === undefined) return null;
  if (
    XLSX_DATE_COLUMNS.has(column) &&
    (typeof v === 'number' || (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v))))
  ) {
    return { ms: typeof v === 'number' ? v : Date.parse(v), fmt: XLSX_DATE_FORMAT };
  }
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number(v.toPrecision(15)) === v && Math.abs(v) < 1e15 ? v : formatNumber(v);
  let s = typeof v === 'string' ? v : JSON.stringify(v);
  if (s === '') return null;
  if (s.length > XLSX_MAX_CELL_CHARS) s = s.slice(0, XLSX_MAX_CELL_CHARS - (/[\uD800-\uDBFF]/.test(s[XLSX_MAX_CELL_CHARS - 1]) ? 1 : 0));
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    const ok = c === 9 || c === 10 || c === 13 || (c >= 0x20 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd) || c >= 0x10000;
    out += ok ? ch : '\uFFFD';
  }
  return out;
}

// what hostile text is made of: C0 controls (XML 1.0 forbids all but TAB, LF, CR), U+FFFE/U+FFFF,
// lone surrogates, formula starters, markup, bidi controls, astral characters and ZWJ sequences
const PIECES = [
  '\u0000',
  '\u0001',
  '\u0007',
  '\u0008',
  '\u000B',
  '\u000C',
  '\u001B',
  '\u001F',
  '\t',
  '\n',
  '\r',
  '\r\n',
  '\uFFFE',
  '\uFFFF',
  '\uD800',
  '\uDFFF',
  '=',
  '+',
  '-',
  '@',
  "'",
  '=SUM(A1:A9)',
  '<',
  '>',
  '&',
  '&amp;',
  '"',
  ']]>',
  '\u202E',
  '\u202B',
  '\u2066',
  '\u200F',
  '\u061C',
  '𝔘',
  '😀',
  '👩‍👩‍👧',
  'عربي',
  'עברית',
  ' ',
  'x',
];
const hostile = fc
  .array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ unit: 'binary', maxLength: 4 })), { maxLength: 12 })
  .map((a) => a.join(''));
const longText = fc
  .tuple(
    fc.constantFrom('a', '😀', 'é'),
    fc.integer({ min: XLSX_MAX_CELL_CHARS - 3, max: XLSX_MAX_CELL_CHARS + 3 }),
    fc.constantFrom('', '😀'),
  )
  .map(([c, n, tail]) => c.repeat(n).slice(0, n) + tail);
const idArb = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map(String);
const count = fc.oneof(
  fc.constant(null),
  fc.nat(),
  fc.constant(Number('12345678901234567')),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: 0, max: 1 }),
);
const rowArb = fc
  .record({
    id: idArb,
    text: fc.oneof(hostile, longText),
    name: hostile,
    note: fc.oneof(fc.constant(null), hostile),
    tags: fc.array(hostile, { maxLength: 3 }),
    likes: count,
    views: count,
    verified: fc.option(fc.boolean()),
    published: fc.oneof(
      fc.constant('2024-05-01T12:34:56.789Z'),
      hostile,
      fc.integer({ min: 0, max: 4_102_444_800_000 }).map((ms) => new Date(ms).toISOString()),
    ),
    seen: fc.integer({ min: 0, max: 4_102_444_800_000 }),
  })
  .map((g): ExportRow => ({
    platform: 'micro_net',
    kind: 'post',
    id: g.id,
    record: {
      id: g.id,
      published_at: g.published,
      content: { text: g.text },
      author: { id: g.id, display_name: g.name, verified: g.verified },
      engagement: { likes: g.likes, views: g.views },
      ext: { raw: g.name },
    },
    firstSeenAt: g.seen,
    lastSeenAt: g.seen + 1,
    tags: g.tags,
    note: g.note,
    overrides: {},
  }));

describe('XLSX read back by openpyxl and pandas', () => {
  it.skipIf(!PY)(
    `openpyxl reads every cell as the rows hold it: generated hostile text, long text, ids, counts, dates; no formula${SKIP}`,
    async () => {
      const values = valuesRenderer(resolveColumns(undefined));
      let run = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(rowArb, { minLength: 1, maxLength: 20 }), async (rows) => {
          const out = join(dir, `p${run++}.xlsx`);
          await exportXlsx(rows, { out, forceZip64: run % 2 === 0 });
          const [sheet, ...others] = openpyxl(out);
          expect(others).toEqual([]);
          expect(sheet.name).toBe('Loupe export');
          expect(sheet.rows[0]).toEqual([...CSV_COLUMNS]);
          expect(sheet.rows).toHaveLength(rows.length + 1);
          rows.forEach((r, i) => {
            const vs = values(r);
            const want = CSV_COLUMNS.map((c, j) => expected(c, vs[j]));
            expect(sheet.rows[i + 1], `row ${i}`).toEqual(want);
          });
        }),
        { numRuns: 5, seed: 26 },
      );
    },
    120_000,
  );

  it.skipIf(!PANDAS)(
    `pandas (the docs' recipe) keeps 64-bit ids exact and reads the companion sheets${SKIP}`,
    async () => {
      const rows = fc.sample(rowArb, { numRuns: 150, seed: 1 });
      const out = join(dir, 'pandas.xlsx');
      await exportXlsx(rows, {
        out,
        extraSheets: [
          {
            name: 'History',
            columns: [
              { name: 'id', type: 'text' },
              { name: 'read_at', type: 'time' },
            ],
            rows: () => rows.map((r) => [r.id, r.firstSeenAt]),
          },
        ],
      });
      const code = `
import json, sys, pandas as pd
s = pd.read_excel(sys.argv[1], sheet_name=None, dtype={"id": str, "author.id": str, "parent_id": str}, keep_default_na=False, na_values=[""])
print(json.dumps({k: {"ids": v["id"].tolist(), "authors": v["author.id"].tolist() if "author.id" in v else [], "times": [round(t.timestamp() * 1000) for t in v.iloc[:, 1]] if k != "Loupe export" else []} for k, v in s.items()}))`;
      const r = spawnSync(PY!, ['-c', code, out], { encoding: 'utf8', maxBuffer: 1 << 26 });
      expect(r.status, r.stderr).toBe(0);
      const got = JSON.parse(r.stdout) as Record<string, { ids: string[]; authors: string[]; times: number[] }>;
      // Excel reserves "History": the sheet is named as the companion sheet is
      expect(Object.keys(got)).toEqual(['Loupe export', 'Metric history']);
      expect(got['Loupe export'].ids).toEqual(rows.map((x) => x.id));
      expect(got['Loupe export'].authors).toEqual(rows.map((x) => x.id));
      expect(got['Metric history'].times).toEqual(rows.map((x) => x.firstSeenAt));
    },
    60_000,
  );

  it('Zip64 (as a file past 4 GiB is written): the central directory, the Zip64 end record and its locator read back', async () => {
    const rows = fc.sample(rowArb, { numRuns: 30, seed: 2 });
    const a = join(dir, 'plain.xlsx');
    const b = join(dir, 'zip64.xlsx');
    await exportXlsx(rows, { out: a });
    await exportXlsx(rows, { out: b, forceZip64: true });
    const za = readZip(a);
    const zb = readZip(b);
    expect([...zb.keys()]).toEqual([...za.keys()]);
    for (const [k, v] of za) if (k !== 'docProps/core.xml') expect(zb.get(k)!.equals(v), k).toBe(true);
    expect(readXlsx(b)[0].rows).toEqual(readXlsx(a)[0].rows);
    if (PY) expect(openpyxl(b)).toEqual(openpyxl(a));
  });

  it('sheet names: legal for Excel whatever is asked (length, forbidden characters, quotes, "History", case-insensitive duplicates)', async () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.oneof(hostile, fc.constantFrom('History', 'history', "'x'", 'a'.repeat(40), '[]:*?/\\')),
            fc.integer({ min: 1, max: 12 }),
          ),
          { maxLength: 8 },
        ),
        (asks) => {
          const s = new SheetNames();
          for (const [name, part] of asks) s.add(name, part);
          expect(new Set(s.names.map((n) => n.toLowerCase())).size).toBe(s.names.length);
          for (const n of s.names) {
            expect(n.length).toBeGreaterThan(0);
            expect(n.length).toBeLessThanOrEqual(SHEET_NAME_MAX);
            /* eslint-disable no-control-regex */
            expect(n).not.toMatch(
              /[[\]:*?/\\\u0000-\u001F\uFFFE\uFFFF]|^'|'$|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/,
            );
            /* eslint-enable no-control-regex */
            expect(n.toLowerCase()).not.toBe('history');
          }
        },
      ),
      { seed: 26 },
    );
    const out = join(dir, 'names.xlsx');
    await exportXlsx([], { out, sheetName: "'Q3: a/b [draft]? — 2024 results of the survey'" });
    const want = 'Q3_ a_b _draft__ — 2024 results';
    expect(readXlsx(out).map((s) => s.name)).toEqual([want]);
    if (PY) expect(openpyxl(out).map((s) => s.name)).toEqual([want]);
  });
});
