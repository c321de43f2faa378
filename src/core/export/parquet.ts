/**
 * Parquet exports for DuckDB, pandas, R (arrow) and Spark (docs/export.md "Parquet").
 *
 * The columns of the CSV export, typed: ids and all other text `STRING` (UTF-8; ids never become
 * numbers), times `TIMESTAMP` (milliseconds, UTC), counts `INT64`, probabilities and durations
 * `DOUBLE`, flags `BOOLEAN`, one column per label field typed from the spec's label table
 * (src/shared/labels.ts: probability → DOUBLE, 0–3 / 0–4 scales → INT32, flags → BOOLEAN, words →
 * STRING), and nested values (media URLs, `ext`, tags, overrides, `extra`) as JSON. A value that
 * does not fit its column's type (an API change, a label given as text) is written as null there
 * and kept, by column name, in the JSON column `untyped`, so nothing is lost.
 *
 * Written with hyparquet-writer's incremental `ParquetWriter`: rows are gathered into one row
 * group at a time (20,000 rows), encoded (dictionary where it pays, Snappy), written, and the
 * memory reused — it stays flat however many rows there are.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { ByteWriter, ParquetWriter, schemaFromColumnData } from 'hyparquet-writer';
import { LABEL_SPECS } from '../../shared/labels';
import type { ExportRow } from '../ports';
import { resolveColumns, valuesRenderer } from './columns';

export type ParquetColumnType = 'STRING' | 'TIMESTAMP' | 'INT64' | 'INT32' | 'DOUBLE' | 'BOOLEAN' | 'JSON';

const FIXED: Record<string, ParquetColumnType> = {
  published_at: 'TIMESTAMP',
  'author.joined_at': 'TIMESTAMP',
  first_seen_at: 'TIMESTAMP',
  last_seen_at: 'TIMESTAMP',
  'author.followers': 'INT64',
  'author.following': 'INT64',
  'engagement.views': 'INT64',
  'engagement.likes': 'INT64',
  'engagement.comments': 'INT64',
  'engagement.shares': 'INT64',
  'engagement.saves': 'INT64',
  'content.duration_seconds': 'DOUBLE',
  'relevance.p': 'DOUBLE',
  'relevance.depth': 'DOUBLE',
  'relevance.spam': 'DOUBLE',
  'author.verified': 'BOOLEAN',
  'content.media_urls': 'JSON',
  ext: 'JSON',
  coauthors: 'JSON',
  tags: 'JSON',
  overrides: 'JSON',
  extra: 'JSON',
};

/** The Parquet type of an export column. */
export function parquetType(column: string): ParquetColumnType {
  const fixed = FIXED[column];
  if (fixed) return fixed;
  if (column.startsWith('flags.')) return 'BOOLEAN';
  const m = /^labels\.([^.]+)\.(.+)$/.exec(column);
  if (m) {
    const spec = LABEL_SPECS[m[1]]?.fields[m[2]];
    if (spec?.type === 'prob') return 'DOUBLE';
    if (spec?.type === 'int') return 'INT32';
    if (spec?.type === 'bool') return 'BOOLEAN';
    return 'STRING';
  }
  return 'STRING';
}

export const PARQUET_ROW_GROUP = 20_000;

export interface ParquetOptions {
  out: string;
  columns?: string[];
  signal?: AbortSignal;
  onProgress?: (rows: number) => void;
  total?: number;
  /** rows per row group (tests use small groups); default 20,000 */
  rowGroupSize?: number;
}

export interface ParquetResult {
  rows: number;
  bytes: number;
  path: string;
  rowGroups: number;
  /** values that did not fit their column's type (kept in `untyped`) */
  untypedValues: number;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:Z|[+-]\d{2}:?\d{2})?$/;
const NO = Symbol('does not fit');

/** The value as its column's type, null for null, or NO when it does not fit. */
function typed(t: ParquetColumnType, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  switch (t) {
    case 'STRING':
      return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint' ? String(v) : NO;
    case 'JSON':
      return v;
    case 'BOOLEAN':
      return typeof v === 'boolean' ? v : NO;
    case 'DOUBLE':
      return typeof v === 'number' && Number.isFinite(v) ? v : NO;
    case 'INT32':
      return typeof v === 'number' && Number.isInteger(v) && Math.abs(v) <= 0x7fffffff ? v : NO;
    case 'INT64':
      return typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : typeof v === 'bigint' ? v : NO;
    case 'TIMESTAMP': {
      if (typeof v === 'number') return Number.isFinite(v) ? Math.round(v) : NO;
      if (typeof v !== 'string' || !ISO_TIME.test(v)) return NO;
      const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v);
      return Number.isFinite(ms) ? ms : NO;
    }
  }
}

/** hyparquet-writer's byte writer, flushed to a file after every row group (awaited: backpressure). */
function fileWriter(fh: FileHandle): ByteWriter {
  const w = new ByteWriter(1 << 20) as ByteWriter & { flush(): Promise<void>; finish(): Promise<void> };
  const drain = async (): Promise<void> => {
    if (w.index === 0) return;
    const chunk = Buffer.from(w.buffer.slice(0, w.index));
    w.index = 0;
    await fh.write(chunk);
  };
  w.flush = drain;
  w.finish = drain;
  return w;
}

function abortError(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  if (r instanceof Error) return r;
  const e = new Error('export cancelled');
  e.name = 'AbortError';
  return e;
}

/** Export rows to a Parquet file at `opts.out` (temporary name, renamed when complete). */
export async function exportParquet(rows: Iterable<ExportRow> | AsyncIterable<ExportRow>, opts: ParquetOptions): Promise<ParquetResult> {
  const defs = resolveColumns(opts.columns);
  const values = valuesRenderer(defs);
  const names = [...defs.map((d) => d.name), 'untyped'];
  const types = [...defs.map((d) => parquetType(d.name)), 'JSON' as const];
  const n = defs.length;
  const groupSize = Math.max(1, opts.rowGroupSize ?? PARQUET_ROW_GROUP);
  const { signal, onProgress } = opts;
  signal?.throwIfAborted();
  const finalPath = resolve(opts.out);
  const tmp = join(dirname(finalPath), `.${basename(finalPath)}.${randomBytes(6).toString('hex')}.partial`);
  const every = opts.total && opts.total > 0 ? Math.max(1, Math.floor(opts.total / 200)) : 1000;

  // the schema from the declared types (an empty column list would make hyparquet infer them)
  const schema = schemaFromColumnData({ columnData: names.map((name, i) => ({ name, data: [], type: types[i], nullable: true })) });
  let fh: FileHandle | null = null;
  let count = 0;
  let groups = 0;
  let untypedValues = 0;
  try {
    fh = await open(tmp, 'wx');
    const writer = new ParquetWriter({ writer: fileWriter(fh), schema, createdBy: 'Loupe (hyparquet-writer)', kvMetadata: [{ key: 'loupe.columns', value: 'the CSV export columns, typed (docs/export.md "Parquet")' }] });
    let cols: unknown[][] = names.map(() => []);
    let inGroup = 0;
    const writeGroup = async (): Promise<void> => {
      if (inGroup === 0) return;
      await writer.write({ columnData: names.map((name, i) => ({ name, data: cols[i] as never[] })), rowGroupSize: inGroup });
      groups++;
      cols = names.map(() => []);
      inGroup = 0;
      // a synchronous source never waits by itself: give the event loop a turn per group
      await new Promise<void>((res) => setImmediate(res));
    };
    let nextReport = every;
    for await (const row of rows as AsyncIterable<ExportRow>) {
      if (signal?.aborted) throw abortError(signal);
      const vs = values(row);
      let untyped: Record<string, unknown> | null = null;
      for (let i = 0; i < n; i++) {
        const t = typed(types[i], vs[i]);
        if (t === NO) {
          (untyped ??= {})[names[i]] = vs[i];
          untypedValues++;
          cols[i].push(null);
        } else cols[i].push(t);
      }
      cols[n].push(untyped);
      inGroup++;
      count++;
      if (inGroup >= groupSize) {
        await writeGroup();
        if (onProgress && count >= nextReport) {
          nextReport = count + every;
          onProgress(count);
        }
      }
    }
    await writeGroup();
    if (signal?.aborted) throw abortError(signal);
    await writer.finish();
    await fh.close();
    fh = null;
    const bytes = (await stat(tmp)).size;
    await rename(tmp, finalPath);
    onProgress?.(count);
    return { rows: count, bytes, path: finalPath, rowGroups: groups, untypedValues };
  } catch (e) {
    await fh?.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
}
