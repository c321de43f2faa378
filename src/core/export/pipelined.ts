/**
 * A rid walk's groups through export workers, placed in order (parquet-rids.ts, bundle-tables.ts):
 * up to `cap` groups are in workers' hands at once; each answer is placed in the walk's order. A
 * worker that answers null (a row deleted since the walk's snapshot) makes this thread read the
 * rest of the walk's rids first (the snapshot's rows are readable only once every rid was read)
 * and then render that group itself from the snapshot (`here`): nothing is dropped.
 */
import type { RidWalk } from '../ports';
import { abortError } from './abort';

export interface Pipeline<T> {
  groupSize: number;
  /** groups in the workers' hands at once */
  cap: number;
  /** a worker's answer for these rids, or null when one of them is no longer in the archive */
  send(rids: number[]): Promise<T | null>;
  /** the group rendered on this thread from the walk's snapshot */
  here(rids: number[]): T;
  place(part: T): Promise<void>;
  signal?: AbortSignal;
}

/** Every rid of `walk`, from `first` (the walk's first group, already read) on, in groups. */
export async function pipelined<T>(walk: RidWalk, first: number[], p: Pipeline<T>): Promise<void> {
  const { groupSize, signal } = p;
  // groups not yet handed out: the first, then the walk's (or, once a group needed this
  // thread's snapshot, the rest of the walk read ahead)
  const ahead: number[][] = [first];
  let walking = true;
  const nextGroup = (): number[] | null => {
    const held = ahead.shift();
    if (held) return held;
    if (!walking) return null;
    const g = walk.next(groupSize);
    if (g.length < groupSize) walking = false;
    return g.length > 0 ? g : null;
  };
  const queue: Array<{ rids: number[]; answer: Promise<T | null> }> = [];
  for (;;) {
    while (queue.length < p.cap) {
      const rids = nextGroup();
      if (!rids) break;
      queue.push({ rids, answer: p.send(rids) });
    }
    const slot = queue.shift();
    if (!slot) break;
    if (signal?.aborted) throw abortError(signal);
    let part = (await slot.answer) as T | null;
    if (signal?.aborted) throw abortError(signal);
    if (part === null) {
      for (let g = walking ? walk.next(groupSize) : []; g.length > 0; g = walk.next(groupSize)) ahead.push(g);
      walking = false;
      part = p.here(slot.rids);
    }
    await p.place(part);
  }
}
