/**
 * Worker threads for large CSV and Parquet exports (docs/export.md "Performance"). The exporting
 * thread reads rows from SQLite and ships them, unparsed, in batches; the workers parse and render
 * (csv-worker.ts) or encode row groups (parquet-worker.ts); the exporting thread writes their
 * answers in order. Output is byte-identical to the single-thread path (same code). Where no
 * worker can start, exports run on one thread.
 */
import type { Worker } from 'node:worker_threads';
import type { WireBatch, WireRow } from './wire';
import { startWorkers, WORKER_LIMITS, type WorkerLimits, type WorkerName } from './worker-spawn';
import type { WorkerConfig } from './worker-config';

export { defaultThreads, workerEntry, WORKER_LIMITS, type WorkerName } from './worker-spawn';

/** A worker's answer to one batch: `seq` and what the worker returns, or `error`. */
type Answer = { seq: number; error?: string } & Record<string, unknown>;

interface Pending {
  resolve(answer: Answer): void;
  reject(e: Error): void;
}

/**
 * Export workers of one kind; batches go round-robin (or, with `leastBusy`, to the worker with the
 * fewest unanswered), each answer resolves its batch's promise.
 */
export class ExportPool {
  private readonly pending = new Map<number, Pending>();
  private seq = 0;
  private failed: Error | null = null;
  /** each worker's messages not yet answered */
  private readonly busy: number[];

  protected constructor(private readonly workers: Worker[]) {
    this.busy = workers.map(() => 0);
    workers.forEach((w, i) => {
      w.on('message', (m: Answer) => {
        const p = this.pending.get(m.seq);
        if (!p) return;
        this.pending.delete(m.seq);
        this.busy[i]--;
        if (m.error !== undefined) p.reject(new Error(`export worker: ${m.error}`));
        else p.resolve(m);
      });
      w.on('error', (e) => this.fail(e));
      w.on('exit', (code) => {
        if (this.pending.size > 0) this.fail(new Error(`export worker stopped (exit code ${code})`));
      });
    });
  }

  /**
   * Workers for `name`, sent `config` first (worker-spawn.ts: the command line's export takes the
   * ones it started at its beginning); null when none can be started here.
   */
  protected static workers(name: WorkerName, threads: number, config: WorkerConfig, limits: WorkerLimits): Worker[] | null {
    return startWorkers(name, threads, limits, config);
  }

  get size(): number {
    return this.workers.length;
  }

  /** Send one batch of rows to the next worker; resolves with its answer. */
  protected send(rows: WireRow[]): Promise<Answer> {
    return this.post((seq) => ({ seq, rows }) satisfies WireBatch);
  }

  /**
   * Send one message (made with its sequence number) to the next worker, or with `leastBusy` to
   * the one with the fewest messages unanswered (the next in turn among equals), its `transfer`
   * buffers moved; resolves with its answer.
   */
  protected post(message: (seq: number) => { seq: number }, leastBusy = false, transfer: ArrayBuffer[] = []): Promise<Answer> {
    if (this.failed) return Promise.reject(this.failed);
    const seq = this.seq++;
    const p = new Promise<Answer>((resolve, reject) => this.pending.set(seq, { resolve, reject }));
    p.catch(() => undefined); // a batch abandoned by a cancel is not an unhandled rejection
    const n = this.workers.length;
    let w = seq % n;
    if (leastBusy) for (let k = 1; k < n; k++) if (this.busy[(seq + k) % n] < this.busy[w]) w = (seq + k) % n;
    this.busy[w]++;
    this.workers[w].postMessage(message(seq), transfer);
    return p;
  }

  /** A message that wants no answer, its buffers moved, to the worker `seq` went to round-robin (any worker may take buffers back). */
  protected postTo(seq: number, message: unknown, transfer: ArrayBuffer[]): void {
    if (this.failed) return;
    this.workers[seq % this.workers.length].postMessage(message, transfer);
  }

  private fail(e: Error): void {
    this.failed ??= e;
    for (const p of this.pending.values()) p.reject(this.failed);
    this.pending.clear();
  }

  async close(): Promise<void> {
    this.fail(new Error('export workers closed'));
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

/** Workers that render CSV (csv-worker.ts). */
export class CsvPool extends ExportPool {
  /** null when no worker can be started here. `reader`: the archive the workers read rids from (renderRids). */
  static start(threads: number, columns: string[] | undefined, reader?: { file: string; extra: string }): CsvPool | null {
    const workers = ExportPool.workers('csv-worker', threads, { columns, reader }, WORKER_LIMITS);
    return workers ? new CsvPool(workers) : null;
  }

  /**
   * Read these rows (by rid) and render them to UTF-8 CSV; null when one is no longer in the
   * archive. `written` gives the bytes' buffer back to the worker once they are written (its next
   * batches are written into it, csv-bytes.ts spareBytes).
   */
  renderRids(rids: number[]): Promise<{ bytes: Uint8Array; written: () => void } | null> {
    const p = this.post((seq) => ({ seq, rids })).then((m) => {
      if (m.missing) return null;
      const bytes = (m.bytes as Uint8Array<ArrayBuffer> | undefined) ?? new Uint8Array(0);
      return { bytes, written: () => this.postTo(m.seq, { spare: bytes.buffer }, [bytes.buffer]) };
    });
    p.catch(() => undefined);
    return p;
  }

  /** Render one batch to UTF-8 CSV; batches go round-robin, answers are awaited in the caller's order. */
  render(rows: WireRow[]): Promise<Uint8Array> {
    const p = this.send(rows).then((m) => (m.bytes as Uint8Array | undefined) ?? new Uint8Array(0));
    p.catch(() => undefined); // a batch abandoned by a cancel is not an unhandled rejection
    return p;
  }
}
