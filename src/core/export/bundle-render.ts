/**
 * One row group of a dataset bundle's item tables (bundle-tables.ts): the rows rendered as the CSV,
 * JSONL and Parquet exports render them, with each row's key and the SHA-256 of its CSV record and
 * JSONL line. The same code runs on the exporting thread and in export workers (parquet-worker.ts).
 */
import * as crypto from 'node:crypto';
import type Database from 'better-sqlite3';
import type { RowFacts } from '../archive/bundle-row-facts';
import { Statements } from '../archive/sql';
import type { ExportRow } from '../ports';
import { resolveColumns, valuesSinkCsv, type SinkCsvFn } from './columns';
import { bundleBatchColumns, bundleBatchOf, historyBatchOf } from './bundle-batch';
import { beginBytes, bytesLength, bytesSoFar } from './csv-bytes';
import { csvSpanRenderer } from './csv-spans';
import { GroupEncoder, parquetLayout, type EncodedGroup, type ParquetLayout } from './parquet-group';
import { parquetSpanAdder } from './parquet-spans';
import { fromBytes } from './byte-row';
import { bytesRow, openRidSource, RID_BATCH, type BytesTuple, type RidSource } from './rid-rows';
import { envelopeJson, isoOrNull } from './rows';
import { SpareBuffers } from './spare-buffers';

export { SpareBuffers };

/** crypto.hash (Node ≥ 20.12): one call, no Hash object per row */
const oneShot = (crypto as { hash?: (alg: string, data: Uint8Array) => string }).hash;
const sha256 = oneShot
  ? (b: Uint8Array): string => oneShot('sha256', b)
  : (b: Uint8Array): string => crypto.createHash('sha256').update(b).digest('hex');

/**
 * A group's bytes of one file, rendered row by row: each row's text is encoded once, into one
 * buffer (moved to the writing thread as it is), and hashed from those bytes — before, each row
 * was encoded twice (for its hash and for the file) and the group's pieces copied together.
 */
class ByteSink {
  private buf: Buffer;
  at = 0;
  constructor(
    capacity: number,
    private readonly spare?: SpareBuffers,
  ) {
    this.buf = this.alloc(Math.max(1024, capacity));
  }
  /** a spare of at least `min` bytes, else a new buffer of `want` */
  private alloc(min: number, want = min): Buffer {
    return this.spare?.take(min) ?? Buffer.allocUnsafeSlow(want);
  }
  /** a larger buffer holding the bytes so far (the old one back to the spares) */
  private grow(min: number, want = min): void {
    const grown = this.alloc(min, want);
    this.buf.copy(grown, 0, 0, this.at);
    this.spare?.give(this.buf.buffer as ArrayBuffer);
    this.buf = grown;
  }
  /** appends `s`; returns where its bytes start */
  write(s: string): number {
    const start = this.at;
    if (this.buf.length - start < s.length * 3) this.grow(Math.max(this.buf.length * 2, start + s.length * 3));
    this.at += this.buf.write(s, start);
    return start;
  }
  /** appends `b` (copied); returns where its bytes start */
  append(b: Uint8Array): number {
    const start = this.at;
    if (this.buf.length - start < b.length) this.grow(Math.max(this.buf.length * 2, start + b.length));
    this.buf.set(b, start);
    this.at += b.length;
    return start;
  }
  /** the SHA-256 of bytes written, from `start` to `end` */
  sha(start: number, end: number): string {
    return sha256(this.buf.subarray(start, end));
  }
  /**
   * room for `rows` rows like those so far (one allocation instead of doublings): a new buffer
   * has 5 % to spare; a spare buffer (an earlier group's, given back) is taken when it holds the
   * estimate itself — groups differ by a fraction of a percent, and a spare a few bytes short of
   * this group's 5 % was left for a new buffer faulted in page by page (7 of 10 JSONL groups at
   * 200k rows)
   */
  reserve(rowsSoFar: number, rows: number): void {
    if (rowsSoFar === 0 || this.at === 0) return;
    const estimate = Math.ceil((this.at / rowsSoFar) * rows);
    const want = Math.ceil(estimate * 1.05);
    if (want > this.buf.length) this.grow(Math.max(estimate, this.at), want);
  }
  /** the bytes written (a view; its buffer is moved) */
  bytes(): Uint8Array {
    return new Uint8Array(this.buf.buffer, this.buf.byteOffset, this.at);
  }
}

/** An export time as its JSON value (rows.ts toEnvelopeShell), the last one kept: a group's rows often share their times. */
function isoJson(): (t: number) => string {
  let last = NaN;
  let json = 'null';
  return (t) => {
    if (t === last) return json;
    last = t;
    return (json = Number.isFinite(t) ? `"${new Date(t).toISOString()}"` : 'null');
  };
}

/** a re-check's mark (checked at, missing since) as its JSON value (rows.ts toEnvelopeShell): null on most rows */
const markJson = (t: number | null | undefined): string => {
  const iso = isoOrNull(t);
  return iso === null ? 'null' : `"${iso}"`;
};

/**
 * A row's JSONL line: rows.ts envelopeJson's text, without its objects (the record spliced in as
 * stored, the times converted once per distinct time). Tested equal to envelopeJson
 * (bundle-tables.test.ts).
 */
export function envelopeLine(firstSeen: (t: number) => string, lastSeen: (t: number) => string): (row: ExportRow) => string {
  return (row) => {
    if (typeof row.recordJson !== 'string' || row.note === undefined) return envelopeJson(row);
    return `{"platform":${JSON.stringify(row.platform)},"kind":${JSON.stringify(row.kind)},"id":${JSON.stringify(row.id)},"record":${row.recordJson},"tags":${row.tags.length === 0 ? '[]' : JSON.stringify(row.tags)},"note":${JSON.stringify(row.note)},"overrides":${JSON.stringify(row.overrides)},"first_seen_at":${firstSeen(row.firstSeenAt)},"last_seen_at":${lastSeen(row.lastSeenAt)},"checked_at":${markJson(row.checkedAt)},"missing_since":${markJson(row.missingSince)}}`;
  };
}

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
  /**
   * each row's calls and metric history (archive/bundle-rows.ts RowFacts: `readings` 6 numbers a
   * reading, `ends[k]` where row k's end), read with the rows, and the group's items by
   * availability (`attrition`: the manifest's counts); null when a batch came without
   */
  facts: {
    calls: string[][];
    readings: Float64Array;
    ends: Uint32Array;
    attrition: AttritionCount[];
    /** the latest re-check mark (checked at or missing since, ms) of the group's rows; null: none */
    latestMark: number | null;
  } | null;
}

/**
 * Items by availability after re-checks, counted as the attrition report counts them
 * (archive/attrition.ts): a network, a publication month (PUBLISHED_MONTH; null: unknown), and how
 * many are available (re-checked, not missing), unavailable (missing since), not re-checked.
 */
export type AttritionCount = [platform: string, month: string | null, available: number, unavailable: number, notRechecked: number];

/** A group's attrition counts, by network and month. */
class AttritionCounts {
  private readonly byPlatform = new Map<string, Map<string | null, AttritionCount>>();
  latestMark: number | null = null;
  add(platform: string, month: string | null, checked: number | null | undefined, missing: number | null | undefined): void {
    for (const t of [checked, missing])
      if (t !== null && t !== undefined && (this.latestMark === null || t > this.latestMark)) this.latestMark = t;
    let months = this.byPlatform.get(platform);
    if (!months) this.byPlatform.set(platform, (months = new Map()));
    let c = months.get(month);
    if (!c) months.set(month, (c = [platform, month, 0, 0, 0]));
    // as the report's sums: missing_since set, else checked_at set, else neither
    if (missing !== null && missing !== undefined) c[3]++;
    else if (checked !== null && checked !== undefined) c[2]++;
    else c[4]++;
  }
  rows(): AttritionCount[] {
    const out: AttritionCount[] = [];
    for (const months of this.byPlatform.values()) for (const c of months.values()) out.push(c);
    return out;
  }
}

/**
 * A batch of rows by rid, each record as its stored bytes, with their facts
 * (archive/bundle-row-facts.ts), or null when one is gone.
 */
export type BundleRead = (rids: readonly number[]) => { rows: BytesTuple[]; facts: RowFacts } | null;

/**
 * Rows and facts by rid from the archive file, on a read-only connection of its own (opened on
 * first use), a batch as one aggregate row (bundle-batch.ts), as rid-batch.ts reads the exports' rows.
 */
export function bundleReader(source: RidSource): {
  read: BundleRead;
  /** the metric history of rows by rid, ascending (bundle-batch.ts historyBatchOf) */
  history: (ascending: readonly number[]) => unknown[][] | null;
  close: () => void;
} {
  let db: Database.Database | null = null;
  let st: Statements | null = null;
  const cols = bundleBatchColumns(source.extra);
  const statements = (): Statements => {
    if (!st) {
      db = openRidSource(source).db;
      st = new Statements(db);
    }
    return st;
  };
  return {
    read: (rids) => bundleBatchOf(statements(), cols, rids),
    history: (ascending) => historyBatchOf(statements(), ascending),
    close: () => db?.close(),
  };
}

/** The renderers of the tables (the export's columns, all of them). */
export interface TablesLayout {
  layout: ParquetLayout;
  /** each column's value to its Parquet column and its CSV cell: the row's CSV record */
  render: SinkCsvFn;
  /** a row read as bytes into its Parquet columns (parquet-spans.ts) */
  addSpans: (enc: GroupEncoder, t: BytesTuple, scanned?: boolean) => void;
  /** a row read as bytes as its CSV record, at the end of this thread's CSV batch (csv-spans.ts, csv-bytes.ts) */
  csvSpans: (t: BytesTuple, scanned?: boolean) => void;
}

export const tablesLayout = (): TablesLayout => {
  const layout = parquetLayout();
  return { layout, render: valuesSinkCsv(resolveColumns()), addSpans: parquetSpanAdder(layout), csvSpans: csvSpanRenderer() };
};

/**
 * One group's rows, added a batch at a time (a batch's parsed rows are dropped once added: a group
 * of 20,000 parsed records is never held), rendered three ways and hashed.
 */
export class TablesBuilder {
  private readonly enc: GroupEncoder;
  private readonly keys: string[] = [];
  private readonly csvSha: string[] = [];
  private readonly jsonlSha: string[] = [];
  private readonly csv: ByteSink;
  private readonly jsonl: ByteSink;
  private readonly line = envelopeLine(isoJson(), isoJson());
  private readonly first = isoJson();
  private readonly last = isoJson();
  /** the batches' facts, while every batch came with them */
  private facts: { calls: string[][]; readings: number[]; ends: number[] } | null = { calls: [], readings: [], ends: [] };
  private readonly attrition = new AttritionCounts();

  /** `reuse`: a thread's encoder (emptied first) and spare buffers, kept from group to group (a worker's) */
  constructor(
    private readonly t: TablesLayout,
    private readonly capacity: number,
    reuse?: GroupReuse,
  ) {
    if (reuse) reuse.enc.reset();
    this.enc = reuse?.enc ?? new GroupEncoder(t.layout, capacity);
    this.csv = new ByteSink(1 << 20, reuse?.spare);
    this.jsonl = new ByteSink(1 << 20, reuse?.spare);
  }

  private takeFacts(facts: RowFacts | null): void {
    const f = this.facts;
    if (f && facts) {
      const base = f.readings.length;
      for (const v of facts.readings) f.readings.push(v);
      for (let k = 0; k < facts.calls.length; k++) {
        f.calls.push(facts.calls[k]);
        f.ends.push(base + facts.ends[k]);
      }
    } else this.facts = null;
  }

  /**
   * A batch of rows read as bytes, with their facts: each record scanned (record-scan.ts) into its
   * Parquet columns and its CSV record with no JSON.parse (the Parquet and CSV exports' workers'
   * code, parquet-spans.ts, csv-spans.ts: the same bytes as the parsed path), and its stored bytes
   * copied into its JSONL line (not decoded and encoded again). A row with overrides, or one the
   * scan cannot vouch for, is parsed there as before.
   */
  addTuples(tuples: readonly BytesTuple[], facts: RowFacts | null): void {
    this.takeFacts(facts);
    const first = this.keys.length === 0;
    const { csv, jsonl, t } = this;
    // the batch's CSV records go into this thread's CSV buffer (csv-bytes.ts) and are copied into
    // the group's at the batch's end: nothing else writes there meanwhile (this never yields)
    beginBytes();
    const ends: number[] = [];
    if (facts) for (let k = 0; k < tuples.length; k++) this.attrition.add(tuples[k][0], facts.months[k], tuples[k][6], tuples[k][7]);
    for (const row of tuples) {
      // one scan of the record for both (record-scan.ts keeps its spans until the next scan)
      const scanned = fromBytes(row, undefined);
      t.addSpans(this.enc, row, scanned);
      t.csvSpans(row, scanned);
      ends.push(bytesLength());
      let j: number;
      if (row[10] !== undefined && row[10] !== '[]') j = jsonl.write(this.line(bytesRow(row)) + '\n');
      else {
        j = jsonl.write(this.head(row));
        jsonl.append(row[3]);
        jsonl.write(this.tail(row));
      }
      // the JSONL line ends in \n, the CSV record in \r\n: hashed without them
      this.jsonlSha.push(jsonl.sha(j, jsonl.at - 1));
      this.keys.push(`${row[0]}/${row[1]}/${row[2]}`);
    }
    const base = csv.append(bytesSoFar());
    beginBytes();
    for (let k = 0, s = base; k < ends.length; k++) {
      const e = base + ends[k];
      this.csvSha.push(csv.sha(s, e - 2));
      s = e;
    }
    if (first) {
      csv.reserve(this.keys.length, this.capacity);
      jsonl.reserve(this.keys.length, this.capacity);
    }
  }

  /** envelopeLine's text before the record, of a row read as bytes */
  private head(t: BytesTuple): string {
    return `{"platform":${JSON.stringify(t[0])},"kind":${JSON.stringify(t[1])},"id":${JSON.stringify(t[2])},"record":`;
  }

  /** envelopeLine's text after the record and its line end, of a row read as bytes without overrides (exportRowOf's defaults) */
  private tail(t: BytesTuple): string {
    const tags = t[8] === undefined || t[8] === '[]' ? '[]' : JSON.stringify(JSON.parse(t[8]) as string[]);
    return `,"tags":${tags},"note":${JSON.stringify(t[9] ?? null)},"overrides":{},"first_seen_at":${this.first(t[4])},"last_seen_at":${this.last(t[5])},"checked_at":${markJson(t[6])},"missing_since":${markJson(t[7])}}\n`;
  }

  /** a batch of rows, with their facts (null: none, and the group has none) */
  add(rows: Iterable<ExportRow>, facts: RowFacts | null = null): void {
    this.takeFacts(facts);
    const first = this.keys.length === 0;
    const { csv, jsonl } = this;
    let k = 0;
    for (const row of rows) {
      if (facts) this.attrition.add(row.platform, facts.months[k++], row.checkedAt, row.missingSince);
      // the CSV record ends in \r\n, the JSONL line in \n: hashed without them
      const c = csv.write(this.enc.addThrough(row, this.t.render));
      this.csvSha.push(csv.sha(c, csv.at - 2));
      const j = jsonl.write(this.line(row) + '\n');
      this.jsonlSha.push(jsonl.sha(j, jsonl.at - 1));
      this.keys.push(`${row.platform}/${row.kind}/${row.id}`);
    }
    if (first) {
      csv.reserve(this.keys.length, this.capacity);
      jsonl.reserve(this.keys.length, this.capacity);
    }
  }

  finish(): TablesPart {
    return {
      group: this.enc.finish(),
      csv: this.csv.bytes(),
      jsonl: this.jsonl.bytes(),
      keys: this.keys,
      csvSha: this.csvSha,
      jsonlSha: this.jsonlSha,
      facts:
        this.facts && this.facts.calls.length === this.keys.length
          ? {
              calls: this.facts.calls,
              readings: Float64Array.from(this.facts.readings),
              ends: Uint32Array.from(this.facts.ends),
              attrition: this.attrition.rows(),
              latestMark: this.attrition.latestMark,
            }
          : null,
    };
  }
}

/** The transferable buffers of a part (moved, not copied, to the writing thread). */
export const partBuffers = (part: TablesPart): ArrayBuffer[] => [
  part.group.bytes.buffer as ArrayBuffer,
  part.csv.buffer as ArrayBuffer,
  part.jsonl.buffer as ArrayBuffer,
  ...(part.facts ? [part.facts.readings.buffer as ArrayBuffer, part.facts.ends.buffer as ArrayBuffer] : []),
];

/** What a worker keeps from one group to the next: its encoder's column buffers and its spare byte buffers. */
export interface GroupReuse {
  enc: GroupEncoder;
  spare: SpareBuffers;
}

/** A group of the tables by rid, read in batches with their facts; null when a row is gone (deleted since the snapshot). */
export function tablesOfRids(t: TablesLayout, read: BundleRead, rids: number[], reuse?: GroupReuse): TablesPart | null {
  const b = new TablesBuilder(t, rids.length, reuse);
  for (let i = 0; i < rids.length; i += RID_BATCH) {
    const batch = read(rids.slice(i, i + RID_BATCH));
    if (!batch) return null;
    b.addTuples(batch.rows, batch.facts);
  }
  return b.finish();
}
