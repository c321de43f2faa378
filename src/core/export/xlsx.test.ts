import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExportRow } from '../ports';
import { CSV_COLUMNS } from './columns';
import { columnLetters, exportXlsx, XLSX_DATE_FORMAT, XLSX_MAX_CELL_CHARS } from './xlsx';
import { readZip } from './xlsx-test-zip';

const dir = mkdtempSync(join(tmpdir(), 'loupe-xlsx-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HOSTILE = ['=1+1', '+cmd|calc', '-2+3', '@SUM(A1)', '\tx', "'quoted", 'a\u0000b\u0001c\uFFFF', 'line\r\nbreak', 'عربي 👩‍👩‍👧 emoji', '<b>&amp;</b>', '  spaced  '];

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
  return { platform: 'micro_net', kind: 'post', id, record, firstSeenAt: Date.UTC(2024, 4, 2, 8), lastSeenAt: Date.UTC(2024, 4, 3, 9, 30), tags: ['lead'], note: '=note', overrides: {} };
}

async function readBack(file: string): Promise<ExcelJS.Workbook> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(file);
  return wb;
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

    // reader 1: exceljs
    const wb = await readBack(out);
    const ws = wb.worksheets[0];
    const header = (ws.getRow(1).values as unknown[]).slice(1);
    expect(header).toEqual([...CSV_COLUMNS]);
    const col = (name: string): number => CSV_COLUMNS.indexOf(name) + 1;
    for (let i = 0; i < rows.length; i++) {
      const x = ws.getRow(i + 2);
      expect(x.getCell(col('id')).value).toBe(rows[i].id);
      expect(x.getCell(col('author.id')).value).toBe('9007199254740993');
      // 12345678901234567 has 17 significant digits: text, never a rounded number
      expect(x.getCell(col('engagement.views')).value).toBe('12345678901234568');
      expect(x.getCell(col('engagement.likes')).value).toBe(i);
      expect(x.getCell(col('author.verified')).value).toBe(true);
      expect(x.getCell(col('labels.sponsored.p')).value).toBe(0.25);
      expect(x.getCell(col('labels.sponsored.brand')).value).toBe('-brand');
      expect(x.getCell(col('author.display_name')).value).toBe('=HYPERLINK("http://evil")');
      expect(x.getCell(col('note')).value).toBe('=note');
      // eslint-disable-next-line no-control-regex
      const text = HOSTILE[i % HOSTILE.length].replace(/[\u0000-\u0008\uFFFF]/g, '\uFFFD');
      expect(x.getCell(col('content.text')).value).toBe(text);
      const published = x.getCell(col('published_at'));
      expect(published.value).toEqual(new Date('2024-05-01T12:34:56Z'));
      expect(published.numFmt).toBe(XLSX_DATE_FORMAT);
      expect(x.getCell(col('first_seen_at')).value).toEqual(new Date(Date.UTC(2024, 4, 2, 8)));
      expect(x.getCell(col('content.media_urls')).value).toBe('["https://cdn/a.jpg"]');
      for (let c = 1; c <= CSV_COLUMNS.length; c++) expect(x.getCell(c).formula, `${CSV_COLUMNS[c - 1]}`).toBeUndefined();
    }

    // reader 2: the zip's own XML, no exceljs
    const zip = readZip(out);
    const sheet = zip.get('xl/worksheets/sheet1.xml')!.toString('utf8');
    expect(sheet).not.toMatch(/<f[\s>/]/);
    // eslint-disable-next-line no-control-regex
    expect(sheet).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/);
    expect(sheet).toContain(`<c r="${columnLetters(col('id') - 1)}2" t="inlineStr"><is><t>${rows[0].id}</t></is></c>`);
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
    const wb = await readBack(out);
    expect(wb.worksheets.map((w) => w.rowCount)).toEqual([4, 4, 2]);
    const ids = wb.worksheets.flatMap((w) => w.getSheetValues().slice(2).map((v) => (v as unknown[])[1]));
    expect(ids).toEqual(rows.map((x) => x.id));
    for (const w of wb.worksheets) expect(w.getRow(1).getCell(1).value).toBe('id');
    expect(String(wb.worksheets[1].getRow(4).getCell(2).value).length).toBe(XLSX_MAX_CELL_CHARS);
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
