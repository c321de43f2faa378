/**
 * A minimal ZIP and XLSX reader for the tests (not shipped): reads the central directory (Zip64
 * included) and inflates each entry with node:zlib (its size and CRC-32 checked against the directory's), and reads a workbook's sheets into values, so
 * an XLSX can be checked by code that shares nothing with the writer (besides openpyxl and pandas
 * in xlsx-readers.test.ts, where python3 has them).
 */
import { readFileSync } from 'node:fs';
import { crc32, inflateRawSync } from 'node:zlib';

const U32 = 0xffff_ffff;

export function readZip(file: string): Map<string, Buffer> {
  const b = readFileSync(file);
  let eocd = -1;
  for (let i = b.length - 22; i >= Math.max(0, b.length - 65_557); i--)
    if (b.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  if (eocd < 0) throw new Error('not a zip file: no end of central directory');
  let entries = b.readUInt16LE(eocd + 10);
  let p = b.readUInt32LE(eocd + 16);
  if (entries === 0xffff || p === U32) {
    // Zip64: the locator sits just before the end record and points at the Zip64 end record
    if (b.readUInt32LE(eocd - 20) !== 0x07064b50) throw new Error('Zip64 end record without its locator');
    const z = Number(b.readBigUInt64LE(eocd - 12));
    if (b.readUInt32LE(z) !== 0x06064b50) throw new Error('bad Zip64 end record');
    entries = Number(b.readBigUInt64LE(z + 32));
    p = Number(b.readBigUInt64LE(z + 48));
  }
  const out = new Map<string, Buffer>();
  for (let n = 0; n < entries; n++) {
    if (b.readUInt32LE(p) !== 0x02014b50) throw new Error('bad central directory entry');
    const method = b.readUInt16LE(p + 10);
    const crc = b.readUInt32LE(p + 16);
    let compressed = b.readUInt32LE(p + 20);
    let size = b.readUInt32LE(p + 24);
    const nameLen = b.readUInt16LE(p + 28);
    const extraLen = b.readUInt16LE(p + 30);
    const commentLen = b.readUInt16LE(p + 32);
    let local = b.readUInt32LE(p + 42);
    const name = b.subarray(p + 46, p + 46 + nameLen).toString('utf8');
    for (let x = p + 46 + nameLen; x < p + 46 + nameLen + extraLen;) {
      const id = b.readUInt16LE(x);
      const len = b.readUInt16LE(x + 2);
      if (id === 1) {
        let q = x + 4;
        const next = (): number => ((q += 8), Number(b.readBigUInt64LE(q - 8)));
        if (size === U32) size = next();
        if (compressed === U32) compressed = next();
        if (local === U32) local = next();
      }
      x += 4 + len;
    }
    if (b.readUInt32LE(local) !== 0x04034b50) throw new Error(`${name}: bad local header`);
    const lNameLen = b.readUInt16LE(local + 26);
    const lExtraLen = b.readUInt16LE(local + 28);
    const start = local + 30 + lNameLen + lExtraLen;
    const data = b.subarray(start, start + compressed);
    const body = method === 0 ? Buffer.from(data) : inflateRawSync(data);
    if (body.length !== size) throw new Error(`${name}: ${body.length} bytes inflated, the directory says ${size}`);
    if (crc32(body) !== crc) throw new Error(`${name}: its CRC-32 is not the directory's`);
    out.set(name, body);
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

const unescape = (s: string): string =>
  s.replace(/&(lt|gt|amp|quot|apos|#\d+|#x[0-9a-fA-F]+);/g, (_, e: string) =>
    e === 'lt'
      ? '<'
      : e === 'gt'
        ? '>'
        : e === 'amp'
          ? '&'
          : e === 'quot'
            ? '"'
            : e === 'apos'
              ? "'"
              : String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)),
  );
const attr = (tag: string, name: string): string | undefined => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
/** an attribute the format requires: its absence is a broken file */
function need(tag: string, name: string): string {
  const v = attr(tag, name);
  if (v === undefined) throw new Error(`${tag}: no ${name} attribute`);
  return v;
}

/** A cell's value: text, number, boolean, Date (a number in a date-formatted style), or null. */
export type XlsxValue = string | number | boolean | Date | null;
export interface XlsxSheet {
  name: string;
  /** rows from the first, each cell by column (missing cells null), trailing empties cut */
  rows: XlsxValue[][];
  /** any `<f>` element (a formula) seen */
  formulas: number;
}

function colIndex(ref: string): number {
  let n = 0;
  for (const c of /^[A-Z]*/.exec(ref)?.[0] ?? '') n = n * 26 + c.charCodeAt(0) - 64;
  if (n === 0) throw new Error(`cell reference ${ref} has no column`);
  return n - 1;
}

/** The workbook's sheets in order, read from the XML. */
export function readXlsx(file: string): XlsxSheet[] {
  const zip = readZip(file);
  const text = (p: string): string => zip.get(p)?.toString('utf8') ?? '';
  const rels = new Map(
    [...text('xl/_rels/workbook.xml.rels').matchAll(/<Relationship\b[^>]*>/g)].map((m) => [need(m[0], 'Id'), need(m[0], 'Target')]),
  );
  const styles = text('xl/styles.xml');
  const xfs = /<cellXfs[^>]*>([\s\S]*?)<\/cellXfs>/.exec(styles)?.[1] ?? '';
  const dateStyles = new Set(
    [...xfs.matchAll(/<xf\b[^>]*>/g)]
      .map((m, i) => [i, Number(attr(m[0], 'numFmtId'))] as const)
      .filter(([, f]) => (f >= 14 && f <= 22) || f >= 164)
      .map(([i]) => i),
  );
  const shared = [...text('xl/sharedStrings.xml').matchAll(/<si>([\s\S]*?)<\/si>/g)].map((m) =>
    [...m[1].matchAll(/<t[^>]*>([\s\S]*?)<\/t>/g)].map((t) => unescape(t[1])).join(''),
  );
  return [...text('xl/workbook.xml').matchAll(/<sheet\b[^>]*>/g)].map((m) => {
    const target = rels.get(need(m[0], 'r:id'));
    if (target === undefined) throw new Error(`${m[0]}: no relationship for it`);
    const xml = text(`xl/${target.replace(/^\/?xl\//, '')}`);
    const rows: XlsxValue[][] = [];
    for (const r of xml.matchAll(/<row\b([^>]*?)(?:\/>|>([\s\S]*?)<\/row>)/g)) {
      const row: XlsxValue[] = [];
      for (const c of (r[2] ?? '').matchAll(/<c\b([^>]*?)(?:\/>|>([\s\S]*?)<\/c>)/g)) {
        const [tag, body = ''] = [c[1], c[2]];
        const t = attr(tag, 't') ?? 'n';
        const v = /<v>([\s\S]*?)<\/v>/.exec(body)?.[1];
        let value: XlsxValue = null;
        if (t === 'inlineStr') value = [...body.matchAll(/<t[^>]*>([\s\S]*?)<\/t>/g)].map((x) => unescape(x[1])).join('');
        else if (t === 's') value = shared[Number(v)];
        else if (t === 'str') value = v === undefined ? null : unescape(v);
        else if (t === 'b') value = v === '1';
        else if (v !== undefined)
          value = dateStyles.has(Number(attr(tag, 's') ?? 0)) ? new Date(Math.round((Number(v) - 25_569) * 86_400_000)) : Number(v);
        row[colIndex(need(tag, 'r'))] = value;
      }
      rows[Number(attr(r[1], 'r')) - 1] = Array.from(row, (x) => x ?? null);
    }
    return { name: unescape(need(m[0], 'name')), rows: Array.from(rows, (x) => x ?? []), formulas: (xml.match(/<f[\s>/]/g) ?? []).length };
  });
}
