/**
 * Small typed tables written beside an export (issue 29, docs/export.md "History and annotations"):
 * the long-format metric history and the annotations with their authors, and the tables of a dataset
 * bundle. One column list with types, written as CSV (the export's cell rules: RFC 4180, every cell
 * quoted, formula neutralisation, times ISO 8601), JSON / JSONL (one object per row, times ISO,
 * ids text), Parquet (typed: text, INT64, TIMESTAMP in ms, JSON; table-parquet.ts) or an XLSX sheet (xlsx.ts
 * `extraSheets`). Streamed: rows are pulled one at a time, written in chunks; a file is written under
 * a temporary name and renamed when complete.
 */
import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { cell, csvRecord } from './cells';
import { abortError } from './abort';
import type { ColumnType, Table } from './table-types';
import { freshPartial } from '../partial-files';

export type { ColumnType, Table, TableColumn } from './table-types';
export type TableFormat = 'csv' | 'json' | 'jsonl' | 'parquet';
export interface TableResult {
  path: string;
  rows: number;
  bytes: number;
  /** the file's SHA-256 (hex), taken as it was written */
  sha256: string;
}

const iso = (v: unknown): string | null => (typeof v === 'number' && Number.isFinite(v) ? new Date(v).toISOString() : null);

/** A value as the JSON / JSONL table writes it (times ISO, JSON columns as their value). */
function jsonValue(t: ColumnType, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (t === 'time') return iso(v);
  return v;
}

/** A value as a CSV cell gets it before the cell rules (times ISO). */
function csvValue(t: ColumnType, v: unknown): unknown {
  if (t === 'time') return iso(v);
  return v;
}

/** Synchronous chunked file writing under a temporary name (tables are written between the awaits of an export). */
class TableFile {
  readonly finalPath: string;
  private readonly tmp: string;
  private fd: number;
  private buf: string[] = [];
  private size = 0;
  private readonly hash = createHash('sha256');
  bytes = 0;
  constructor(out: string) {
    this.finalPath = resolve(out);
    this.tmp = freshPartial(this.finalPath);
    this.fd = openSync(this.tmp, 'wx');
  }
  write(s: string): void {
    this.buf.push(s);
    this.size += s.length;
    if (this.size >= 1 << 16) this.flush();
  }
  bytesOut(b: Uint8Array): void {
    this.flush();
    this.hash.update(b);
    writeSync(this.fd, b);
    this.bytes += b.length;
  }
  flush(): void {
    if (this.buf.length === 0) return;
    const b = Buffer.from(this.buf.join(''), 'utf8');
    this.hash.update(b);
    writeSync(this.fd, b);
    this.bytes += b.length;
    this.buf = [];
    this.size = 0;
  }
  /** the file complete under its name, and its SHA-256 */
  done(): { path: string; sha256: string } {
    this.flush();
    fsyncSync(this.fd);
    closeSync(this.fd);
    renameSync(this.tmp, this.finalPath);
    return { path: this.finalPath, sha256: this.hash.digest('hex') };
  }
  abandon(): void {
    try {
      closeSync(this.fd);
    } catch {}
    try {
      unlinkSync(this.tmp);
    } catch {}
  }
}

/** Write a table to `out` in `format`; `bom` for CSV (default true, as the export's CSV). */
export async function writeTable(
  table: Table,
  format: TableFormat,
  out: string,
  opts: { bom?: boolean; signal?: AbortSignal } = {},
): Promise<TableResult> {
  // the Parquet writer is loaded on first use (a CSV export or the command line's start never pays for it)
  const pq = format === 'parquet' ? await import('./table-parquet') : null;
  const f = new TableFile(out);
  let rows = 0;
  try {
    if (pq) rows = pq.writeParquetTable(table, (b) => f.bytesOut(b), opts.signal);
    else {
      const { columns } = table;
      if (format === 'csv') {
        if (opts.bom !== false) f.write('\uFEFF');
        f.write(csvRecord(columns.map((c) => c.name)));
      } else if (format === 'json') f.write('[');
      for (const r of table.rows) {
        if (opts.signal?.aborted) throw abortError(opts.signal);
        if (format === 'csv') f.write(csvRecord(r.map((v, i) => cell(csvValue(columns[i].type, v)))));
        else {
          const o: Record<string, unknown> = {};
          for (let i = 0; i < columns.length; i++) o[columns[i].name] = jsonValue(columns[i].type, r[i]);
          f.write(format === 'json' ? `${rows ? ',\n' : '\n'}${JSON.stringify(o)}` : `${JSON.stringify(o)}\n`);
        }
        rows++;
      }
      if (format === 'json') f.write(rows ? '\n]\n' : ']\n');
    }
    const { path, sha256 } = f.done();
    return { path, rows, bytes: statSync(path).size, sha256 };
  } catch (e) {
    f.abandon();
    throw e;
  }
}
