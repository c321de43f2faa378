/**
 * What a failed step of the analysis index's upkeep leaves (analysis-index.ts): each step is one
 * transaction, rolled back when it fails, so what the index holds in memory for a build (the
 * daily counts of a build from scratch, its dictionary and totals) is dropped — it may count what
 * was rolled back. A read's upkeep that meets a full disk (or a file that became read-only) is no
 * failure of the read: the read answers from the items, the same table, and upkeep waits
 * UPKEEP_RETRY_MS before it is tried again (`loupe analyze top` on a disk with a few KiB free
 * exited 6 with the storage sentence though it only reads). Damage or an I/O error still stops it.
 */
import { asStorageError } from '../storage-error';

/** How long upkeep waits after it met a full disk; reads answer from the items meanwhile. */
export const UPKEEP_RETRY_MS = 60_000;

export class UpkeepGate {
  /** until when (Date.now) upkeep waits */
  private until = 0;

  constructor(
    /** the archive's file, for the storage error's wording */
    private readonly path: () => string,
    /** drops what the index holds in memory for a build */
    private readonly drop: () => void,
  ) {}

  /** Whether upkeep may be tried now (not within UPKEEP_RETRY_MS of a full disk). */
  get open(): boolean {
    return Date.now() >= this.until;
  }

  /** Runs a step of upkeep; if it fails, what is held in memory is dropped and the failure thrown. */
  hold(f: () => void): void {
    try {
      f();
    } catch (e) {
      this.drop();
      throw e;
    }
  }

  /** Runs a read's upkeep: false (and upkeep waits) when the disk is full or the file read-only; other failures are thrown. */
  run(f: () => boolean): boolean {
    try {
      return f();
    } catch (e) {
      this.drop();
      const s = asStorageError(e, this.path());
      if (s === null || (s.kind !== 'full' && s.kind !== 'readonly')) throw e;
      this.until = Date.now() + UPKEEP_RETRY_MS;
      return false;
    }
  }
}
