import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExportRow } from '../ports';
import { CSV_COLUMNS } from './columns';
import { columnLetters, exportXlsx, XLSX_DATE_FORMAT, XLSX_MAX_CELL_CHARS } from './xlsx';
import { readXlsx, readZip } from './xlsx-test-zip';

const dir = mkdtempSync(join(tmpdir(), 'loupe-xlsx-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HOSTILE = [
  '=1+1',
  '+cmd|calc',
  '-2+3',
  '@SUM(A1)',
  '\tx',
  "'quoted",
  'a\u0000b\u0001c\uFFFF',
  'line\r\nbreak',
  'عربي 👩‍👩‍👧 emoji',
  '<b>&amp;</b>',
  '  spaced  ',
];

function row(i: number, over: Partial<Record<string, unknown>> = {}): ExportRow {
  const id = (18_446_744_073_709_551_000n + BigInt(i)).toString();
  const record: Record<string, unknown> = {
    id,
    url: `https://micro.example/u/status/${id}`,
    published_at: '2024-05-01T12:34:56Z',
    content: { text: HOSTILE[i % HOSTILE.length], media_urls: ['https://cdn/a.jpg'] },
    author: { id: '9007199254740993', username: `user${i}`, display_name: '=HYPERLINK("http://evil")', followers: 1234, verified: true },
    engagement: { likes: i, views: Number('12345678901234567'), shares: null }, // 17 digits, as JSON.parse reads them
    computed: { labels: { sponsored: { p: 0.25, disclosed: false, brand: '-brand' } } },
    ...over,
  };
  return {
    platform: 'micro_net',
    kind: 'post',
    id,
    record,
    firstSeenAt: Date.UTC(2024, 4, 2, 8),
    lastSeenAt: Date.UTC(2024, 4, 3, 9, 30),
    tags: ['lead'],
    note: '=note',
    overrides: {},
  };
}

describe('XLSX export', () => {
  it('column letters', () => {
    expect([0, 25, 26, 27, 51, 52, 701, 702].map(columnLetters)).toEqual(['A', 'Z', 'AA', 'AB', 'AZ', 'BA', 'ZZ', 'AAA']);
  });

  it('ids and long numbers are text, hostile text stays plain text, dates are dates, no formula anywhere (two readers)', async () => {
    const rows = Array.from({ length: 30 }, (_, i) => row(i));
    const out = join(dir, 'a.xlsx');
    const r = await exportXlsx(rows, { out });
    expect(r).toMatchObject({ rows: 30, sheets: 1, truncatedCells: 0 });

    // reader 1: the workbook's cells (openpyxl and pandas read it too: xlsx-readers.test.ts)
    const [ws] = readXlsx(out);
    expect(ws.name).toBe('Loupe export');
    expect(ws.formulas).toBe(0);
    expect(ws.rows[0]).toEqual([...CSV_COLUMNS]);
    const col = (name: string): number => CSV_COLUMNS.indexOf(name);
    for (let i = 0; i < rows.length; i++) {
      const x = ws.rows[i + 1];
      expect(x[col('id')]).toBe(rows[i].id);
      expect(x[col('author.id')]).toBe('9007199254740993');
      // 12345678901234567 has 17 significant digits: text, never a rounded number
      expect(x[col('engagement.views')]).toBe('12345678901234568');
      expect(x[col('engagement.likes')]).toBe(i);
      expect(x[col('author.verified')]).toBe(true);
      expect(x[col('labels.sponsored.p')]).toBe(0.25);
      expect(x[col('labels.sponsored.brand')]).toBe('-brand');
      expect(x[col('author.display_name')]).toBe('=HYPERLINK("http://evil")');
      expect(x[col('note')]).toBe('=note');
      // eslint-disable-next-line no-control-regex
      const text = HOSTILE[i % HOSTILE.length].replace(/[\u0000-\u0008\uFFFF]/g, '\uFFFD');
      expect(x[col('content.text')]).toBe(text);
      expect(x[col('published_at')]).toEqual(new Date('2024-05-01T12:34:56Z'));
      expect(x[col('first_seen_at')]).toEqual(new Date(Date.UTC(2024, 4, 2, 8)));
      expect(x[col('content.media_urls')]).toBe('["https://cdn/a.jpg"]');
    }

    // reader 2: the sheet's XML itself
    const zip = readZip(out);
    const sheet = zip.get('xl/worksheets/sheet1.xml')!.toString('utf8');
    expect(sheet).not.toMatch(/<f[\s>/]/);
    // eslint-disable-next-line no-control-regex
    expect(sheet).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/);
    expect(sheet).toContain(`<c r="${columnLetters(col('id'))}2" t="inlineStr"><is><t>${rows[0].id}</t></is></c>`);
    expect(sheet).toContain('<t>=1+1</t>');
    expect(sheet).toContain('<t>&lt;b&gt;&amp;amp;&lt;/b&gt;</t>');
    expect((sheet.match(/<row /g) ?? []).length).toBe(31);
    for (const [name, data] of zip) if (name.endsWith('.xml')) expect(data.toString('utf8'), name).not.toMatch(/<f[\s>/]/);
    expect(zip.get('xl/styles.xml')!.toString('utf8')).toContain(`formatCode="${XLSX_DATE_FORMAT}"`);
  });

  it('a new sheet after the row limit, each with its header; a cell over 32,767 characters is cut and counted', async () => {
    const rows = Array.from({ length: 7 }, (_, i) => row(i));
    rows[5] = row(5, { content: { text: 'x'.repeat(XLSX_MAX_CELL_CHARS + 10) } });
    const out = join(dir, 'b.xlsx');
    const r = await exportXlsx(rows, { out, rowsPerSheet: 3, columns: ['id', 'content.text'] });
    expect(r).toMatchObject({ rows: 7, sheets: 3, truncatedCells: 1 });
    const sheets = readXlsx(out);
    expect(sheets.map((w) => [w.name, w.rows.length])).toEqual([
      ['Loupe export', 4],
      ['Loupe export (2)', 4],
      ['Loupe export (3)', 2],
    ]);
    const ids = sheets.flatMap((w) => w.rows.slice(1).map((v) => v[0]));
    expect(ids).toEqual(rows.map((x) => x.id));
    for (const w of sheets) expect(w.rows[0]).toEqual(['id', 'content.text']);
    expect(String(sheets[1].rows[3][1]).length).toBe(XLSX_MAX_CELL_CHARS);
    // a sheet filled to its last row is followed by no empty sheet
    const full = await exportXlsx(rows.slice(0, 6), { out: join(dir, 'b2.xlsx'), rowsPerSheet: 3, columns: ['id'] });
    expect(full.sheets).toBe(2);
    expect(readXlsx(join(dir, 'b2.xlsx')).map((w) => w.rows.length)).toEqual([4, 4]);
  });

  it('cancel leaves no file behind', async () => {
    const ac = new AbortController();
    function* many(): Generator<ExportRow> {
      for (let i = 0; i < 50_000; i++) {
        if (i === 2000) ac.abort();
        yield row(i);
      }
    }
    const out = join(dir, 'c.xlsx');
    await expect(exportXlsx(many(), { out, signal: ac.signal })).rejects.toThrow();
    expect(readdirSync(dir).filter((f) => f.includes('c.xlsx'))).toEqual([]);
  });
});
