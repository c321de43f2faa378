/**
 * A dataset bundle's item tables in one pass (issue 29; docs/datasets.md "Bundles"): each row is
 * read and parsed once and written three ways — `items.csv` (the CSV export's bytes), `items.jsonl`
 * (the JSONL export's) and `items.parquet` (the Parquet export's) — with the SHA-256 of its CSV
 * record and of its JSONL line taken as they are rendered, and each file's SHA-256 as it is
 * written. Before, a bundle exported the rows three times and read two of the files back to hash
 * their rows.
 *
 * As the Parquet export (parquet-rids.ts): the exporting thread walks the rids in order and hands
 * out whole row groups; each export worker (parquet-worker.ts, message `tables`) reads its group's
 * rows itself, encodes the Parquet group and renders the CSV and JSONL, and answers with the
 * three and the row hashes; this thread writes them in group order. A row no longer there when a
 * worker reads it (deleted since the walk's snapshot) makes the worker answer `missing`: that
 * group is rendered here from the snapshot. So is every group answered once something was
 * committed to the archive since the snapshot (RidWalk.current; pipelined.ts): a worker could
 * have read a row edited since, or another item under a reused rid. Small bundles, and where no worker starts, run on this
 * thread with the same code (renderTables).
 */
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExportRow, ExportRowSource, RidWalk } from '../ports';
import { abortError } from './abort';
import { bundleBatchColumns, bundleBatchOf } from './bundle-batch';
import type { HistoryFile } from './bundle-history';
import { TablesBuilder, tablesLayout, type TablesLayout, type TablesPart } from './bundle-render';
import { csvRecord } from './cells';
import { resolveColumns } from './columns';
import { ExportPool, WORKER_LIMITS } from './csv-pool';
import { ridThreads } from './csv-rids';
import { GroupFile } from './parquet';
import { pipelined } from './pipelined';
import { RID_BATCH } from './rid-rows';
import { takeTurns } from './turns';

const encoder = new TextEncoder();

/** Export workers rendering whole groups of the tables by rid. */
class TablesPool extends ExportPool {
  static start(threads: number, reader: { file: string; extra: string }): TablesPool | null {
    const workers = ExportPool.workers('parquet-worker', threads, { reader }, WORKER_LIMITS);
    return workers ? new TablesPool(workers) : null;
  }

  /**
   * the group's tables, or null when one of its rows is no longer in the archive; `done` gives its
   * CSV and JSONL buffers back to the worker once they are written (its next groups fill them again)
   */
  tables(rids: number[]): Promise<{ part: TablesPart; done: () => void } | null> {
    const p = this.post((seq) => ({ seq, rids, tables: true })).then((m) => {
      if (m.missing) return null;
      const part = m.part as TablesPart;
      return {
        part,
        done: () =>
          this.postTo(m.seq, { spare: [part.csv.buffer, part.jsonl.buffer] }, [
            part.csv.buffer as ArrayBuffer,
            part.jsonl.buffer as ArrayBuffer,
          ]),
      };
    });
    p.catch(() => undefined); // abandoned by a cancel: not an unhandled rejection
    return p;
  }

  /**
   * A bundle's metric history files of `rids` (ascending, moved) written into `dir` by a worker
   * with nothing in hand (the least busy: bundle-history.ts); null when a rid is gone.
   */
  history(rids: Float64Array, dir: string): Promise<HistoryFile[] | null> {
    const p = this.post((seq) => ({ seq, history: { rids, dir } }), true, [rids.buffer as ArrayBuffer]).then((m) =>
      m.missing ? null : (m.files as HistoryFile[]),
    );
    p.catch(() => undefined);
    return p;
  }
}

/** A file written in order, its SHA-256 taken as it goes. */
export class HashedFile {
  bytes = 0;
  private readonly hash: Hash = createHash('sha256');
  constructor(private readonly fh: FileHandle) {}
  static async open(path: string): Promise<HashedFile> {
    return new HashedFile(await open(path, 'wx'));
  }
  async write(b: Uint8Array): Promise<void> {
    this.hash.update(b);
    this.bytes += b.length;
    // one write(2) moves at most ~2 GiB on Linux: write what is left until every byte is out
    for (let at = 0; at < b.length;) {
      const { bytesWritten } = await this.fh.write(b, at, b.length - at);
      if (bytesWritten <= 0) throw new Error(`a bundle file took no bytes (${b.length - at} left to write)`);
      at += bytesWritten;
    }
  }
  async close(): Promise<string> {
    await this.fh.close();
    return this.hash.digest('hex');
  }
  async abandon(): Promise<void> {
    await this.fh.close().catch(() => undefined);
  }
}

export interface BundleTablesResult {
  rows: number;
  /**
   * item key → [CSV record SHA-256, JSONL line SHA-256], built on first use from the groups'
   * arrays (a bundle whose workers gave every row's facts never asks: bundle-facts.ts keeps them)
   */
  readonly hashes: Map<string, [string, string]>;
  /** the three files: name in `dir`, SHA-256, bytes */
  files: Array<{ path: string; sha256: string; bytes: number }>;
  /**
   * with `history`: the metric history files a worker wrote into `dir` once its groups were done
   * (bundle-history.ts), settled after the pass; null when none did (no workers, a row gone, the
   * archive changed since the walk's snapshot): the caller writes them
   */
  history: Promise<HistoryFile[] | null>;
}

/** The SHA-256 of a file, streamed. */
export async function fileSha256(path: string): Promise<{ sha256: string; bytes: number }> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) h.update(chunk as Buffer);
  return { sha256: h.digest('hex'), bytes: (await stat(path)).size };
}

/** rows per group (the Parquet export's row group) */
const GROUP = 20_000;
/** groups in a worker's hands */
const IN_FLIGHT_PER_WORKER = 2;

/**
 * Writes items.csv (BOM, header, records), items.jsonl and items.parquet of `rows` into `dir`
 * (files that must not exist yet), in one pass. A cancel stops between groups (the caller removes
 * what was written).
 */
export async function writeBundleTables(
  rows: Iterable<ExportRow> & Partial<Pick<ExportRowSource, 'ridWalk'>>,
  o: {
    dir: string;
    signal?: AbortSignal;
    onProgress?: (rows: number) => void;
    /** each group as placed, in file order, with its rids (null: rows without a rid walk) */
    onPart?: (rids: number[] | null, part: TablesPart) => void;
    threads?: number;
    groupSize?: number;
    /** a worker writes the metric history files into `dir` once its groups are done (bundle-history.ts) */
    history?: boolean;
  },
): Promise<BundleTablesResult> {
  const t = tablesLayout();
  const groupSize = Math.max(1, o.groupSize ?? GROUP);
  const csv = await HashedFile.open(join(o.dir, 'items.csv'));
  const jsonl = await HashedFile.open(join(o.dir, 'items.jsonl'));
  // hashed as written, as the CSV and JSONL (never read back: ~36 MB at 200k)
  const pq = await HashedFile.open(join(o.dir, 'items.parquet'));
  const placed: Array<Pick<TablesPart, 'keys' | 'csvSha' | 'jsonlSha'>> = [];
  let count = 0;
  let history: Promise<HistoryFile[] | null> = Promise.resolve(null);
  try {
    const parquet = new GroupFile(pq, t.layout, Number.MAX_SAFE_INTEGER);
    await csv.write(encoder.encode('\uFEFF' + csvRecord(resolveColumns().map((c) => c.name))));
    const place = async ({ rids, part, done }: Placed): Promise<void> => {
      if (o.signal?.aborted) throw abortError(o.signal);
      if (part.keys.length === 0) return;
      o.onPart?.(rids, part);
      await csv.write(part.csv);
      await jsonl.write(part.jsonl);
      done?.();
      await parquet.place(part.group);
      placed.push({ keys: part.keys, csvSha: part.csvSha, jsonlSha: part.jsonlSha }); // not its buffers
      count += part.keys.length;
      o.onProgress?.(count);
    };
    const walk = rows.ridWalk?.() ?? null;
    if (walk) {
      let later: { history: Promise<HistoryFile[] | null> } | null = null;
      try {
        later = await byRids(walk, t, groupSize, o.threads ?? ridThreads(), place, o.signal, o.history ? o.dir : null);
      } finally {
        // the walk's snapshot stays open until the history's answer is judged against it
        if (later) history = later.history.finally(() => walk.close());
        else walk.close();
      }
    } else await byRows(rows, t, groupSize, place);
    await parquet.finish();
  } catch (e) {
    await csv.abandon();
    await jsonl.abandon();
    await pq.abandon();
    await history.catch(() => null); // no worker writes into `dir` once this throws
    throw e;
  }
  const files = [
    { path: 'items.csv', sha256: await csv.close(), bytes: csv.bytes },
    { path: 'items.jsonl', sha256: await jsonl.close(), bytes: jsonl.bytes },
    { path: 'items.parquet', sha256: await pq.close(), bytes: pq.bytes },
  ];
  return withHashes(count, files, placed, history);
}

/** The result, its map of the rows' hashes built from the groups' arrays on first use. */
function withHashes(
  rows: number,
  files: BundleTablesResult['files'],
  placed: Array<Pick<TablesPart, 'keys' | 'csvSha' | 'jsonlSha'>>,
  history: Promise<HistoryFile[] | null>,
): BundleTablesResult {
  let hashes: Map<string, [string, string]> | null = null;
  return {
    rows,
    files,
    history,
    get hashes() {
      if (!hashes) {
        hashes = new Map();
        for (const p of placed) for (let k = 0; k < p.keys.length; k++) hashes.set(p.keys[k], [p.csvSha[k], p.jsonlSha[k]]);
      }
      return hashes;
    },
  };
}

/** Rows without a rid walk, in groups rendered on this thread. */
async function byRows(rows: Iterable<ExportRow>, t: TablesLayout, groupSize: number, place: (p: Placed) => Promise<void>): Promise<void> {
  let group: ExportRow[] = [];
  let b = new TablesBuilder(t, groupSize);
  let inGroup = 0;
  for (const row of rows) {
    group.push(row);
    inGroup++;
    if (group.length >= RID_BATCH || inGroup >= groupSize) {
      b.add(group);
      group = [];
    }
    if (inGroup >= groupSize) {
      await place({ rids: null, part: b.finish() });
      b = new TablesBuilder(t, groupSize);
      inGroup = 0;
    }
  }
  b.add(group);
  await place({ rids: null, part: b.finish() });
}

/** A group to place: its part, and the rids it holds (null: rows without a rid walk). */
interface Placed {
  rids: number[] | null;
  part: TablesPart;
  /** its CSV and JSONL bytes are written (a worker's: their buffers go back to it) */
  done?: () => void;
}

/**
 * The walk's rids in groups, rendered by workers (or here: one group, no worker, the archive
 * changed since the snapshot). With `historyDir`, the first worker left with no group once the
 * walk is read to its end writes the metric history files there (bundle-history.ts) while the
 * others finish theirs: the answer, settled once it arrives (null: none, a row gone, or the archive
 * changed since the snapshot), with the workers kept until then.
 */
async function byRids(
  walk: RidWalk,
  t: TablesLayout,
  groupSize: number,
  threads: number,
  place: (p: Placed) => Promise<void>,
  signal?: AbortSignal,
  historyDir: string | null = null,
): Promise<{ history: Promise<HistoryFile[] | null> } | null> {
  // here, as a worker does (rows with their facts, a batch as one aggregate row), from the walk's
  // snapshot (only once every rid was read): the same rows and facts whatever was committed since
  const cols = bundleBatchColumns(walk.extra);
  const here = async (rids: number[]): Promise<Placed> => {
    // tablesOfRids's loop, with a turn of the event loop between batches (`takeTurns`)
    const b = new TablesBuilder(t, rids.length);
    const turn = takeTurns();
    for (let i = 0; i < rids.length; i += RID_BATCH) {
      const batch = bundleBatchOf(walk.snapshot, cols, rids.slice(i, i + RID_BATCH));
      if (!batch) throw new Error("export: an item is not in the archive's snapshot");
      b.addTuples(batch.rows, batch.facts);
      await turn();
      if (signal?.aborted) throw abortError(signal);
    }
    return { rids, part: b.finish() };
  };
  const first = walk.next(groupSize);
  const pool = first.length < groupSize || threads < 1 ? null : TablesPool.start(threads, { file: walk.file, extra: walk.extra });
  if (!pool) {
    // the rest of the walk in groups (walk.rows reads the snapshot only once every rid was read)
    const groups = [first];
    for (let g = walk.next(groupSize); g.length > 0; g = walk.next(groupSize)) groups.push(g);
    for (const g of groups) if (g.length > 0) await place(await here(g));
    return null;
  }
  const sent: number[][] = [];
  let history = null as Promise<HistoryFile[] | null> | null;
  try {
    await pipelined(walk, first, {
      groupSize,
      cap: pool.size * IN_FLIGHT_PER_WORKER,
      send: (rids) => {
        sent.push(rids);
        return pool.tables(rids).then((t) => t && { rids, ...t });
      },
      here,
      place,
      // fewer groups in hand than workers: one has none (round-robin), and takes the history
      walked: (unanswered) => {
        if (historyDir !== null && !history && unanswered < pool.size && walk.current())
          history = pool.history(ascending(sent), historyDir);
      },
      signal,
    });
  } catch (e) {
    await pool.close();
    throw e;
  }
  if (!history) {
    await pool.close();
    return null;
  }
  const answer: Promise<HistoryFile[] | null> = history;
  // read at the archive's latest commit: kept only while nothing was committed since the snapshot
  return {
    history: answer
      .then(
        (files) => (files && walk.current() ? files : null),
        () => null,
      )
      .finally(() => pool.close()),
  };
}

/** every rid of the groups, ascending */
function ascending(groups: readonly number[][]): Float64Array {
  let n = 0;
  for (const g of groups) n += g.length;
  const all = new Float64Array(n);
  let at = 0;
  for (const g of groups) for (const rid of g) all[at++] = rid;
  return all.sort();
}
