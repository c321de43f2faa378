/**
 * A worker's output buffers given back by the writing thread once it has written their bytes
 * (bundle-tables.ts: a bundle's CSV and JSONL groups; csv-rids.ts: a CSV export's batches): a
 * buffer the kernel has already handed over is written again instead of a new one faulted in page
 * by page (a fresh buffer per group and file cost the bundle's workers about as much system time as
 * the rendering's copies). At most `keep` are held.
 */
export class SpareBuffers {
  private readonly free: ArrayBuffer[] = [];
  constructor(private readonly keep = 4) {}
  give(b: ArrayBuffer): void {
    if (b.byteLength === 0) return;
    this.free.push(b);
    if (this.free.length > this.keep) {
      // the smallest goes
      let s = 0;
      for (let i = 1; i < this.free.length; i++) if (this.free[i].byteLength < this.free[s].byteLength) s = i;
      this.free.splice(s, 1);
    }
  }
  /** the smallest spare of at least `bytes`, or null */
  take(bytes: number): Buffer<ArrayBuffer> | null {
    let best = -1;
    for (let i = 0; i < this.free.length; i++)
      if (this.free[i].byteLength >= bytes && (best < 0 || this.free[i].byteLength < this.free[best].byteLength)) best = i;
    if (best < 0) return null;
    const [b] = this.free.splice(best, 1);
    return Buffer.from(b);
  }
}
