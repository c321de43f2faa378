/**
 * One row group of a dataset bundle's item tables (bundle-tables.ts): the rows rendered as the CSV,
 * JSONL and Parquet exports render them, with each row's key and the SHA-256 of its CSV record and
 * JSONL line. The same code runs on the exporting thread and in export workers (parquet-worker.ts).
 */
import * as crypto from 'node:crypto';
import type { ExportRow } from '../ports';
import { resolveColumns, valuesSinkCsv, type SinkCsvFn } from './columns';
import { GroupEncoder, parquetLayout, type EncodedGroup, type ParquetLayout } from './parquet-group';
import { envelopeJson } from './rows';

const encoder = new TextEncoder();
/** crypto.hash (Node ≥ 20.12): one call, no Hash object per row */
const oneShot = (crypto as { hash?: (alg: string, data: string) => string }).hash;
const sha256 = oneShot
  ? (s: string): string => oneShot('sha256', s)
  : (s: string): string => crypto.createHash('sha256').update(s).digest('hex');

/** One row group of the three tables, with each row's key and hashes (in the group's row order). */
export interface TablesPart {
  group: EncodedGroup;
  csv: Uint8Array;
  jsonl: Uint8Array;
  /** platform/kind/id */
  keys: string[];
  /** SHA-256 of the row's CSV record (without its line end) and of its JSONL line (without `\n`) */
  csvSha: string[];
  jsonlSha: string[];
}

/** The renderers of the tables (the export's columns, all of them). */
export interface TablesLayout {
  layout: ParquetLayout;
  /** each column's value to its Parquet column and its CSV cell: the row's CSV record */
  render: SinkCsvFn;
}

export const tablesLayout = (): TablesLayout => ({ layout: parquetLayout(), render: valuesSinkCsv(resolveColumns()) });

/**
 * One group's rows, added a batch at a time (a batch's parsed rows are dropped once added: a group
 * of 20,000 parsed records is never held), rendered three ways and hashed.
 */
export class TablesBuilder {
  private readonly enc: GroupEncoder;
  private readonly keys: string[] = [];
  private readonly csvSha: string[] = [];
  private readonly jsonlSha: string[] = [];
  private readonly csv: Uint8Array[] = [];
  private readonly jsonl: Uint8Array[] = [];

  constructor(
    private readonly t: TablesLayout,
    capacity: number,
  ) {
    this.enc = new GroupEncoder(t.layout, capacity);
  }

  add(rows: Iterable<ExportRow>): void {
    let csv = '';
    let jsonl = '';
    for (const row of rows) {
      const c = this.enc.addThrough(row, this.t.render); // ends in \r\n
      csv += c;
      this.csvSha.push(sha256(c.slice(0, -2)));
      const j = envelopeJson(row);
      jsonl += j + '\n';
      this.jsonlSha.push(sha256(j));
      this.keys.push(`${row.platform}/${row.kind}/${row.id}`);
    }
    this.csv.push(encoder.encode(csv));
    this.jsonl.push(encoder.encode(jsonl));
  }

  finish(): TablesPart {
    return {
      group: this.enc.finish(),
      csv: concat(this.csv),
      jsonl: concat(this.jsonl),
      keys: this.keys,
      csvSha: this.csvSha,
      jsonlSha: this.jsonlSha,
    };
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
